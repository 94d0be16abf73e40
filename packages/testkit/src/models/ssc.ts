/**
 * Model-based test of the signing-token flow: token issue, challenge, finalize with genuine
 * or broken assertions, replays and clock moves, against the engine on a real storage
 * adapter and a plain model of token lifetimes, operation states, attempts and the
 * finalize rate limit.
 */
import { finalizeOperation, issueSigningToken, openOperation, type Assertion } from "@signet/core"
import type { Layer, ManagedRuntime } from "effect"
import fc from "fast-check"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { PasskeyFault, SoftwarePasskey } from "../passkey/software-passkey.ts"
import type { StorageTags } from "../storage/conformance.ts"
import { enrolSigner, FAULT_TAGS, modelRelyingParty, modelRuntime, outcome, runAt, type ModelRun, type ModelServices } from "./engine.ts"
import { ManualClock } from "./manual-clock.ts"

const ORIGIN = "http://localhost:4200"
const LIFETIME = 5 * 60_000

interface Token {
  readonly token: string
  readonly hash: string
  readonly bound: boolean
  readonly expiresAt: number
}
interface Op {
  readonly id: string
  readonly challenge: string
  readonly hash: string
  readonly expiresAt: number
  status: "pending" | "finalized" | "failed" | "expired"
  attempts: number
}
interface Model {
  readonly tokens: Array<Token>
  readonly ops: Array<Op>
  readonly finalizeCalls: Map<string, number>
}
interface Real {
  readonly clock: ManualClock
  readonly passkey: SoftwarePasskey
  readonly clientId: string
  readonly sscSecret: string
  readonly email: string
  readonly run: ModelRun
}

class IssueToken implements fc.AsyncCommand<Model, Real> {
  constructor(readonly bound: boolean) {}
  check = () => true
  async run(m: Model, r: Real) {
    const hash = createHash("sha256").update(randomBytes(16)).digest("hex")
    const got = await outcome(
      r.run,
      issueSigningToken({ clientId: r.clientId, clientSecret: r.sscSecret, documentHash: hash, loa: "LOA-2", ...(this.bound ? { signerEmail: r.email } : {}) }),
    )
    expect(got.tag).toBe("ok")
    if (got.ok) m.tokens.push({ token: got.value.token, hash, bound: this.bound, expiresAt: got.value.expiresAt * 1000 })
  }
  toString = () => `IssueToken(${this.bound ? "registered" : "anonymous"})`
}

class Challenge implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly mode: "registered" | "anonymous",
  ) {}
  check = (m: Readonly<Model>) => m.tokens.length > 0
  async run(m: Model, r: Real) {
    const t = m.tokens[this.pick % m.tokens.length]!
    const got = await outcome(
      r.run,
      openOperation({ documentHash: t.hash, documentName: "doc", rpOrigin: ORIGIN, mode: this.mode, token: t.token }, "10.0.0.1"),
    )
    const expected = r.clock.now >= t.expiresAt ? "InvalidOrExpiredToken" : (this.mode === "registered") !== t.bound ? "InvalidRequest" : "ok"
    expect(got.tag).toBe(expected)
    if (got.ok)
      m.ops.push({ id: got.value.operationId, challenge: got.value.challenge, hash: t.hash, expiresAt: r.clock.now + LIFETIME, status: "pending", attempts: 0 })
  }
  toString = () => `Challenge(#${this.pick}, ${this.mode})`
}

