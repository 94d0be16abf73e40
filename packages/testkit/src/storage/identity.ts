/** Storage conformance of the identity module: users, e-mail verifications, passkeys, ceremonies and hosted sessions. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Ceremonies, EmailVerifications, HostedSessions, Passkeys, Storage, Users } from "@signet/core"
import { FAR_FUTURE_MS, sampleCeremony, sampleHostedSession, samplePasskey, sampleUser } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

/** The identity module's repositories against the storage contract. */
export const identityConformance = conformanceSuite<Storage | Users | EmailVerifications | Passkeys | Ceremonies | HostedSessions>()(
  "identity",
  ({ test, uniqueViolation }) => {
    describe("Users", () => {
      test("insert and find by id round-trip; the e-mail is stored lower-case", () =>
        Effect.gen(function* () {
          const users = yield* Users
          yield* users.insert(sampleUser({ email: "Alice@Example.COM" }))
          expect(yield* users.findById("usr_0001")).toEqual(Option.some(sampleUser({ email: "alice@example.com" })))
          expect(yield* users.findById("usr_none")).toEqual(Option.none())
        }))

      test("find by e-mail ignores case", () =>
        Effect.gen(function* () {
          const users = yield* Users
          yield* users.insert(sampleUser({ email: "Alice@Example.com" }))
          const expected = Option.some(sampleUser({ email: "alice@example.com" }))
          expect(yield* users.findByEmail("alice@example.com")).toEqual(expected)
          expect(yield* users.findByEmail("ALICE@EXAMPLE.COM")).toEqual(expected)
          expect(yield* users.findByEmail("aLiCe@example.Com")).toEqual(expected)
          expect(yield* users.findByEmail("bob@example.com")).toEqual(Option.none())
        }))

      test("a taken e-mail (in any case) or id is a UniqueViolation", () =>
        Effect.gen(function* () {
          const users = yield* Users
          yield* users.insert(sampleUser())
          expect((yield* uniqueViolation(users.insert(sampleUser({ id: "usr_0002", email: "ALICE@example.com" })))).what).toBe("email")
          expect((yield* uniqueViolation(users.insert(sampleUser({ email: "other@example.com" })))).what).toBe("user id")
          expect(yield* users.findById("usr_0002")).toEqual(Option.none())
          expect(yield* users.findByEmail("other@example.com")).toEqual(Option.none())
        }))

      test("when both the id and the e-mail are taken, the e-mail is reported", () =>
        Effect.gen(function* () {
          // Found by the SQLite/PostgreSQL equivalence property (seed 773555040): the databases named different keys.
          const users = yield* Users
          yield* users.insert(sampleUser())
          expect((yield* uniqueViolation(users.insert(sampleUser({ email: "ALICE@EXAMPLE.COM" })))).what).toBe("email")
        }))

      test("an unverified e-mail round-trips as null and is marked verified once proven", () =>
        Effect.gen(function* () {
          const users = yield* Users
          yield* users.insert(sampleUser({ emailVerifiedAt: null }))
          expect(yield* users.findById("usr_0001")).toEqual(Option.some(sampleUser({ emailVerifiedAt: null })))
          yield* users.markEmailVerified("usr_0001", FAR_FUTURE_MS + 5)
          expect(yield* users.findByEmail("alice@example.com")).toEqual(Option.some(sampleUser({ emailVerifiedAt: FAR_FUTURE_MS + 5 })))
        }))
    })

    describe("EmailVerifications", () => {
      const verification = {
        id: "ev_1",
        email: "ada@example.com",
        codeHash: "c".repeat(64),
        attempts: 0,
        createdAt: FAR_FUTURE_MS,
        expiresAt: FAR_FUTURE_MS + 600_000,
        verifiedAt: null,
        consumedAt: null,
      }

      test("round-trip; wrong attempts are counted up to the allowance and no further, even concurrently", () =>
        Effect.gen(function* () {
          const repo = yield* EmailVerifications
          yield* repo.insert(verification)
          expect(yield* repo.findById("ev_1")).toEqual(Option.some(verification))
          const counted = yield* Effect.all(
            Array.from({ length: 8 }, () => repo.recordFailedAttempt("ev_1", 5)),
            { concurrency: "unbounded" },
          )
          expect(
            counted
              .filter(Option.isSome)
              .map((o) => o.value)
              .sort(),
          ).toEqual([1, 2, 3, 4, 5])
          expect(yield* repo.markVerified("ev_1", FAR_FUTURE_MS + 1, 5)).toBe(false)
          expect(yield* repo.recordFailedAttempt("unknown", 5)).toEqual(Option.none())
        }))

      test("only a verified verification is consumed, exactly once; counts and purge by time", () =>
        Effect.gen(function* () {
          const repo = yield* EmailVerifications
          yield* repo.insert(verification)
          yield* repo.insert({ ...verification, id: "ev_2", createdAt: FAR_FUTURE_MS - 7_200_000, expiresAt: FAR_FUTURE_MS - 6_600_000 })
          expect(yield* repo.consume("ev_1", FAR_FUTURE_MS + 1)).toEqual(Option.none())
          expect(yield* repo.markVerified("ev_1", FAR_FUTURE_MS + 1, 5)).toBe(true)
          expect(yield* repo.markVerified("ev_1", FAR_FUTURE_MS + 2, 5)).toBe(false)
          const used = yield* Effect.all(
            Array.from({ length: 4 }, () => repo.consume("ev_1", FAR_FUTURE_MS + 3)),
            { concurrency: "unbounded" },
          )
          expect(used.filter(Option.isSome)).toEqual([Option.some({ ...verification, verifiedAt: FAR_FUTURE_MS + 1, consumedAt: FAR_FUTURE_MS + 3 })])
          expect(yield* repo.countSince("ADA@example.com", FAR_FUTURE_MS - 3_600_000)).toBe(1)
          expect(yield* repo.countSince("ada@example.com", FAR_FUTURE_MS - 8_000_000)).toBe(2)
          expect(yield* repo.purgeExpired(FAR_FUTURE_MS)).toBe(1)
          expect(yield* repo.findById("ev_2")).toEqual(Option.none())
        }))
    })

    describe("Passkeys", () => {
      test("insert and find round-trip every field (large counter, transports, flags, null last use)", () =>
        Effect.gen(function* () {
          const passkeys = yield* Passkeys
          const used = samplePasskey({ id: "cred-used", transports: [], backedUp: false, lastUsedAt: FAR_FUTURE_MS, counter: 0, algorithm: -257 })
          yield* passkeys.insert(samplePasskey())
          yield* passkeys.insert(used)
          expect(yield* passkeys.findById(samplePasskey().id)).toEqual(Option.some(samplePasskey()))
          expect(yield* passkeys.findById("cred-used")).toEqual(Option.some(used))
          expect(yield* passkeys.findById("cred-none")).toEqual(Option.none())
        }))

      test("listByUser returns that user's passkeys, oldest first", () =>
        Effect.gen(function* () {
          const passkeys = yield* Passkeys
          const b = samplePasskey({ id: "cred-b", createdAt: 2000 })
          const a = samplePasskey({ id: "cred-a", createdAt: 1000 })
          const c = samplePasskey({ id: "cred-c", createdAt: 3000 })
          const other = samplePasskey({ id: "cred-other", userId: "usr_other", createdAt: 1500 })
          for (const p of [b, c, other, a]) yield* passkeys.insert(p)
          expect(yield* passkeys.listByUser("usr_0001")).toEqual([a, b, c])
          expect(yield* passkeys.listByUser("usr_other")).toEqual([other])
          expect(yield* passkeys.listByUser("usr_none")).toEqual([])
        }))

      test("recordUse sets the counter and the last use; an unknown id is a no-op", () =>
        Effect.gen(function* () {
          const passkeys = yield* Passkeys
          yield* passkeys.insert(samplePasskey({ counter: 5 }))
          yield* passkeys.recordUse(samplePasskey().id, 4_294_967_295, FAR_FUTURE_MS + 7)
          expect(yield* passkeys.findById(samplePasskey().id)).toEqual(Option.some(samplePasskey({ counter: 4_294_967_295, lastUsedAt: FAR_FUTURE_MS + 7 })))
          yield* passkeys.recordUse("cred-none", 1, 1)
          expect(yield* passkeys.findById("cred-none")).toEqual(Option.none())
        }))

      test("a taken credential id is a UniqueViolation", () =>
        Effect.gen(function* () {
          const passkeys = yield* Passkeys
          yield* passkeys.insert(samplePasskey())
          expect((yield* uniqueViolation(passkeys.insert(samplePasskey({ userId: "usr_other" })))).what).toBe("credential id")
          expect(yield* passkeys.listByUser("usr_other")).toEqual([])
        }))
    })

    describe("Ceremonies", () => {
      test("insert and find round-trip, with every nullable field set and with all null", () =>
        Effect.gen(function* () {
          const ceremonies = yield* Ceremonies
          const full = sampleCeremony()
          const bare = sampleCeremony({
            id: "cer_bare",
            kind: "sign-in",
            userId: null,
            email: null,
            displayName: null,
            clientId: null,
            emailVerificationId: null,
            createdAt: 0,
            expiresAt: 1,
            consumedAt: null,
          })
          const consumed = sampleCeremony({ id: "cer_consumed", consumedAt: FAR_FUTURE_MS + 1 })
          for (const c of [full, bare, consumed]) yield* ceremonies.insert(c)
          expect(yield* ceremonies.findById(full.id)).toEqual(Option.some(full))
          expect(yield* ceremonies.findById(bare.id)).toEqual(Option.some(bare))
          expect(yield* ceremonies.findById(consumed.id)).toEqual(Option.some(consumed))
          expect(yield* ceremonies.findById("cer_none")).toEqual(Option.none())
        }))

      test("consume succeeds once, returns the consumed ceremony, and None after", () =>
        Effect.gen(function* () {
          const ceremonies = yield* Ceremonies
          yield* ceremonies.insert(sampleCeremony())
          const at = FAR_FUTURE_MS + 10
          const expected = sampleCeremony({ consumedAt: at })
          expect(yield* ceremonies.consume("cer_0001", at)).toEqual(Option.some(expected))
          expect(yield* ceremonies.consume("cer_0001", at + 1)).toEqual(Option.none())
          expect(yield* ceremonies.findById("cer_0001")).toEqual(Option.some(expected))
          expect(yield* ceremonies.consume("cer_none", at)).toEqual(Option.none())
        }))

      test("a ceremony stored as consumed cannot be consumed", () =>
        Effect.gen(function* () {
          const ceremonies = yield* Ceremonies
          yield* ceremonies.insert(sampleCeremony({ consumedAt: 5 }))
          expect(yield* ceremonies.consume("cer_0001", 6)).toEqual(Option.none())
          expect(yield* ceremonies.findById("cer_0001")).toEqual(Option.some(sampleCeremony({ consumedAt: 5 })))
        }))

      test("10 concurrent consumes: exactly one gets the ceremony", () =>
        Effect.gen(function* () {
          const ceremonies = yield* Ceremonies
          yield* ceremonies.insert(sampleCeremony())
          const results = yield* Effect.forEach(
            Array.from({ length: 10 }, (_, i) => i),
            (i) => ceremonies.consume("cer_0001", 1000 + i),
            { concurrency: "unbounded" },
          )
          const winners = results.filter(Option.isSome)
          expect(winners).toHaveLength(1)
          const winner = winners[0]!.value
          expect(yield* ceremonies.findById("cer_0001")).toEqual(Option.some(winner))
        }))

      test("10 concurrent consumes, each in its own transaction: exactly one gets the ceremony", () =>
        Effect.gen(function* () {
          const ceremonies = yield* Ceremonies
          const storage = yield* Storage
          yield* ceremonies.insert(sampleCeremony())
          const results = yield* Effect.forEach(
            Array.from({ length: 10 }, (_, i) => i),
            (i) => storage.transaction(ceremonies.consume("cer_0001", 1000 + i)),
            { concurrency: "unbounded" },
          )
          expect(results.filter(Option.isSome)).toHaveLength(1)
        }))

      test("a taken ceremony id is a UniqueViolation", () =>
        Effect.gen(function* () {
          const ceremonies = yield* Ceremonies
          yield* ceremonies.insert(sampleCeremony())
          expect((yield* uniqueViolation(ceremonies.insert(sampleCeremony({ challenge: "other" })))).what).toBe("ceremony id")
          expect(yield* ceremonies.findById("cer_0001")).toEqual(Option.some(sampleCeremony()))
        }))
    })

    describe("HostedSessions", () => {
      test("insert and find round-trip; unknown is None; a taken id is a UniqueViolation", () =>
        Effect.gen(function* () {
          const sessions = yield* HostedSessions
          yield* sessions.insert(sampleHostedSession())
          expect(yield* sessions.findById("hs_0001")).toEqual(Option.some(sampleHostedSession()))
          expect(yield* sessions.findById("hs_none")).toEqual(Option.none())
          expect((yield* uniqueViolation(sessions.insert(sampleHostedSession({ csrfTokenHash: "d" })))).what).toBe("session id")
          expect(yield* sessions.findById("hs_0001")).toEqual(Option.some(sampleHostedSession()))
        }))
    })
  },
)
