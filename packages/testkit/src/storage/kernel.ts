/** Storage conformance of the kernel module: the unit of work: all or nothing across repositories. */
import { describe, expect } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Option } from "effect"
import { Ceremonies, HostedSessions, KeyRecords, Passkeys, RelyingParties, Storage, UniqueViolation, Users } from "@signet/core"
import { sampleCeremony, sampleHostedSession, samplePasskey, sampleRelyingParty, sampleStoredKey, sampleUser } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

/** The kernel module's repositories against the storage contract. */
export const kernelConformance = conformanceSuite<Storage | RelyingParties | Users | Passkeys | Ceremonies | HostedSessions | KeyRecords>()(
  "kernel",
  ({ test }) => {
    describe("Storage.transaction", () => {
      /** Writes one row in every repository and consumes a ceremony stored before. */
      const writeEverything = Effect.gen(function* () {
        const rp = yield* (yield* RelyingParties).insert(sampleRelyingParty())
        yield* (yield* Users).insert(sampleUser())
        yield* (yield* Passkeys).insert(samplePasskey())
        yield* (yield* Passkeys).recordUse("cred-before", 9, 9)
        yield* (yield* Ceremonies).insert(sampleCeremony())
        const consumed = yield* (yield* Ceremonies).consume("cer_before", 42)
        expect(Option.isSome(consumed)).toBe(true)
        yield* (yield* HostedSessions).insert(sampleHostedSession())
        yield* (yield* KeyRecords).insert(sampleStoredKey())
        return rp
      })

      const seedBefore = Effect.gen(function* () {
        yield* (yield* Ceremonies).insert(sampleCeremony({ id: "cer_before" }))
        yield* (yield* Passkeys).insert(samplePasskey({ id: "cred-before", counter: 1 }))
      })

      const expectNothingWritten = Effect.gen(function* () {
        expect(yield* (yield* RelyingParties).list()).toEqual([])
        expect(yield* (yield* Users).findById(sampleUser().id)).toEqual(Option.none())
        expect(yield* (yield* Passkeys).findById(samplePasskey().id)).toEqual(Option.none())
        expect(yield* (yield* Passkeys).findById("cred-before")).toEqual(Option.some(samplePasskey({ id: "cred-before", counter: 1 })))
        expect(yield* (yield* Ceremonies).findById(sampleCeremony().id)).toEqual(Option.none())
        expect(yield* (yield* Ceremonies).findById("cer_before")).toEqual(Option.some(sampleCeremony({ id: "cer_before" })))
        expect(yield* (yield* HostedSessions).findById(sampleHostedSession().id)).toEqual(Option.none())
        expect(yield* (yield* KeyRecords).list()).toEqual([])
      })

      test("commit keeps every write", () =>
        Effect.gen(function* () {
          yield* seedBefore
          const storage = yield* Storage
          const rp = yield* storage.transaction(writeEverything)
          expect(yield* (yield* RelyingParties).list()).toEqual([rp])
          expect(yield* (yield* Users).findByEmail("ALICE@example.com")).toEqual(Option.some(sampleUser()))
          expect(yield* (yield* Passkeys).findById(samplePasskey().id)).toEqual(Option.some(samplePasskey()))
          expect(yield* (yield* Passkeys).findById("cred-before")).toEqual(Option.some(samplePasskey({ id: "cred-before", counter: 9, lastUsedAt: 9 })))
          expect(yield* (yield* Ceremonies).findById(sampleCeremony().id)).toEqual(Option.some(sampleCeremony()))
          expect(yield* (yield* Ceremonies).consume("cer_before", 43)).toEqual(Option.none())
          expect(yield* (yield* HostedSessions).findById(sampleHostedSession().id)).toEqual(Option.some(sampleHostedSession()))
          expect(yield* (yield* KeyRecords).list()).toEqual([sampleStoredKey()])
        }))

      test("a failure rolls every write back and is returned as is", () =>
        Effect.gen(function* () {
          yield* seedBefore
          const storage = yield* Storage
          const exit = yield* Effect.exit(storage.transaction(writeEverything.pipe(Effect.zipRight(Effect.fail("boom" as const)))))
          expect(exit).toEqual(Exit.fail("boom"))
          yield* expectNothingWritten
        }))

      test("a defect rolls every write back", () =>
        Effect.gen(function* () {
          yield* seedBefore
          const storage = yield* Storage
          const exit = yield* Effect.exit(storage.transaction(writeEverything.pipe(Effect.zipRight(Effect.dieMessage("bug")))))
          expect(Exit.isFailure(exit)).toBe(true)
          yield* expectNothingWritten
        }))

      test("a UniqueViolation that fails the transaction rolls back the writes before it", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const users = yield* Users
          yield* users.insert(sampleUser())
          const exit = yield* Effect.exit(
            storage.transaction(
              Effect.gen(function* () {
                yield* (yield* KeyRecords).insert(sampleStoredKey())
                yield* users.insert(sampleUser({ id: "usr_0002" }))
              }),
            ),
          )
          expect(Exit.isFailure(exit)).toBe(true)
          expect(yield* (yield* KeyRecords).list()).toEqual([])
          expect(yield* users.findById("usr_0002")).toEqual(Option.none())
        }))

      test("a UniqueViolation caught inside the transaction leaves it usable, and it commits", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const users = yield* Users
          yield* users.insert(sampleUser())
          const caught = yield* storage.transaction(
            Effect.gen(function* () {
              yield* (yield* KeyRecords).insert(sampleStoredKey())
              const e = yield* Effect.flip(users.insert(sampleUser({ id: "usr_0002" })))
              yield* users.insert(sampleUser({ id: "usr_0003", email: "carol@example.com" }))
              return e
            }),
          )
          expect(caught).toBeInstanceOf(UniqueViolation)
          expect(yield* (yield* KeyRecords).list()).toEqual([sampleStoredKey()])
          expect(yield* users.findById("usr_0003")).toEqual(Option.some(sampleUser({ id: "usr_0003", email: "carol@example.com" })))
          expect(yield* users.findById("usr_0002")).toEqual(Option.none())
        }))

      test("reads inside the transaction see its writes, also from forked fibers", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const users = yield* Users
          const ids = Array.from({ length: 8 }, (_, i) => `usr_${i}`)
          const seen = yield* storage.transaction(
            Effect.gen(function* () {
              yield* Effect.forEach(ids, (id) => users.insert(sampleUser({ id, email: `${id}@example.com` })), { concurrency: "unbounded" })
              const fiber = yield* Effect.fork(Effect.forEach(ids, (id) => users.findById(id), { concurrency: "unbounded" }))
              return yield* Fiber.join(fiber)
            }),
          )
          expect(seen.every(Option.isSome)).toBe(true)
          for (const id of ids) expect(Option.isSome(yield* users.findById(id))).toBe(true)
        }))

      test("nested transactions join the outer one: the outer failure rolls back the inner writes", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const users = yield* Users
          const exit = yield* Effect.exit(
            storage.transaction(
              Effect.gen(function* () {
                yield* users.insert(sampleUser())
                yield* storage.transaction(users.insert(sampleUser({ id: "usr_inner", email: "inner@example.com" })))
                return yield* Effect.fail("outer")
              }),
            ),
          )
          expect(exit).toEqual(Exit.fail("outer"))
          expect(yield* users.findById(sampleUser().id)).toEqual(Option.none())
          expect(yield* users.findById("usr_inner")).toEqual(Option.none())
        }))

      test("nested transactions join the outer one: an inner failure caught outside it keeps the outer going", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const users = yield* Users
          yield* storage.transaction(
            Effect.gen(function* () {
              yield* users.insert(sampleUser())
              const inner = yield* Effect.exit(
                storage.transaction(users.insert(sampleUser({ id: "usr_inner", email: "inner@example.com" })).pipe(Effect.zipRight(Effect.fail("inner")))),
              )
              expect(inner).toEqual(Exit.fail("inner"))
            }),
          )
          expect(yield* users.findById(sampleUser().id)).toEqual(Option.some(sampleUser()))
          // Joined, not a savepoint: the inner write belongs to the outer transaction, which committed.
          expect(yield* users.findById("usr_inner")).toEqual(Option.some(sampleUser({ id: "usr_inner", email: "inner@example.com" })))
        }))

      test("concurrent transactions all commit", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const users = yield* Users
          const ids = Array.from({ length: 6 }, (_, i) => `usr_${i}`)
          yield* Effect.forEach(
            ids,
            (id) =>
              storage.transaction(
                Effect.gen(function* () {
                  yield* users.insert(sampleUser({ id, email: `${id}@example.com` }))
                  yield* users.findById(id)
                }),
              ),
            { concurrency: "unbounded" },
          )
          for (const id of ids) expect(Option.isSome(yield* users.findById(id))).toBe(true)
        }))

      test("a database error caught inside a transaction stops the commit (all or nothing)", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const rps = yield* RelyingParties
          const taken = yield* rps.insert(sampleRelyingParty({ clientId: "c_taken" }))
          const other = yield* rps.insert(sampleRelyingParty({ clientId: "c_other" }))
          const exit = yield* Effect.exit(
            storage.transaction(
              Effect.gen(function* () {
                yield* (yield* Users).insert(sampleUser())
                // Renaming onto a taken client id is a database error (a defect); catching it must not let the rest commit.
                yield* Effect.catchAllDefect(rps.update({ ...other, clientId: taken.clientId }), () => Effect.void)
              }),
            ),
          )
          expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
          expect(yield* (yield* Users).findById(sampleUser().id)).toEqual(Option.none())
          expect(yield* rps.list()).toEqual([taken, other])
        }))

      test("interrupting a transaction rolls it back, and the store stays usable", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const users = yield* Users
          const written = yield* Deferred.make<void>()
          const fiber = yield* Effect.fork(
            storage.transaction(
              Effect.gen(function* () {
                yield* users.insert(sampleUser())
                yield* Deferred.succeed(written, undefined)
                return yield* Effect.never
              }),
            ),
          )
          yield* Deferred.await(written)
          yield* Fiber.interrupt(fiber)
          expect(yield* users.findById(sampleUser().id)).toEqual(Option.none())
          yield* users.insert(sampleUser())
          expect(yield* users.findById(sampleUser().id)).toEqual(Option.some(sampleUser()))
        }))
    })
  },
)
