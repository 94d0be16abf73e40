/**
 * Signing requests and batches at core level, over the in-memory storage with the TestClock:
 * creation, passkey approval (a real CMS over the hash), expiry, refused assertions, replays,
 * dynamic linking and quotas, as a signer and an RP would see them.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { createHash } from "node:crypto"
import { atTestStart, bearer, coreTestLayer, enrolTestSigner, testRelyingParty } from "@signet/testkit/core"
import {
  completeBatch,
  completeSigningRequest,
  createBatch,
  createSigningRequest,
  PENDING_LIFETIME_MS,
  SigningEvents,
  validateSignature,
  type Assertion,
} from "../index.ts"

const SHA256 = "2.16.840.1.101.3.4.2.1"
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex")

/** An approved RP with a small allowance and an enrolled signer, at the test start. */
const world = (allowance = { signaturesPerDay: 10, requestsPerMinute: 5, documentsPerBatch: 3, highestLoa: "LOA-2" as const }) =>
  Effect.gen(function* () {
    yield* atTestStart()
    const { rp } = yield* testRelyingParty({ allowance })
    const signer = yield* enrolTestSigner("signer@example.com")
    return { ...signer, user: bearer(signer.userId, rp.clientId) }
  })

const approve = (passkey: { assert: (o: { challenge: string }, opts?: object) => unknown }, challenge: string, opts: object = {}) =>
  passkey.assert({ challenge }, { includeUserHandle: false, ...opts }) as Assertion

const eventsOf = (subjectId: string) =>
  Effect.flatMap(SigningEvents, (log) => log.listForSubject(subjectId)).pipe(Effect.map((events) => events.map((e) => e.type)))

