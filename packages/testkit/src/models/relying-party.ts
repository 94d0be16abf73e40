/**
 * Model-based test of the relying-party machine and client authentication: random command
 * sequences run against the engine on a real storage adapter and against a plain model.
 */
import { RandomWebCrypto } from "@signet/adapters-crypto"
import {
  administerRelyingParty,
  authenticateClient,
  authenticateSsc,
  EngineConfig,
  registerRelyingParty,
  requireLoa,
  rotateSecrets,
  DEFAULT_SECRET_GRACE_SECONDS,
  PLANS,
  type Loa,
  type PlanId,
  type RpStatus,
} from "@signet/core"
import { Effect, Layer, ManagedRuntime } from "effect"
import { ManualClock } from "./manual-clock.ts"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageTags } from "../storage/conformance.ts"

interface ModelRp {
  status: RpStatus
  maxLoa: Loa
  kycVerified: boolean
  plan: PlanId | null
  clientSecret: string
  sscSecret: string
  /** the secret replaced by the last rotation of each kind, and until when it still works */
  graced: { client: { secret: string; until: number } | null; ssc: { secret: string; until: number } | null }
  /** secrets replaced twice over: never work again */
  dead: Array<string>
}
interface Model {
  readonly rps: Array<{ clientId: string } & ModelRp>
  now: number
}

const GRACE_MS = DEFAULT_SECRET_GRACE_SECONDS * 1000

type Runtime = ManagedRuntime.ManagedRuntime<StorageTags | EngineConfig | import("@signet/core").Random, unknown>
interface Real {
  readonly run: <A, E>(effect: Effect.Effect<A, E, StorageTags | EngineConfig | import("@signet/core").Random>) => Promise<A>
  readonly clock: ManualClock
}

const outcome = <A, E extends { readonly _tag: string }>(
  run: Real["run"],
  effect: Effect.Effect<A, E, StorageTags | EngineConfig | import("@signet/core").Random>,
) => run(Effect.match(effect, { onFailure: (e) => e._tag, onSuccess: () => "ok" }))

const STATUS_MOVES: Record<string, Partial<Record<RpStatus, RpStatus>>> = {
  Approve: { pending: "approved", rejected: "approved", suspended: "approved" },
  Reject: { pending: "rejected" },
  Suspend: { approved: "suspended" },
}

class Register implements fc.AsyncCommand<Model, Real> {
  constructor(readonly approve: boolean) {}
  check = () => true
  async run(m: Model, r: Real) {
    const created = await r.run(registerRelyingParty({ name: "Model RP", status: this.approve ? "approved" : "pending" }))
    expect(created.rp.status).toBe(this.approve ? "approved" : "pending")
    m.rps.push({
      clientId: created.rp.clientId,
      status: created.rp.status,
      maxLoa: "LOA-2",
      kycVerified: false,
      plan: null,
      clientSecret: created.clientSecret,
      sscSecret: created.sscSecret,
      graced: { client: null, ssc: null },
      dead: [],
    })
  }
  toString = () => `Register(${this.approve})`
}

class Move implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly move: "Approve" | "Reject" | "Suspend",
  ) {}
  check = (m: Readonly<Model>) => m.rps.length > 0
  async run(m: Model, r: Real) {
    const rp = m.rps[this.pick % m.rps.length]!
    const next = STATUS_MOVES[this.move]![rp.status]
    expect(await outcome(r.run, administerRelyingParty(rp.clientId, { _tag: this.move }))).toBe(next ? "ok" : "RpTransitionNotAllowed")
    if (next) rp.status = next
  }
  toString = () => `${this.move}(#${this.pick})`
}

class Configure implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly maxLoa: Loa,
    readonly kycVerified: boolean,
    readonly plan: PlanId | null,
  ) {}
  check = (m: Readonly<Model>) => m.rps.length > 0
  async run(m: Model, r: Real) {
    const rp = m.rps[this.pick % m.rps.length]!
    await r.run(administerRelyingParty(rp.clientId, { _tag: "SetMaxLoa", loa: this.maxLoa }))
    await r.run(administerRelyingParty(rp.clientId, { _tag: "SetKycVerified", kycVerified: this.kycVerified }))
    await r.run(administerRelyingParty(rp.clientId, { _tag: "SetPlan", plan: this.plan }))
    Object.assign(rp, { maxLoa: this.maxLoa, kycVerified: this.kycVerified, plan: this.plan })
  }
  toString = () => `Configure(#${this.pick}, ${this.maxLoa}, kyc=${this.kycVerified}, ${this.plan})`
}

class Rotate implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly which: "client" | "ssc" | "both",
  ) {}
  check = (m: Readonly<Model>) => m.rps.length > 0
  async run(m: Model, r: Real) {
    const rp = m.rps[this.pick % m.rps.length]!
    const fresh = await r.run(rotateSecrets(rp.clientId, this.which))
    expect(fresh.previousValidUntil).toBe(m.now + GRACE_MS)
    if ("clientSecret" in fresh && fresh.clientSecret !== undefined) {
      if (rp.graced.client !== null) rp.dead.push(rp.graced.client.secret)
      rp.graced.client = { secret: rp.clientSecret, until: m.now + GRACE_MS }
      rp.clientSecret = fresh.clientSecret
    }
    if ("sscSecret" in fresh && fresh.sscSecret !== undefined) {
      if (rp.graced.ssc !== null) rp.dead.push(rp.graced.ssc.secret)
      rp.graced.ssc = { secret: rp.sscSecret, until: m.now + GRACE_MS }
      rp.sscSecret = fresh.sscSecret
    }
  }
  toString = () => `Rotate(#${this.pick}, ${this.which})`
}

