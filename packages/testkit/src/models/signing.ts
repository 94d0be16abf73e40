/**
 * Model-based test of signing requests and batches: random sequences of creations,
 * approvals (genuine or broken), replays and clock moves run against the engine on a real
 * storage adapter and against a plain model of states, lifetimes, attempts and quotas.
 */
import { completeBatch, completeSigningRequest, createBatch, createSigningRequest, SigningEvents, type Assertion, type BearerUser } from "@signet/core"
import { Effect, type Layer, type ManagedRuntime } from "effect"
import fc from "fast-check"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { PasskeyFault, SoftwarePasskey } from "../passkey/software-passkey.ts"
import type { StorageTags } from "../storage/conformance.ts"
import { enrolSigner, FAULT_TAGS, modelRelyingParty, modelRuntime, outcome, runAt, type ModelRun, type ModelServices } from "./engine.ts"
import { ManualClock } from "./manual-clock.ts"

const ORIGIN = "http://localhost:4100"
const PER_DAY = 6
const PER_MINUTE = 4
const PER_BATCH = 3
const LIFETIME = 5 * 60_000
const SHA256 = "2.16.840.1.101.3.4.2.1"
const DAY = 86_400_000

interface Operation {
  readonly kind: "request" | "batch"
  readonly id: string
  readonly challenge: string
  readonly expiresAt: number
  readonly badDocuments: number
  readonly documents: number
  status: "pending_auth" | "done" | "failed" | "expired"
  attempts: number
  events: Array<string>
}
interface Model {
  readonly ops: Array<Operation>
  readonly minute: Map<number, number>
  readonly day: Map<number, number>
}
interface Real {
  readonly clock: ManualClock
  readonly passkey: SoftwarePasskey
  readonly user: BearerUser
  readonly run: ModelRun
}

const hash = () => createHash("sha256").update(randomBytes(16)).digest("hex")

/** What the quota rules predict for a creation of `count` signatures, and the counters after it. */
const reserve = (m: Model, now: number, count: number, batch: boolean): string => {
  const minute = Math.floor(now / 60_000)
  const day = Math.floor(now / DAY)
  if ((m.minute.get(minute) ?? 0) + 1 > PER_MINUTE) return "RateLimitExceeded"
  if (batch && count > PER_BATCH) return "BatchSizeExceeded"
  if ((m.day.get(day) ?? 0) + count > PER_DAY) return "DailySigningLimitExceeded"
  m.minute.set(minute, (m.minute.get(minute) ?? 0) + 1)
  m.day.set(day, (m.day.get(day) ?? 0) + count)
  return "ok"
}

class CreateRequest implements fc.AsyncCommand<Model, Real> {
  check = () => true
  async run(m: Model, r: Real) {
    const expected = reserve(m, r.clock.now, 1, false)
    const got = await outcome(r.run, createSigningRequest(r.user, { documentHash: hash(), credentialId: r.passkey.credentialId }))
    expect(got.tag).toBe(expected)
    if (got.ok) {
      m.ops.push({
        kind: "request",
        id: got.value.requestId,
        challenge: got.value.challenge,
        expiresAt: r.clock.now + LIFETIME,
        badDocuments: 0,
        documents: 1,
        status: "pending_auth",
        attempts: 0,
        events: ["signing_request_created"],
      })
    }
  }
  toString = () => "CreateRequest"
}

class CreateBatch implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly size: number,
    readonly bad: number,
  ) {}
  check = () => true
  async run(m: Model, r: Real) {
    const bad = Math.min(this.bad, this.size)
    const documents = Array.from({ length: this.size }, (_, i) => ({ id: `doc-${i}`, hash: i < bad ? "bad" : hash(), hash_algo: SHA256 }))
    const expected = reserve(m, r.clock.now, this.size, true)
    const got = await outcome(r.run, createBatch(r.user, { documents, credentialId: r.passkey.credentialId }))
    expect(got.tag).toBe(expected)
    if (got.ok) {
      expect(got.value.documentCount).toBe(this.size)
      m.ops.push({
        kind: "batch",
        id: got.value.batchId,
        challenge: got.value.challenge,
        expiresAt: r.clock.now + LIFETIME,
        badDocuments: bad,
        documents: this.size,
        status: "pending_auth",
        attempts: 0,
        events: ["signing_request_created"],
      })
    }
  }
  toString = () => `CreateBatch(${this.size}, bad=${this.bad})`
}

