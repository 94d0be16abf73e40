/** Storage conformance of the signing module: signing requests, batches, the event log and quota counters. */
import { describe, expect } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import { type Batch, Batches, type NewSigningEvent, QuotaCounters, SigningEvents, type SigningRequest, SigningRequests, Storage } from "@signet/core"
import { FAR_FUTURE_MS } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

/** The signing module's repositories against the storage contract. */
export const signingConformance = conformanceSuite<Storage | SigningRequests | Batches | SigningEvents | QuotaCounters>()(
  "signing",
  ({ test, uniqueViolation }) => {
    describe("SigningRequests and Batches", () => {
      const request: SigningRequest = {
        id: "7b0c6a3e-0000-4000-8000-000000000001",
        userId: "u1",
        clientId: "rp_sbx_x",
        credentialId: "cred",
        documentHash: "ab".repeat(32),
        documentName: null,
        signatureFormat: "CAdES-BASELINE-B",
        loa: "LOA-2",
        callbackUrl: "https://rp.example/cb",
        rpOrigin: null,
        status: "pending_auth",
        nonce: "n0nce",
        failedAttempts: 0,
        createdAt: 1_700_000_000_000,
        expiresAt: FAR_FUTURE_MS,
        completedAt: null,
        signature: null,
        certificateSerial: null,
        errorMessage: null,
      }
      test("a request round-trips and updates only from the expected status (compare-and-set)", () =>
        Effect.gen(function* () {
          const requests = yield* SigningRequests
          yield* requests.insert(request)
          expect(yield* requests.findById(request.id)).toEqual(Option.some(request))
          const done = { ...request, status: "completed" as const, completedAt: FAR_FUTURE_MS - 1, signature: "MIIC", certificateSerial: "0a" }
          expect(yield* requests.update(done, "pending_auth")).toBe(true)
          expect(yield* requests.update({ ...done, status: "failed" }, "pending_auth")).toBe(false)
          expect(yield* requests.findById(request.id)).toEqual(Option.some(done))
          // ids are random: a taken one is a defect that fails its unit of work, and changes nothing
          const taken = yield* Effect.exit(Effect.flatMap(Storage, (s) => s.transaction(requests.insert(request))))
          expect(Exit.isFailure(taken) && Cause.isDie(taken.cause)).toBe(true)
          expect(yield* requests.findById(request.id)).toEqual(Option.some(done))
        }))
      test("a batch keeps its documents in order and its results; a taken batch id is a UniqueViolation", () =>
        Effect.gen(function* () {
          const batches = yield* Batches
          const batch: Batch = {
            id: "b1",
            userId: "u1",
            clientId: "rp_sbx_x",
            credentialId: "cred",
            documents: [
              { id: "z", hash: "00", hash_algo: "2.16.840.1.101.3.4.2.1" },
              { id: "a", hash: "ff", hash_algo: "1.2" },
            ],
            callbackUrl: null,
            status: "pending_auth",
            nonce: "n",
            failedAttempts: 2,
            createdAt: 1,
            expiresAt: FAR_FUTURE_MS,
            completedAt: null,
            results: null,
            errorMessage: null,
          }
          yield* batches.insert(batch)
          expect(yield* batches.findById("b1")).toEqual(Option.some(batch))
          const done: Batch = {
            ...batch,
            status: "partial",
            completedAt: 9,
            results: [
              { documentId: "z", status: "signed", signature: "MII" },
              { documentId: "a", status: "failed", error: "Invalid document hash" },
            ],
          }
          expect(yield* batches.update(done, "pending_auth")).toBe(true)
          expect(yield* batches.findById("b1")).toEqual(Option.some(done))
          expect(yield* batches.update(done, "pending_auth")).toBe(false)
          yield* uniqueViolation(batches.insert(batch))
          expect(yield* batches.findById("b1")).toEqual(Option.some(done))
        }))
    })

    describe("SigningEvents", () => {
      const created = (subjectId: string, userId: string): NewSigningEvent => ({
        type: "signing_request_created",
        subjectId,
        subjectKind: "request",
        userId,
        clientId: "c",
        status: "pending_auth",
        documentHash: "ab",
        createdAt: 1,
        signedAt: null,
        errorMessage: null,
        recordedAt: 2,
      })

      test("append assigns increasing positions; reads are per user after a position, and per subject", () =>
        Effect.gen(function* () {
          const log = yield* SigningEvents
          const base = created("r1", "u1")
          const a = yield* log.append(base)
          const b = yield* log.append({ ...base, userId: "u2", subjectId: "r2" })
          const c = yield* log.append({ ...base, type: "signing_request_completed", status: "signed", signedAt: FAR_FUTURE_MS })
          expect(a.seq).toBeLessThan(b.seq)
          expect(b.seq).toBeLessThan(c.seq)
          expect(yield* log.listForUser("u1", 0, 10)).toEqual([a, c])
          expect(yield* log.listForUser("u1", a.seq, 10)).toEqual([c])
          expect(yield* log.listForUser("u1", 0, 1)).toEqual([a])
          expect(yield* log.listForSubject("r1")).toEqual([a, c])
        }))

      test("record appends in order with append, in a unit of work and its reads; a rolled-back unit records nothing", () =>
        Effect.gen(function* () {
          const log = yield* SigningEvents
          const storage = yield* Storage
          const base = created("r9", "u9")
          const seen = yield* storage.transaction(
            Effect.gen(function* () {
              yield* log.record(base)
              const appended = yield* log.append({ ...base, type: "signing_request_completed", status: "signed" })
              yield* log.record({ ...base, type: "signing_request_failed", status: "failed" })
              return { appended, listed: yield* log.listForSubject("r9") }
            }),
          )
          expect(seen.listed.map((e) => e.type)).toEqual(["signing_request_created", "signing_request_completed", "signing_request_failed"])
          expect(seen.listed[1]).toEqual(seen.appended)
          expect(yield* log.listForSubject("r9")).toEqual(seen.listed)
          const failed = yield* Effect.exit(storage.transaction(Effect.zipRight(log.record({ ...base, subjectId: "r10" }), Effect.fail("undo"))))
          expect(failed._tag).toBe("Failure")
          expect(yield* log.listForSubject("r10")).toEqual([])
        }))
    })

    describe("QuotaCounters", () => {
      test("consume adds within the limit and refuses beyond it without changing the count", () =>
        Effect.gen(function* () {
          const q = yield* QuotaCounters
          expect(yield* q.peek("k")).toBe(0)
          expect(yield* q.consume("k", 3, 5, FAR_FUTURE_MS)).toEqual(Option.some(3))
          expect(yield* q.consume("k", 3, 5, FAR_FUTURE_MS)).toEqual(Option.none())
          expect(yield* q.consume("k", 2, 5, FAR_FUTURE_MS)).toEqual(Option.some(5))
          expect(yield* q.consume("k", 1, 5, FAR_FUTURE_MS)).toEqual(Option.none())
          expect(yield* q.consume("new", 6, 5, FAR_FUTURE_MS)).toEqual(Option.none())
          expect(yield* q.peek("k")).toBe(5)
          expect(yield* q.peek("new")).toBe(0)
        }))
      test("consumeEach judges each counter against its own limit in one step, answers in order, and moves only the granted ones", () =>
        Effect.gen(function* () {
          const q = yield* QuotaCounters
          const both = (a: number, b: number) =>
            q.consumeEach([
              { key: "minute", amount: a, limit: 2, expiresAt: FAR_FUTURE_MS },
              { key: "day", amount: b, limit: 10, expiresAt: FAR_FUTURE_MS },
            ])
          expect(yield* both(1, 4)).toEqual([Option.some(1), Option.some(4)])
          expect(yield* both(1, 7)).toEqual([Option.some(2), Option.none()])
          expect(yield* both(1, 6)).toEqual([Option.none(), Option.some(10)])
          expect(yield* both(3, 1)).toEqual([Option.none(), Option.none()])
          expect([yield* q.peek("minute"), yield* q.peek("day")]).toEqual([2, 10])
          // the same key twice, or three counters: judged one after another
          expect(
            yield* q.consumeEach([
              { key: "x", amount: 2, limit: 3, expiresAt: FAR_FUTURE_MS },
              { key: "x", amount: 2, limit: 3, expiresAt: FAR_FUTURE_MS },
              { key: "y", amount: 9, limit: 3, expiresAt: FAR_FUTURE_MS },
            ]),
          ).toEqual([Option.some(2), Option.none(), Option.none()])
          expect([yield* q.peek("x"), yield* q.peek("y")]).toEqual([2, 0])
        }))
      test("60 concurrent two-counter consumptions against limits of 25 and 40 grant each counter exactly up to its limit", () =>
        Effect.gen(function* () {
          const q = yield* QuotaCounters
          const storage = yield* Storage
          const take = q.consumeEach([
            { key: "race-a", amount: 1, limit: 25, expiresAt: FAR_FUTURE_MS },
            { key: "race-b", amount: 1, limit: 40, expiresAt: FAR_FUTURE_MS },
          ])
          const grants = yield* Effect.all(
            Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? take : storage.transaction(take))),
            { concurrency: "unbounded" },
          )
          expect(grants.filter(([a]) => a !== undefined && Option.isSome(a)).length).toBe(25)
          expect(grants.filter(([, b]) => b !== undefined && Option.isSome(b)).length).toBe(40)
          expect([yield* q.peek("race-a"), yield* q.peek("race-b")]).toEqual([25, 40])
        }))
      test("60 concurrent consumers of a limit of 25 get exactly 25 grants, in transactions too", () =>
        Effect.gen(function* () {
          const q = yield* QuotaCounters
          const storage = yield* Storage
          const grants = yield* Effect.all(
            Array.from({ length: 60 }, (_, i) =>
              i % 2 === 0 ? q.consume("race", 1, 25, FAR_FUTURE_MS) : storage.transaction(q.consume("race", 1, 25, FAR_FUTURE_MS)),
            ),
            { concurrency: "unbounded" },
          )
          expect(grants.filter(Option.isSome).length).toBe(25)
          expect(yield* q.peek("race")).toBe(25)
        }))
      test("a consumption inside a rolled-back transaction is given back", () =>
        Effect.gen(function* () {
          const q = yield* QuotaCounters
          const storage = yield* Storage
          yield* Effect.exit(storage.transaction(q.consume("rb", 2, 5, FAR_FUTURE_MS).pipe(Effect.zipRight(Effect.fail("no")))))
          expect(yield* q.peek("rb")).toBe(0)
        }))
      test("list answers exactly the counters under a prefix, `_` and `%` taken literally", () =>
        Effect.gen(function* () {
          const q = yield* QuotaCounters
          for (const key of ["rpm:sign:rp_a:u1:7", "rpm:sign:rp_a:u2:7", "rpm:sign:rp_ab:u1:7", "rpm:sign:rpxa:u1:7", "rpm:sign:rp_a;x"]) {
            yield* q.consume(key, 2, 10, 1234)
          }
          expect(yield* q.list("rpm:sign:rp_a:")).toEqual([
            { key: "rpm:sign:rp_a:u1:7", count: 2, expiresAt: 1234 },
            { key: "rpm:sign:rp_a:u2:7", count: 2, expiresAt: 1234 },
          ])
          expect(yield* q.list("rpm:sign:rp%")).toEqual([])
        }))
    })
  },
)