/** Time passes: an hour, or past the grace period. */
class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true
  async run(m: Model, r: Real) {
    m.now += this.ms
    r.clock.advance(this.ms)
  }
  toString = () => `Advance(${this.ms})`
}

/** Every authentication and LOA answer must be what the model predicts. */
class Authenticate implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly secret: "current" | "graced" | "dead" | "other" | "swapped",
    readonly loa: Loa,
  ) {}
  check = (m: Readonly<Model>) => m.rps.length > 0
  async run(m: Model, r: Real) {
    const rp = m.rps[this.pick % m.rps.length]!
    const pick = (kind: "client" | "ssc") => {
      const current = kind === "client" ? rp.clientSecret : rp.sscSecret
      return this.secret === "current"
        ? current
        : this.secret === "graced"
          ? (rp.graced[kind]?.secret ?? "never-issued")
          : this.secret === "dead"
            ? (rp.dead[0] ?? "never-issued")
            : this.secret === "swapped"
              ? kind === "client"
                ? rp.sscSecret
                : rp.clientSecret
              : "sk_sbx_other"
    }
    const accepted = (kind: "client" | "ssc") => this.secret === "current" || (this.secret === "graced" && (rp.graced[kind]?.until ?? 0) > m.now)
    const basic = await outcome(r.run, authenticateClient(rp.clientId, pick("client")))
    expect(basic).toBe(accepted("client") && rp.status === "approved" ? "ok" : "InvalidClient")
    const ssc = await outcome(r.run, authenticateSsc(rp.clientId, pick("ssc")))
    expect(ssc).toBe(!accepted("ssc") ? "InvalidClientCredentials" : rp.status !== "approved" ? "RpNotApproved" : "ok")
    const planMax = rp.plan === null ? "LOA-2" : PLANS[rp.plan].highestLoa
    const loa = await outcome(r.run, requireLoa(this.loa, rp, planMax))
    const withinMax = this.loa === "LOA-2" || (rp.maxLoa === "LOA-4" && planMax === "LOA-4")
    expect(loa).toBe(!withinMax ? "LoaExceedsMaximum" : this.loa === "LOA-4" && !rp.kycVerified ? "Loa4RequiresKycVerifiedRp" : "ok")
    expect(await outcome(r.run, authenticateSsc(`${rp.clientId}x`, rp.sscSecret))).toBe("UnknownRpClientId")
  }
  toString = () => `Authenticate(#${this.pick}, ${this.secret}, ${this.loa})`
}

const pick = fc.nat(20)
const loa = fc.constantFrom<Loa>("LOA-2", "LOA-4")
const commands = [
  fc.boolean().map((a) => new Register(a)),
  fc.tuple(pick, fc.constantFrom("Approve" as const, "Reject" as const, "Suspend" as const)).map(([p, m]) => new Move(p, m)),
  fc
    .tuple(pick, loa, fc.boolean(), fc.constantFrom<PlanId | null>("starter", "business", "enterprise", null))
    .map(([p, l, k, pl]) => new Configure(p, l, k, pl)),
  fc.tuple(pick, fc.constantFrom("client" as const, "ssc" as const, "both" as const)).map(([p, w]) => new Rotate(p, w)),
  fc
    .tuple(pick, fc.constantFrom("current" as const, "graced" as const, "dead" as const, "other" as const, "swapped" as const), loa)
    .map(([p, s, l]) => new Authenticate(p, s, l)),
  fc.constantFrom(3_600_000, GRACE_MS - 1, GRACE_MS).map((ms) => new Advance(ms)),
]

/** Declares the model-based suite for a storage adapter. */
export const relyingPartyModel = (name: string, makeStorage: () => Layer.Layer<StorageTags, unknown>, runs = 15): void => {
  describe(`relying-party machine against the model (${name})`, () => {
    let runtime: Runtime
    const clock = new ManualClock(1_800_000_000_000)
    beforeAll(async () => {
      runtime = ManagedRuntime.make(
        Layer.mergeAll(
          makeStorage(),
          RandomWebCrypto,
          Layer.setClock(clock),
          Layer.succeed(EngineConfig, {
            environment: "sandbox",
            publicOrigin: "http://localhost:3000",
            basePath: "/api",
            accessTokenTtlSeconds: 3600,
            ceremonyTtlSeconds: 300,
            sessionTtlSeconds: 3600,
          }),
        ),
      )
      await runtime.runtime()
    })
    afterAll(async () => runtime?.dispose())

    it("status moves, secrets, rotation and LOA answers match the model", async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { size: "+1" }), (cmds) =>
          fc.asyncModelRun(() => ({ model: { rps: [], now: clock.now }, real: { run: (e) => runtime.runPromise(e), clock } }), cmds),
        ),
        { numRuns: runs },
      )
    }, 120_000)
  })
}