class Approve implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly fault: Exclude<PasskeyFault, "counterBackwards"> | undefined,
  ) {}
  check = (m: Readonly<Model>) => m.ops.length > 0
  async run(m: Model, r: Real) {
    const op = m.ops[this.pick % m.ops.length]!
    const assertion = r.passkey.assert({ challenge: op.challenge }, { includeUserHandle: false, ...(this.fault ? { fault: this.fault } : {}) }) as Assertion
    const completion: Effect.Effect<unknown, { readonly _tag: string }, ModelServices> =
      op.kind === "request" ? completeSigningRequest(op.id, assertion) : completeBatch(op.id, assertion)
    const got = await outcome(r.run, completion)
    let expected: string
    if (op.status === "expired") expected = "OperationExpired"
    else if (op.status !== "pending_auth") expected = "SigningRequestNotFound"
    else if (r.clock.now >= op.expiresAt) {
      expected = "OperationExpired"
      op.status = "expired"
      op.events.push("signing_request_failed")
    } else if (this.fault) {
      expected = FAULT_TAGS[this.fault]
      op.attempts += 1
      if (op.attempts >= 5) {
        op.status = "failed"
        op.events.push("signing_request_failed")
      }
    } else {
      expected = "ok"
      const outcome = op.kind === "request" || op.badDocuments === 0 ? "completed" : op.badDocuments === op.documents ? "failed" : "partial"
      op.status = "done"
      op.events.push(outcome === "failed" ? "signing_request_failed" : "signing_request_completed")
      if (got.ok && op.kind === "batch") expect((got.value as { readonly status: string }).status).toBe(outcome)
    }
    expect(got.tag).toBe(expected)
    const recorded = await r.run(Effect.flatMap(SigningEvents, (log) => log.listForSubject(op.id)))
    expect(recorded.map((e) => e.type)).toEqual(op.events)
  }
  toString = () => `Approve(#${this.pick}${this.fault ? `, ${this.fault}` : ""})`
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true
  async run(_m: Model, r: Real) {
    r.clock.advance(this.ms)
  }
  toString = () => `Advance(${this.ms})`
}

const faults = fc.constantFrom<Exclude<PasskeyFault, "counterBackwards"> | undefined>(
  undefined,
  undefined,
  undefined,
  "wrongOrigin",
  "wrongRpId",
  "noUserVerification",
  "badSignature",
  "otherChallenge",
  "unregisteredCredential",
)
const commands = [
  fc.constant(new CreateRequest()),
  fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 2 })).map(([n, b]) => new CreateBatch(n, b)),
  fc.tuple(fc.nat(30), faults).map(([p, f]) => new Approve(p, f)),
  fc.constantFrom(1_000, 61_000, 4 * 60_000, 6 * 60_000, DAY).map((ms) => new Advance(ms)),
]

/** Declares the model-based signing suite for a storage adapter. */
export const signingModel = (name: string, makeStorage: () => Layer.Layer<StorageTags, unknown>, runs = 12): void => {
  describe(`signing requests and batches against the model (${name})`, () => {
    let runtime: ManagedRuntime.ManagedRuntime<ModelServices, unknown>
    beforeAll(async () => {
      runtime = modelRuntime(makeStorage, ORIGIN)
      await runtime.runtime()
    })
    afterAll(async () => runtime?.dispose())

    /** A fresh RP (small allowance) and signer per run, at a fresh point in time. */
    const setup = async (start: number): Promise<Real> => {
      const clock = new ManualClock(start)
      const run = runAt(runtime, clock)
      const rp = await modelRelyingParty(run, ORIGIN, {
        signaturesPerDay: PER_DAY,
        requestsPerMinute: PER_MINUTE,
        documentsPerBatch: PER_BATCH,
        highestLoa: "LOA-2",
      })
      const { passkey, userId } = await enrolSigner(run, ORIGIN)
      return { clock, passkey, run, user: { userId, clientId: rp.rp.clientId, scope: ["basic"] } }
    }

    it("states, lifetimes, refused attempts, replays, quotas and recorded events match the model", async () => {
      let start = Date.UTC(2026, 10, 25, 23, 50) // ten minutes before a day boundary, so daily resets happen
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { size: "+1", maxCommands: 40 }), async (cmds) => {
          start += 7 * DAY
          const real = await setup(start)
          await fc.asyncModelRun(() => ({ model: { ops: [], minute: new Map(), day: new Map() }, real }), cmds)
        }),
        { numRuns: runs },
      )
    }, 240_000)
  })
}