describe("single signing requests", () => {
  it.effect("a request approved with the signer's passkey returns a valid CMS over the hash, signed for the signer", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      const documentHash = hashOf("contract.pdf")
      const created = yield* createSigningRequest(user, { documentHash, credentialId: passkey.credentialId })
      expect(created.status).toBe("pending_auth")
      yield* TestClock.adjust("30 seconds")
      const done = yield* completeSigningRequest(created.requestId, approve(passkey, created.challenge))
      expect(done.status).toBe("completed")
      expect(done.timestamp).toBe("2026-11-25T12:00:30.000+00:00")
      const report = yield* validateSignature(done.signature, documentHash)
      expect(report.valid).toBe(true)
      expect(report.coversDocumentHash).toBe(true)
      expect(report.signer?.subject).toContain("signer@example.com")
      // A signature over another document does not validate against it.
      expect((yield* validateSignature(done.signature, hashOf("other.pdf"))).coversDocumentHash).toBe(false)
      expect(yield* eventsOf(created.requestId)).toEqual(["signing_request_created", "signing_request_completed"])
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("an approval replayed after completion is refused as already processed", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      const created = yield* createSigningRequest(user, { documentHash: hashOf("a"), credentialId: passkey.credentialId })
      yield* completeSigningRequest(created.requestId, approve(passkey, created.challenge))
      const replay = yield* Effect.flip(completeSigningRequest(created.requestId, approve(passkey, created.challenge)))
      expect(replay._tag).toBe("SigningRequestNotFound")
      expect(replay.message).toBe("Signing request not found or already processed")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a request expires after its lifetime: approval then answers 410 and the failure is recorded once", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      const created = yield* createSigningRequest(user, { documentHash: hashOf("late"), credentialId: passkey.credentialId })
      yield* TestClock.adjust(PENDING_LIFETIME_MS)
      const late = yield* Effect.flip(completeSigningRequest(created.requestId, approve(passkey, created.challenge)))
      expect(late._tag).toBe("OperationExpired")
      expect(late.message).toBe("Operation expired or not found")
      const again = yield* Effect.flip(completeSigningRequest(created.requestId, approve(passkey, created.challenge)))
      expect(again._tag).toBe("OperationExpired")
      expect(yield* eventsOf(created.requestId)).toEqual(["signing_request_created", "signing_request_failed"])
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("an approval one millisecond before the deadline still signs", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      const created = yield* createSigningRequest(user, { documentHash: hashOf("just in time"), credentialId: passkey.credentialId })
      yield* TestClock.adjust(PENDING_LIFETIME_MS - 1)
      const done = yield* completeSigningRequest(created.requestId, approve(passkey, created.challenge))
      expect(done.status).toBe("completed")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("an approval of one document cannot complete another (dynamic linking)", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      const first = yield* createSigningRequest(user, { documentHash: hashOf("first"), credentialId: passkey.credentialId })
      const second = yield* createSigningRequest(user, { documentHash: hashOf("second"), credentialId: passkey.credentialId })
      const crossed = yield* Effect.flip(completeSigningRequest(second.requestId, approve(passkey, first.challenge)))
      expect(crossed._tag).toBe("ChallengeMismatch")
      expect(crossed.message).toBe("Challenge mismatch — dynamic linking failed")
      // the refused attempt did not use the request up
      expect((yield* completeSigningRequest(second.requestId, approve(passkey, second.challenge))).status).toBe("completed")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("the fifth refused assertion fails the request; a genuine approval after that is refused", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      const created = yield* createSigningRequest(user, { documentHash: hashOf("attacked"), credentialId: passkey.credentialId })
      const faults = ["badSignature", "wrongOrigin", "noUserVerification", "otherChallenge", "badSignature"] as const
      const tags: Array<string> = []
      for (const fault of faults) {
        tags.push((yield* Effect.flip(completeSigningRequest(created.requestId, approve(passkey, created.challenge, { fault }))))._tag)
      }
      expect(tags).toEqual(["PasskeySignatureInvalid", "OriginMismatch", "UserVerificationRequired", "ChallengeMismatch", "PasskeySignatureInvalid"])
      expect((yield* Effect.flip(completeSigningRequest(created.requestId, approve(passkey, created.challenge))))._tag).toBe("SigningRequestNotFound")
      expect(yield* eventsOf(created.requestId)).toEqual(["signing_request_created", "signing_request_failed"])
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a signer can only name their own passkey", () =>
    Effect.gen(function* () {
      const { user } = yield* world()
      const other = yield* enrolTestSigner("other@example.com")
      const refused = yield* Effect.flip(createSigningRequest(user, { documentHash: hashOf("x"), credentialId: other.passkey.credentialId }))
      expect(refused._tag).toBe("NoSigningCredential")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("the per-minute request limit refuses the sixth request and opens again in the next minute", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      for (let i = 0; i < 5; i++) yield* createSigningRequest(user, { documentHash: hashOf(`doc ${i}`), credentialId: passkey.credentialId })
      const refused = yield* Effect.flip(createSigningRequest(user, { documentHash: hashOf("doc 5"), credentialId: passkey.credentialId }))
      expect(refused._tag).toBe("RateLimitExceeded")
      yield* TestClock.adjust("1 minute")
      const next = yield* createSigningRequest(user, { documentHash: hashOf("doc 5"), credentialId: passkey.credentialId })
      expect(next.status).toBe("pending_auth")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("the daily allowance counts signatures and resets at midnight UTC", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world({ signaturesPerDay: 2, requestsPerMinute: 60, documentsPerBatch: 3, highestLoa: "LOA-2" })
      yield* createSigningRequest(user, { documentHash: hashOf("1"), credentialId: passkey.credentialId })
      yield* createSigningRequest(user, { documentHash: hashOf("2"), credentialId: passkey.credentialId })
      const refused = yield* Effect.flip(createSigningRequest(user, { documentHash: hashOf("3"), credentialId: passkey.credentialId }))
      expect(refused._tag).toBe("DailySigningLimitExceeded")
      yield* TestClock.adjust("12 hours") // 2026-11-26T00:00Z
      expect((yield* createSigningRequest(user, { documentHash: hashOf("3"), credentialId: passkey.credentialId })).status).toBe("pending_auth")
    }).pipe(Effect.provide(coreTestLayer())),
  )
})

describe("batches", () => {
  const documents = (...names: ReadonlyArray<string>) =>
    names.map((name, i) => ({ id: `doc-${i}`, hash: name === "bad" ? "bad" : hashOf(name), hash_algo: SHA256 }))

  it.effect("one approval signs every document; a malformed document fails alone and the batch is partial", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      const docs = documents("one", "bad", "three")
      const created = yield* createBatch(user, { documents: docs, credentialId: passkey.credentialId })
      expect(created.documentCount).toBe(3)
      const done = yield* completeBatch(created.batchId, approve(passkey, created.challenge))
      expect(done.status).toBe("partial")
      expect(done.results.map((r) => [r.documentId, r.status])).toEqual([
        ["doc-0", "signed"],
        ["doc-1", "failed"],
        ["doc-2", "signed"],
      ])
      for (const [i, result] of done.results.entries()) {
        if (result.status !== "signed") continue
        const report = yield* validateSignature(result.signature!, docs[i]!.hash)
        expect(report.valid && report.coversDocumentHash).toBe(true)
      }
      expect(yield* eventsOf(created.batchId)).toEqual(["signing_request_created", "signing_request_completed"])
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a batch of only malformed documents fails", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      const created = yield* createBatch(user, { documents: documents("bad", "bad"), credentialId: passkey.credentialId })
      const done = yield* completeBatch(created.batchId, approve(passkey, created.challenge))
      expect(done.status).toBe("failed")
      expect(yield* eventsOf(created.batchId)).toEqual(["signing_request_created", "signing_request_failed"])
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a batch larger than the allowance is refused before anything is stored", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      const refused = yield* Effect.flip(createBatch(user, { documents: documents("a", "b", "c", "d"), credentialId: passkey.credentialId }))
      expect(refused._tag).toBe("BatchSizeExceeded")
      expect(refused.message).toBe("Batch size 4 exceeds maximum 3")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a batch expires like a request, and the approval of a single request cannot complete it", () =>
    Effect.gen(function* () {
      const { passkey, user } = yield* world()
      const batch = yield* createBatch(user, { documents: documents("a", "b"), credentialId: passkey.credentialId })
      const single = yield* createSigningRequest(user, { documentHash: hashOf("a"), credentialId: passkey.credentialId })
      expect((yield* Effect.flip(completeBatch(batch.batchId, approve(passkey, single.challenge))))._tag).toBe("ChallengeMismatch")
      yield* TestClock.adjust("5 minutes")
      expect((yield* Effect.flip(completeBatch(batch.batchId, approve(passkey, batch.challenge))))._tag).toBe("OperationExpired")
    }).pipe(Effect.provide(coreTestLayer())),
  )
})