class Finalize implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly fault: Exclude<PasskeyFault, "counterBackwards"> | undefined,
  ) {}
  check = (m: Readonly<Model>) => m.ops.length > 0
  async run(m: Model, r: Real) {
    const op = m.ops[this.pick % m.ops.length]!
    const window = `${op.id}:${Math.floor(r.clock.now / 60_000)}`
    const calls = (m.finalizeCalls.get(window) ?? 0) + 1
    m.finalizeCalls.set(window, calls)
    const assertion = r.passkey.assert({ challenge: op.challenge }, this.fault ? { fault: this.fault } : {}) as Assertion
    const got = await outcome(r.run, finalizeOperation({ operationId: op.id, documentHash: op.hash, assertion }, "10.0.0.1"))
    let expected: string
    if (calls > 5) expected = "RateLimitExceeded"
    else if (op.status !== "pending") expected = "OperationExpired"
    else if (r.clock.now >= op.expiresAt) {
      expected = "OperationExpired"
      op.status = "expired"
    } else if (this.fault) {
      expected = FAULT_TAGS[this.fault]
      op.attempts += 1
      if (op.attempts >= 5) op.status = "failed"
    } else {
      expected = "ok"
      op.status = "finalized"
    }
    expect(got.tag).toBe(expected)
    if (got.ok) expect(got.value.documentHash).toBe(op.hash)
  }
  toString = () => `Finalize(#${this.pick}${this.fault ? `, ${this.fault}` : ""})`
}

/** Several attempts in a row on one operation (a retrying or hostile client): reaches the per-minute limit. */
class Burst implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly times: number,
  ) {}
  check = (m: Readonly<Model>) => m.ops.length > 0
  async run(m: Model, r: Real) {
    for (let i = 0; i < this.times; i++) await new Finalize(this.pick, "otherChallenge").run(m, r)
  }
  toString = () => `Burst(#${this.pick}, ${this.times})`
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true
  async run(_m: Model, r: Real) {
    r.clock.advance(this.ms)
  }
  toString = () => `Advance(${this.ms})`
}

const commands = [
  fc.boolean().map((b) => new IssueToken(b)),
  fc.tuple(fc.nat(20), fc.constantFrom("registered" as const, "anonymous" as const)).map(([p, mode]) => new Challenge(p, mode)),
  fc
    .tuple(
      fc.nat(20),
      fc.constantFrom<Exclude<PasskeyFault, "counterBackwards"> | undefined>(
        undefined,
        undefined,
        "wrongOrigin",
        "wrongRpId",
        "noUserVerification",
        "badSignature",
        "otherChallenge",
        "unregisteredCredential",
      ),
    )
    .map(([p, f]) => new Finalize(p, f)),
  fc.tuple(fc.nat(20), fc.integer({ min: 2, max: 7 })).map(([p, n]) => new Burst(p, n)),
  fc.constantFrom(1_000, 59_000, 4 * 60_000, 6 * 60_000).map((ms) => new Advance(ms)),
]

/** Declares the model-based signing-token suite for a storage adapter. */
export const signingTokenModel = (name: string, makeStorage: () => Layer.Layer<StorageTags, unknown>, runs = 10): void => {
  describe(`signing-token operations against the model (${name})`, () => {
    let runtime: ManagedRuntime.ManagedRuntime<ModelServices, unknown>
    beforeAll(async () => {
      runtime = modelRuntime(makeStorage, ORIGIN)
      await runtime.runtime()
    })
    afterAll(async () => runtime?.dispose())

    const setup = async (start: number): Promise<Real> => {
      const clock = new ManualClock(start)
      const run = runAt(runtime, clock)
      const rp = await modelRelyingParty(run, ORIGIN, { signaturesPerDay: 100_000, requestsPerMinute: 100_000, documentsPerBatch: 10, highestLoa: "LOA-2" })
      const { passkey, email } = await enrolSigner(run, ORIGIN)
      return { clock, passkey, clientId: rp.rp.clientId, sscSecret: rp.sscSecret, email, run }
    }

    it("token lifetimes, modes, attempts, replays, expiry and the finalize limit match the model", async () => {
      let start = Date.UTC(2026, 10, 25, 12, 0)
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { size: "+1", maxCommands: 40 }), async (cmds) => {
          start += 2 * 86_400_000
          const real = await setup(start)
          await fc.asyncModelRun(() => ({ model: { tokens: [], ops: [], finalizeCalls: new Map() }, real }), cmds)
        }),
        { numRuns: runs },
      )
    }, 240_000)
  })
}
