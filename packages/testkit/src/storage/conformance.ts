/**
 * The storage contract as a test suite: any adapter of the storage ports (SQLite,
 * PostgreSQL, in-memory, yours) runs `storageConformance(name, makeLayer)` and must pass it.
 * Each test gets a fresh layer from `makeLayer`, so tests never see each other's rows.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import {
  Batches, Ceremonies, Certificates, HostedSessions, KeyRecords, Passkeys, QuotaCounters, RelyingParties, SigningEvents,
  SigningRequests, SscOperations, Storage, UniqueViolation, Users, WebhookSubscriptions, Deliveries, RpOrganisationChecks, Checkouts, Subscriptions,
  type Batch, type SigningRequest, type StoredCertificate,
  ExternalLogins, IdentityLinks, IdentityProviders, LinkOffers,
  EncryptedFiles, SignatureImages, type EncryptedFile, EmailVerifications,
} from "@signet/core"
import {
  bareRelyingParty, FAR_FUTURE_MS, sampleCeremony, sampleHostedSession, samplePasskey, sampleRelyingParty,
  sampleStoredKey, sampleUser,
} from "./fixtures.ts"
import {
  AuthorizationCodes, Consents, RefreshTokens, SessionSignIns, SigningKeys, TokenRevocations, type AuthorizationCode, type RefreshToken,
} from "@signet/core"

const sampleCode = (overrides: Partial<AuthorizationCode> = {}): AuthorizationCode => ({
  codeHash: "c".repeat(64), clientId: "rp_sbx_1", userId: "usr_1", redirectUri: "https://app.example.com/cb?a=ü",
  scope: ["openid", "basic"], nonce: "n-0", codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  authTime: 1_700_000_000, amr: ["hwk", "user"], familyId: "fam_1", createdAt: FAR_FUTURE_MS, expiresAt: FAR_FUTURE_MS + 60_000,
  consumedAt: null, ...overrides,
})

const sampleRefresh = (overrides: Partial<RefreshToken> = {}): RefreshToken => ({
  tokenHash: "r".repeat(64), familyId: "fam_1", clientId: "rp_sbx_1", userId: "usr_1", scope: ["openid", "email"],
  authTime: 1_700_000_000, amr: ["swk", "user"], accessJti: "jti-1", accessExpiresAt: FAR_FUTURE_MS + 3_600_000,
  createdAt: FAR_FUTURE_MS, expiresAt: FAR_FUTURE_MS + 1, usedAt: null, revokedAt: null, ...overrides,
})

/** Every tag a storage adapter provides. */
export type StorageTags = Storage | RelyingParties | Users | Passkeys | Ceremonies | HostedSessions | KeyRecords
  | Certificates | SigningRequests | Batches | SigningEvents | QuotaCounters | SscOperations | WebhookSubscriptions | Deliveries
  | import("@signet/core").KycVerifications | import("@signet/core").KycCaptures | import("@signet/core").KycImages | import("@signet/core").KycAudit
  | RpOrganisationChecks
  | import("@signet/core").Checkouts | import("@signet/core").Subscriptions
  | IdentityProviders | ExternalLogins | IdentityLinks | LinkOffers
  | EncryptedFiles | SignatureImages
  | AuthorizationCodes | RefreshTokens | Consents | TokenRevocations | SigningKeys | SessionSignIns
  | import("@signet/core").PreparedPdfs
  | import("@signet/core").EmailVerifications

/** Declares the storage contract suite `storage: <name>` against the layers `makeLayer` builds (one per test). */
export const storageConformance = (name: string, makeLayer: () => Layer.Layer<StorageTags, unknown>): void => {
  const test = <A, E>(title: string, body: () => Effect.Effect<A, E, StorageTags>) =>
    it.effect(title, () => Effect.provide(body(), makeLayer()))

  const uniqueViolation = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.flip(effect).pipe(Effect.map((e) => {
      expect(e).toBeInstanceOf(UniqueViolation)
      return e as unknown as UniqueViolation
    }))

  describe(`storage: ${name}`, () => {
    describe("RelyingParties", () => {
      test("insert assigns an id and every field round-trips by id and by client id", () => Effect.gen(function* () {
        const rps = yield* RelyingParties
        const input = sampleRelyingParty()
        const rp = yield* rps.insert(input)
        expect(rp).toEqual({ ...input, id: rp.id })
        expect(Number.isInteger(rp.id)).toBe(true)
        expect(yield* rps.findById(rp.id)).toEqual(Option.some(rp))
        expect(yield* rps.findByClientId(input.clientId)).toEqual(Option.some(rp))
      }))

      test("null fields, an empty origin list and false flags round-trip", () => Effect.gen(function* () {
        const rps = yield* RelyingParties
        const input = bareRelyingParty()
        const rp = yield* rps.insert(input)
        expect(rp).toEqual({ ...input, id: rp.id })
        expect(yield* rps.findById(rp.id)).toEqual(Option.some(rp))
      }))

      test("a taken client id is a UniqueViolation and changes nothing", () => Effect.gen(function* () {
        const rps = yield* RelyingParties
        const first = yield* rps.insert(sampleRelyingParty())
        const e = yield* uniqueViolation(rps.insert(sampleRelyingParty({ name: "other" })))
        expect(e.what).toBe("client id")
        expect(yield* rps.list()).toEqual([first])
      }))

      test("update replaces every field but the id; an unknown id is a no-op", () => Effect.gen(function* () {
        const rps = yield* RelyingParties
        const rp = yield* rps.insert(sampleRelyingParty())
        const changed = {
          ...bareRelyingParty({ clientId: "sbx_client_renamed", createdAt: rp.createdAt, updatedAt: FAR_FUTURE_MS + 99 }),
          id: rp.id,
        }
        yield* rps.update(changed)
        expect(yield* rps.findById(rp.id)).toEqual(Option.some(changed))
        expect(yield* rps.findByClientId(rp.clientId)).toEqual(Option.none())
        yield* rps.update({ ...changed, id: rp.id + 1000, name: "ghost" })
        yield* rps.update({ ...changed, id: FAR_FUTURE_MS, name: "ghost" })
        expect(yield* rps.list()).toEqual([changed])
      }))

      test("list is oldest first; unknown ids and client ids are None", () => Effect.gen(function* () {
        const rps = yield* RelyingParties
        const late = yield* rps.insert(sampleRelyingParty({ clientId: "c_late", createdAt: 3000 }))
        const early = yield* rps.insert(sampleRelyingParty({ clientId: "c_early", createdAt: 1000 }))
        const middle = yield* rps.insert(sampleRelyingParty({ clientId: "c_middle", createdAt: 2000 }))
        expect(new Set([late.id, early.id, middle.id]).size).toBe(3)
        expect(yield* rps.list()).toEqual([early, middle, late])
        expect(yield* rps.findById(late.id + early.id + middle.id + 1)).toEqual(Option.none())
        expect(yield* rps.findById(FAR_FUTURE_MS)).toEqual(Option.none())
        expect(yield* rps.findById(-1)).toEqual(Option.none())
        expect(yield* rps.findByClientId("nope")).toEqual(Option.none())
      }))

      test("list is empty on a new store", () => Effect.gen(function* () {
        expect(yield* (yield* RelyingParties).list()).toEqual([])
      }))
    })

    describe("RpOrganisationChecks", () => {
      test("entries append, round-trip every field and list per RP oldest first", () => Effect.gen(function* () {
        const checks = yield* RpOrganisationChecks
        const submitted = yield* checks.insert({
          clientId: "rp_a", status: "submitted", legalName: "Ärzte «Nord» 署名 Ltd", registrationNumber: "PVT-2026/42", country: "KE",
          documents: [{ kind: "certificate_of_incorporation", reference: "CI/42" }, { kind: "tax_registration", reference: "P051234567X" }],
          submittedBy: "usr_contact", checkedBy: null, note: null, createdAt: FAR_FUTURE_MS,
        })
        yield* checks.insert({ ...submitted, clientId: "rp_b", createdAt: 1 })
        const verified = yield* checks.insert({
          clientId: "rp_a", status: "verified", legalName: "Ärzte «Nord» 署名 Ltd", registrationNumber: "PVT-2026/42", country: "KE",
          documents: [], submittedBy: null, checkedBy: "R. Admin", note: "registry extract seen", createdAt: FAR_FUTURE_MS + 5,
        })
        expect(verified.id).toBeGreaterThan(submitted.id)
        expect(yield* checks.listByClientId("rp_a")).toEqual([submitted, verified])
        expect(yield* checks.listByClientId("rp_none")).toEqual([])
      }))
    })

    describe("Users", () => {
      test("insert and find by id round-trip; the e-mail is stored lower-case", () => Effect.gen(function* () {
        const users = yield* Users
        yield* users.insert(sampleUser({ email: "Alice@Example.COM" }))
        expect(yield* users.findById("usr_0001")).toEqual(Option.some(sampleUser({ email: "alice@example.com" })))
        expect(yield* users.findById("usr_none")).toEqual(Option.none())
      }))

      test("find by e-mail ignores case", () => Effect.gen(function* () {
        const users = yield* Users
        yield* users.insert(sampleUser({ email: "Alice@Example.com" }))
        const expected = Option.some(sampleUser({ email: "alice@example.com" }))
        expect(yield* users.findByEmail("alice@example.com")).toEqual(expected)
        expect(yield* users.findByEmail("ALICE@EXAMPLE.COM")).toEqual(expected)
        expect(yield* users.findByEmail("aLiCe@example.Com")).toEqual(expected)
        expect(yield* users.findByEmail("bob@example.com")).toEqual(Option.none())
      }))

      test("a taken e-mail (in any case) or id is a UniqueViolation", () => Effect.gen(function* () {
        const users = yield* Users
        yield* users.insert(sampleUser())
        expect((yield* uniqueViolation(users.insert(sampleUser({ id: "usr_0002", email: "ALICE@example.com" })))).what)
          .toBe("email")
        expect((yield* uniqueViolation(users.insert(sampleUser({ email: "other@example.com" })))).what).toBe("user id")
        expect(yield* users.findById("usr_0002")).toEqual(Option.none())
        expect(yield* users.findByEmail("other@example.com")).toEqual(Option.none())
      }))

      test("when both the id and the e-mail are taken, the e-mail is reported", () => Effect.gen(function* () {
        // Found by the SQLite/PostgreSQL equivalence property (seed 773555040): the databases named different keys.
        const users = yield* Users
        yield* users.insert(sampleUser())
        expect((yield* uniqueViolation(users.insert(sampleUser({ email: "ALICE@EXAMPLE.COM" })))).what).toBe("email")
      }))

      test("an unverified e-mail round-trips as null and is marked verified once proven", () => Effect.gen(function* () {
        const users = yield* Users
        yield* users.insert(sampleUser({ emailVerifiedAt: null }))
        expect(yield* users.findById("usr_0001")).toEqual(Option.some(sampleUser({ emailVerifiedAt: null })))
        yield* users.markEmailVerified("usr_0001", FAR_FUTURE_MS + 5)
        expect(yield* users.findByEmail("alice@example.com")).toEqual(Option.some(sampleUser({ emailVerifiedAt: FAR_FUTURE_MS + 5 })))
      }))
    })

    describe("EmailVerifications", () => {
      const verification = {
        id: "ev_1", email: "ada@example.com", codeHash: "c".repeat(64), attempts: 0,
        createdAt: FAR_FUTURE_MS, expiresAt: FAR_FUTURE_MS + 600_000, verifiedAt: null, consumedAt: null,
      }

      test("round-trip; wrong attempts are counted up to the allowance and no further, even concurrently", () => Effect.gen(function* () {
        const repo = yield* EmailVerifications
        yield* repo.insert(verification)
        expect(yield* repo.findById("ev_1")).toEqual(Option.some(verification))
        const counted = yield* Effect.all(Array.from({ length: 8 }, () => repo.recordFailedAttempt("ev_1", 5)), { concurrency: "unbounded" })
        expect(counted.filter(Option.isSome).map((o) => o.value).sort()).toEqual([1, 2, 3, 4, 5])
        expect(yield* repo.markVerified("ev_1", FAR_FUTURE_MS + 1, 5)).toBe(false)
        expect(yield* repo.recordFailedAttempt("unknown", 5)).toEqual(Option.none())
      }))

      test("only a verified verification is consumed, exactly once; counts and purge by time", () => Effect.gen(function* () {
        const repo = yield* EmailVerifications
        yield* repo.insert(verification)
        yield* repo.insert({ ...verification, id: "ev_2", createdAt: FAR_FUTURE_MS - 7_200_000, expiresAt: FAR_FUTURE_MS - 6_600_000 })
        expect(yield* repo.consume("ev_1", FAR_FUTURE_MS + 1)).toEqual(Option.none())
        expect(yield* repo.markVerified("ev_1", FAR_FUTURE_MS + 1, 5)).toBe(true)
        expect(yield* repo.markVerified("ev_1", FAR_FUTURE_MS + 2, 5)).toBe(false)
        const used = yield* Effect.all(Array.from({ length: 4 }, () => repo.consume("ev_1", FAR_FUTURE_MS + 3)), { concurrency: "unbounded" })
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

      test("listByUser returns that user's passkeys, oldest first", () => Effect.gen(function* () {
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

      test("recordUse sets the counter and the last use; an unknown id is a no-op", () => Effect.gen(function* () {
        const passkeys = yield* Passkeys
        yield* passkeys.insert(samplePasskey({ counter: 5 }))
        yield* passkeys.recordUse(samplePasskey().id, 4_294_967_295, FAR_FUTURE_MS + 7)
        expect(yield* passkeys.findById(samplePasskey().id))
          .toEqual(Option.some(samplePasskey({ counter: 4_294_967_295, lastUsedAt: FAR_FUTURE_MS + 7 })))
        yield* passkeys.recordUse("cred-none", 1, 1)
        expect(yield* passkeys.findById("cred-none")).toEqual(Option.none())
      }))

      test("a taken credential id is a UniqueViolation", () => Effect.gen(function* () {
        const passkeys = yield* Passkeys
        yield* passkeys.insert(samplePasskey())
        expect((yield* uniqueViolation(passkeys.insert(samplePasskey({ userId: "usr_other" })))).what).toBe("credential id")
        expect(yield* passkeys.listByUser("usr_other")).toEqual([])
      }))
    })

    describe("Ceremonies", () => {
      test("insert and find round-trip, with every nullable field set and with all null", () => Effect.gen(function* () {
        const ceremonies = yield* Ceremonies
        const full = sampleCeremony()
        const bare = sampleCeremony({
          id: "cer_bare", kind: "sign-in", userId: null, email: null, displayName: null, clientId: null, emailVerificationId: null,
          createdAt: 0, expiresAt: 1, consumedAt: null,
        })
        const consumed = sampleCeremony({ id: "cer_consumed", consumedAt: FAR_FUTURE_MS + 1 })
        for (const c of [full, bare, consumed]) yield* ceremonies.insert(c)
        expect(yield* ceremonies.findById(full.id)).toEqual(Option.some(full))
        expect(yield* ceremonies.findById(bare.id)).toEqual(Option.some(bare))
        expect(yield* ceremonies.findById(consumed.id)).toEqual(Option.some(consumed))
        expect(yield* ceremonies.findById("cer_none")).toEqual(Option.none())
      }))

      test("consume succeeds once, returns the consumed ceremony, and None after", () => Effect.gen(function* () {
        const ceremonies = yield* Ceremonies
        yield* ceremonies.insert(sampleCeremony())
        const at = FAR_FUTURE_MS + 10
        const expected = sampleCeremony({ consumedAt: at })
        expect(yield* ceremonies.consume("cer_0001", at)).toEqual(Option.some(expected))
        expect(yield* ceremonies.consume("cer_0001", at + 1)).toEqual(Option.none())
        expect(yield* ceremonies.findById("cer_0001")).toEqual(Option.some(expected))
        expect(yield* ceremonies.consume("cer_none", at)).toEqual(Option.none())
      }))

      test("a ceremony stored as consumed cannot be consumed", () => Effect.gen(function* () {
        const ceremonies = yield* Ceremonies
        yield* ceremonies.insert(sampleCeremony({ consumedAt: 5 }))
        expect(yield* ceremonies.consume("cer_0001", 6)).toEqual(Option.none())
        expect(yield* ceremonies.findById("cer_0001")).toEqual(Option.some(sampleCeremony({ consumedAt: 5 })))
      }))

      test("10 concurrent consumes: exactly one gets the ceremony", () => Effect.gen(function* () {
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

      test("a taken ceremony id is a UniqueViolation", () => Effect.gen(function* () {
        const ceremonies = yield* Ceremonies
        yield* ceremonies.insert(sampleCeremony())
        expect((yield* uniqueViolation(ceremonies.insert(sampleCeremony({ challenge: "other" })))).what).toBe("ceremony id")
        expect(yield* ceremonies.findById("cer_0001")).toEqual(Option.some(sampleCeremony()))
      }))
    })

    describe("HostedSessions", () => {
      test("insert and find round-trip; unknown is None; a taken id is a UniqueViolation", () => Effect.gen(function* () {
        const sessions = yield* HostedSessions
        yield* sessions.insert(sampleHostedSession())
        expect(yield* sessions.findById("hs_0001")).toEqual(Option.some(sampleHostedSession()))
        expect(yield* sessions.findById("hs_none")).toEqual(Option.none())
        expect((yield* uniqueViolation(sessions.insert(sampleHostedSession({ csrfTokenHash: "d" })))).what).toBe("session id")
        expect(yield* sessions.findById("hs_0001")).toEqual(Option.some(sampleHostedSession()))
      }))
    })

    describe("Identity providers", () => {
      const provider = {
        id: "idp_0001", ownerClientId: null, name: "Example ID", issuer: "https://id.example", clientId: "signet", clientSecretSealed: "c2VhbGVk",
        scopes: ["openid", "email"], authorizationEndpoint: "https://id.example/auth", tokenEndpoint: "https://id.example/token",
        jwksUri: "https://id.example/jwks", userinfoEndpoint: null, createdAt: FAR_FUTURE_MS,
      }
      const login = {
        id: "a".repeat(64), providerId: "idp_0001", nonce: "n", codeVerifier: "v".repeat(43), browserBindingHash: "b".repeat(64),
        returnTo: "/api/", linkUserId: null, clientId: null, createdAt: FAR_FUTURE_MS, expiresAt: FAR_FUTURE_MS + 300_000, consumedAt: null,
      }
      const link = { id: "link_1", userId: "u_0001", providerId: "idp_0001", issuer: "https://id.example", subject: "248289761001", email: "ada@example.com", createdAt: FAR_FUTURE_MS }
      const offer = {
        id: "offer_1", userId: "u_0001", providerId: "idp_0001", issuer: "https://id.example", subject: "s2", email: null, browserBindingHash: "b".repeat(64),
        returnTo: "/api/x?y=1", clientId: "rp_sbx_1", createdAt: FAR_FUTURE_MS, expiresAt: FAR_FUTURE_MS + 300_000, consumedAt: null,
      }

      test("providers round-trip, list oldest first, and remove answers whether one was there", () => Effect.gen(function* () {
        const providers = yield* IdentityProviders
        const rpOwned = { ...provider, id: "idp_0002", ownerClientId: "rp_sbx_1", userinfoEndpoint: "https://id.example/me", createdAt: FAR_FUTURE_MS + 1 }
        yield* providers.insert(rpOwned)
        yield* providers.insert(provider)
        expect(yield* providers.findById("idp_0002")).toEqual(Option.some(rpOwned))
        expect(yield* providers.list()).toEqual([provider, rpOwned])
        expect((yield* uniqueViolation(providers.insert(provider))).what).toBe("identity provider id")
        expect(yield* providers.remove("idp_0001")).toBe(true)
        expect(yield* providers.remove("idp_0001")).toBe(false)
        expect(yield* providers.list()).toEqual([rpOwned])
      }))

      test("an external login is consumed exactly once, even by concurrent callbacks", () => Effect.gen(function* () {
        const logins = yield* ExternalLogins
        yield* logins.insert(login)
        const outcomes = yield* Effect.all(Array.from({ length: 5 }, () => logins.consume(login.id, FAR_FUTURE_MS + 1)), { concurrency: "unbounded" })
        expect(outcomes.filter(Option.isSome)).toEqual([Option.some({ ...login, consumedAt: FAR_FUTURE_MS + 1 })])
        expect(yield* logins.consume("unknown", FAR_FUTURE_MS)).toEqual(Option.none())
        yield* logins.insert({ ...login, id: "b".repeat(64), expiresAt: 10 })
        expect(yield* logins.purgeExpired(FAR_FUTURE_MS)).toBe(1)
        expect(yield* logins.consume("b".repeat(64), FAR_FUTURE_MS)).toEqual(Option.none())
      }))

      test("an external identity links to one account only; links list per user and are removed only by their user", () => Effect.gen(function* () {
        const links = yield* IdentityLinks
        yield* links.insert(link)
        expect(yield* links.findByIdentity(link.issuer, link.subject)).toEqual(Option.some(link))
        expect(yield* links.findByIdentity("https://other.example", link.subject)).toEqual(Option.none())
        expect((yield* uniqueViolation(links.insert({ ...link, id: "link_2", userId: "u_0002" }))).what).toBe("external identity")
        const second = { ...link, id: "link_3", subject: "other-sub", email: null, createdAt: FAR_FUTURE_MS + 1 }
        yield* links.insert(second)
        expect(yield* links.listByUser("u_0001")).toEqual([link, second])
        expect(yield* links.remove("link_1", "u_0002")).toBe(false)
        expect(yield* links.remove("link_1", "u_0001")).toBe(true)
        expect(yield* links.listByUser("u_0001")).toEqual([second])
      }))

      test("a link offer round-trips and is consumed once", () => Effect.gen(function* () {
        const offers = yield* LinkOffers
        yield* offers.insert(offer)
        expect(yield* offers.findById("offer_1")).toEqual(Option.some(offer))
        expect(yield* offers.consume("offer_1", FAR_FUTURE_MS + 2)).toEqual(Option.some({ ...offer, consumedAt: FAR_FUTURE_MS + 2 }))
        expect(yield* offers.consume("offer_1", FAR_FUTURE_MS + 3)).toEqual(Option.none())
        expect(yield* offers.findById("offer_1")).toEqual(Option.some({ ...offer, consumedAt: FAR_FUTURE_MS + 2 }))
        expect(yield* offers.purgeExpired(FAR_FUTURE_MS + 300_000)).toBe(0)
        expect(yield* offers.purgeExpired(FAR_FUTURE_MS + 300_001)).toBe(1)
        expect(yield* offers.findById("offer_1")).toEqual(Option.none())
      }))
    })

    describe("KeyRecords", () => {
      test("insert, find and list (oldest first) round-trip; a taken key id is a UniqueViolation", () =>
        Effect.gen(function* () {
          const keys = yield* KeyRecords
          const late = sampleStoredKey({ keyId: "key_late", createdAt: FAR_FUTURE_MS })
          const early = sampleStoredKey({ keyId: "key_early", algorithm: "RS256", createdAt: 1 })
          expect(yield* keys.list()).toEqual([])
          yield* keys.insert(late)
          yield* keys.insert(early)
          expect(yield* keys.findById("key_late")).toEqual(Option.some(late))
          expect(yield* keys.findById("key_none")).toEqual(Option.none())
          expect(yield* keys.list()).toEqual([early, late])
          expect((yield* uniqueViolation(keys.insert(sampleStoredKey({ keyId: "key_late", createdAt: 5 })))).what)
            .toBe("key id")
          expect(yield* keys.list()).toEqual([early, late])
        }))
    })

    describe("Certificates", () => {
      const cert = (over: Partial<StoredCertificate> = {}): StoredCertificate => ({
        serial: "0a1b", kind: "signer", environment: "sandbox", userId: "u1", keyId: "sandbox/signer/u1/1",
        subject: "CN=Ada, OU=SANDBOX", issuerSerial: "99", der: "MIIB", notBefore: 1_700_000_000_000, notAfter: FAR_FUTURE_MS,
        status: "valid", revokedAt: null, revocationReason: null, createdAt: 1_700_000_000_000, ...over,
      })
      test("round-trips, finds the oldest valid CA of a kind and environment, lists a user's newest first", () => Effect.gen(function* () {
        const certs = yield* Certificates
        yield* certs.insert(cert())
        yield* certs.insert(cert({ serial: "0a1c", createdAt: 1_800_000_000_000 }))
        yield* certs.insert(cert({ serial: "01", kind: "root", userId: null, issuerSerial: null, createdAt: 5 }))
        yield* certs.insert(cert({ serial: "02", kind: "root", userId: null, issuerSerial: null, createdAt: 6 }))
        yield* certs.insert(cert({ serial: "03", kind: "root", userId: null, issuerSerial: null, environment: "production", createdAt: 1 }))
        expect(yield* certs.findBySerial("0a1b")).toEqual(Option.some(cert()))
        expect(Option.map(yield* certs.findCurrentCa("root", "sandbox"), (c) => c.serial)).toEqual(Option.some("01"))
        expect(yield* certs.findCurrentCa("issuing", "sandbox")).toEqual(Option.none())
        expect((yield* certs.listByUser("u1")).map((c) => c.serial)).toEqual(["0a1c", "0a1b"])
        yield* uniqueViolation(certs.insert(cert()))
      }))
      test("revoke marks a valid certificate once and records when and why", () => Effect.gen(function* () {
        const certs = yield* Certificates
        yield* certs.insert(cert())
        yield* certs.revoke("0a1b", 1_900_000_000_000, "keyCompromise")
        yield* certs.revoke("0a1b", 2_000_000_000_000, "superseded")
        expect(yield* certs.findBySerial("0a1b")).toEqual(Option.some(cert({ status: "revoked", revokedAt: 1_900_000_000_000, revocationReason: "keyCompromise" })))
      }))
    })

    describe("EncryptedFiles", () => {
      const file = (over: Partial<EncryptedFile> = {}): EncryptedFile => ({
        id: "f1", ownerUserId: "u1", name: "contract.pdf", size: 5_000_000, recipients: ["u1", "u3", "u2"], envelope: "MIAGCSqG",
        createdAt: 1_700_000_000_000, ...over,
      })
      test("round-trip with recipients in order; a user lists what they own or receive, newest first; remove deletes both", () => Effect.gen(function* () {
        const files = yield* EncryptedFiles
        const storage = yield* Storage
        yield* storage.transaction(files.insert(file()))
        yield* storage.transaction(files.insert(file({ id: "f2", ownerUserId: "u2", recipients: ["u2"], createdAt: 1_800_000_000_000 })))
        yield* storage.transaction(files.insert(file({ id: "f3", ownerUserId: "u3", recipients: ["u3", "u1"], createdAt: 1_900_000_000_000 })))
        expect(yield* files.findById("f1")).toEqual(Option.some(file()))
        expect(yield* files.findById("nope")).toEqual(Option.none())
        expect((yield* files.listForUser("u1", 10)).map((f) => f.id)).toEqual(["f3", "f1"])
        expect((yield* files.listForUser("u2", 10)).map((f) => f.id)).toEqual(["f2", "f1"])
        expect((yield* files.listForUser("u1", 1)).map((f) => f.id)).toEqual(["f3"])
        expect(yield* files.listForUser("u9", 10)).toEqual([])
        yield* uniqueViolation(storage.transaction(files.insert(file())))
        yield* storage.transaction(files.remove("f1"))
        expect(yield* files.findById("f1")).toEqual(Option.none())
        expect((yield* files.listForUser("u2", 10)).map((f) => f.id)).toEqual(["f2"])
      }))
    })

    describe("SignatureImages", () => {
      test("save replaces, find round-trips, remove answers whether there was one", () => Effect.gen(function* () {
        const images = yield* SignatureImages
        const image = { userId: "u1", sealed: "c2VhbGVk", width: 300, height: 100, size: 1234, updatedAt: 1_700_000_000_000 }
        expect(yield* images.findByUser("u1")).toEqual(Option.none())
        yield* images.save(image)
        yield* images.save({ ...image, sealed: "bmV3", width: 400, updatedAt: FAR_FUTURE_MS })
        expect(yield* images.findByUser("u1")).toEqual(Option.some({ ...image, sealed: "bmV3", width: 400, updatedAt: FAR_FUTURE_MS }))
        expect(yield* images.remove("u1")).toBe(true)
        expect(yield* images.remove("u1")).toBe(false)
        expect(yield* images.findByUser("u1")).toEqual(Option.none())
      }))
    })

    describe("PreparedPdfs", () => {
      test("sealed bytes (every byte value, several MiB) and offsets round-trip; purge removes the old ones only", () => Effect.gen(function* () {
        const { PreparedPdfs } = yield* Effect.promise(() => import("@signet/core"))
        const pdfs = yield* PreparedPdfs
        const sealed = new Uint8Array(3 * 1024 * 1024 + 7).map((_, i) => (i * 31 + (i >> 8)) & 0xff)
        const pdf = { requestId: "r1", clientId: "c1", userId: "u1", sealed, contentsOffset: 5_000_000_123, contentsBytes: 32768, fieldName: "Signature2", level: "PAdES-BASELINE-LT" as const, createdAt: 1_700_000_000_000 }
        yield* pdfs.insert(pdf)
        yield* pdfs.insert({ ...pdf, requestId: "r2", sealed: new Uint8Array([0, 255]), createdAt: 1_800_000_000_000 })
        const found = yield* pdfs.findByRequestId("r1")
        expect(Option.map(found, (p) => ({ ...p, sealed: null }))).toEqual(Option.some({ ...pdf, sealed: null }))
        const back = Option.getOrThrow(found).sealed
        expect(back.length === sealed.length && back.every((b, i) => b === sealed[i])).toBe(true)
        expect(yield* pdfs.findByRequestId("nope")).toEqual(Option.none())
        yield* uniqueViolation(pdfs.insert(pdf))
        expect(yield* pdfs.purgeBefore(1_750_000_000_000)).toBe(1)
        expect(yield* pdfs.findByRequestId("r1")).toEqual(Option.none())
        expect(Option.map(yield* pdfs.findByRequestId("r2"), (p) => [...p.sealed])).toEqual(Option.some([0, 255]))
      }))
    })

    describe("SigningRequests and Batches", () => {
      const request: SigningRequest = {
        id: "7b0c6a3e-0000-4000-8000-000000000001", userId: "u1", clientId: "rp_sbx_x", credentialId: "cred", documentHash: "ab".repeat(32),
        documentName: null, signatureFormat: "CAdES-BASELINE-B", loa: "LOA-2", callbackUrl: "https://rp.example/cb", rpOrigin: null,
        status: "pending_auth", nonce: "n0nce", failedAttempts: 0, createdAt: 1_700_000_000_000, expiresAt: FAR_FUTURE_MS,
        completedAt: null, signature: null, certificateSerial: null, errorMessage: null,
      }
      test("a request round-trips and updates only from the expected status (compare-and-set)", () => Effect.gen(function* () {
        const requests = yield* SigningRequests
        yield* requests.insert(request)
        expect(yield* requests.findById(request.id)).toEqual(Option.some(request))
        const done = { ...request, status: "completed" as const, completedAt: FAR_FUTURE_MS - 1, signature: "MIIC", certificateSerial: "0a" }
        expect(yield* requests.update(done, "pending_auth")).toBe(true)
        expect(yield* requests.update({ ...done, status: "failed" }, "pending_auth")).toBe(false)
        expect(yield* requests.findById(request.id)).toEqual(Option.some(done))
        yield* uniqueViolation(requests.insert(request))
      }))
      test("a batch keeps its documents in order and its results", () => Effect.gen(function* () {
        const batches = yield* Batches
        const batch: Batch = {
          id: "b1", userId: "u1", clientId: "rp_sbx_x", credentialId: "cred",
          documents: [{ id: "z", hash: "00", hash_algo: "2.16.840.1.101.3.4.2.1" }, { id: "a", hash: "ff", hash_algo: "1.2" }],
          callbackUrl: null, status: "pending_auth", nonce: "n", failedAttempts: 2, createdAt: 1, expiresAt: FAR_FUTURE_MS,
          completedAt: null, results: null, errorMessage: null,
        }
        yield* batches.insert(batch)
        expect(yield* batches.findById("b1")).toEqual(Option.some(batch))
        const done: Batch = { ...batch, status: "partial", completedAt: 9, results: [{ documentId: "z", status: "signed", signature: "MII" }, { documentId: "a", status: "failed", error: "Invalid document hash" }] }
        expect(yield* batches.update(done, "pending_auth")).toBe(true)
        expect(yield* batches.findById("b1")).toEqual(Option.some(done))
        expect(yield* batches.update(done, "pending_auth")).toBe(false)
      }))
    })

    describe("SigningEvents", () => {
      test("append assigns increasing positions; reads are per user after a position, and per subject", () => Effect.gen(function* () {
        const log = yield* SigningEvents
        const base = {
          type: "signing_request_created" as const, subjectId: "r1", subjectKind: "request" as const, userId: "u1", clientId: "c",
          status: "pending_auth", documentHash: "ab", createdAt: 1, signedAt: null, errorMessage: null, recordedAt: 2,
        }
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
    })

    describe("QuotaCounters", () => {
      test("consume adds within the limit and refuses beyond it without changing the count", () => Effect.gen(function* () {
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
      test("60 concurrent consumers of a limit of 25 get exactly 25 grants, in transactions too", () => Effect.gen(function* () {
        const q = yield* QuotaCounters
        const storage = yield* Storage
        const grants = yield* Effect.all(Array.from({ length: 60 }, (_, i) =>
          (i % 2 === 0 ? q.consume("race", 1, 25, FAR_FUTURE_MS) : storage.transaction(q.consume("race", 1, 25, FAR_FUTURE_MS)))),
        { concurrency: "unbounded" })
        expect(grants.filter(Option.isSome).length).toBe(25)
        expect(yield* q.peek("race")).toBe(25)
      }))
      test("a consumption inside a rolled-back transaction is given back", () => Effect.gen(function* () {
        const q = yield* QuotaCounters
        const storage = yield* Storage
        yield* Effect.exit(storage.transaction(q.consume("rb", 2, 5, FAR_FUTURE_MS).pipe(Effect.zipRight(Effect.fail("no")))))
        expect(yield* q.peek("rb")).toBe(0)
      }))
      test("list answers exactly the counters under a prefix, `_` and `%` taken literally", () => Effect.gen(function* () {
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

    describe("Checkouts and Subscriptions", () => {
      const checkout = {
        id: "chk_1", clientId: "rp_sbx_1", userId: "u1", plan: "starter", period: "monthly", method: "mobile_money",
        priceUsdMinor: 6900, currency: "KES", amountMinor: 891825,
        rateQuote: { base: "USD", quote: "KES", rate: "129.25", quotedAt: 1_700_000_000_000, source: "test" },
        status: "created", providerReference: null, failureReason: null, createdAt: 1, expiresAt: 2, updatedAt: 1, paidAt: null,
      } as const
      test("a checkout round-trips with its rate quote; update is a compare-and-set on the status", () => Effect.gen(function* () {
        const repo = yield* Checkouts
        yield* repo.insert(checkout)
        expect(yield* repo.findById("chk_1")).toEqual(Option.some(checkout))
        const paid = { ...checkout, status: "paid" as const, providerReference: "ref", paidAt: 5 }
        expect(yield* repo.update(paid, "created")).toBe(true)
        expect(yield* repo.update({ ...checkout, status: "failed" as const }, "created")).toBe(false)
        expect(yield* repo.findById("chk_1")).toEqual(Option.some(paid))
        expect(yield* Effect.flip(repo.insert(checkout))).toBeInstanceOf(UniqueViolation)
      }))
      test("one subscription per checkout; listed latest start first", () => Effect.gen(function* () {
        const repo = yield* Subscriptions
        const first = { id: "sub_1", clientId: "rp_sbx_1", plan: "starter", period: "monthly", checkoutId: "chk_1", startsAt: 10, endsAt: 20, createdAt: 10 } as const
        const second = { ...first, id: "sub_2", checkoutId: "chk_2", startsAt: 30, endsAt: 40 }
        yield* repo.insert(first)
        yield* repo.insert(second)
        expect(yield* Effect.flip(repo.insert({ ...first, id: "sub_3" }))).toEqual(new UniqueViolation({ what: "checkout_id" }))
        expect(yield* repo.listForRp("rp_sbx_1")).toEqual([second, first])
        expect(yield* repo.listForRp("rp_sbx_2")).toEqual([])
      }))
    })

    describe("OpenID provider repositories", () => {
      test("an authorization code round-trips and is consumed exactly once", () => Effect.gen(function* () {
        const codes = yield* AuthorizationCodes
        yield* codes.insert(sampleCode())
        expect(yield* codes.findByHash("c".repeat(64))).toEqual(Option.some(sampleCode()))
        expect(yield* codes.consume("c".repeat(64), 5)).toEqual(Option.some(sampleCode({ consumedAt: 5 })))
        expect(yield* codes.consume("c".repeat(64), 6)).toEqual(Option.none())
        expect(yield* codes.consume("unknown", 6)).toEqual(Option.none())
        expect((yield* uniqueViolation(codes.insert(sampleCode()))).what).toBe("code")
      }))

      test("a refresh token is consumed once; revoking its family revokes every member and stops consumption", () => Effect.gen(function* () {
        const tokens = yield* RefreshTokens
        yield* tokens.insert(sampleRefresh())
        yield* tokens.insert(sampleRefresh({ tokenHash: "s".repeat(64), accessJti: "jti-2", createdAt: FAR_FUTURE_MS + 1 }))
        yield* tokens.insert(sampleRefresh({ tokenHash: "t".repeat(64), familyId: "fam_other" }))
        expect(yield* tokens.findByHash("r".repeat(64))).toEqual(Option.some(sampleRefresh()))
        expect(yield* tokens.consume("r".repeat(64), 7)).toEqual(Option.some(sampleRefresh({ usedAt: 7 })))
        expect(yield* tokens.consume("r".repeat(64), 8)).toEqual(Option.none())
        const members = yield* tokens.revokeFamily("fam_1", 9)
        expect(members.map((m) => [m.accessJti, m.revokedAt])).toEqual([["jti-1", 9], ["jti-2", 9]])
        expect(yield* tokens.consume("s".repeat(64), 10)).toEqual(Option.none())
        expect((yield* tokens.findByHash("t".repeat(64))).pipe(Option.map((t) => t.revokedAt))).toEqual(Option.some(null))
      }))

      test("consents are one per user and client and saving replaces", () => Effect.gen(function* () {
        const consents = yield* Consents
        yield* consents.save({ userId: "u", clientId: "c", scope: ["openid"], grantedAt: 1 })
        yield* consents.save({ userId: "u", clientId: "c", scope: ["openid", "email"], grantedAt: FAR_FUTURE_MS })
        expect(yield* consents.find("u", "c")).toEqual(Option.some({ userId: "u", clientId: "c", scope: ["openid", "email"], grantedAt: FAR_FUTURE_MS }))
        expect(yield* consents.find("u", "other")).toEqual(Option.none())
      }))

      test("revocations are idempotent and purged after the token's expiry", () => Effect.gen(function* () {
        const revocations = yield* TokenRevocations
        yield* revocations.revoke("jti-a", 100)
        yield* revocations.revoke("jti-a", 100)
        yield* revocations.revoke("jti-b", FAR_FUTURE_MS)
        expect(yield* revocations.isRevoked("jti-a")).toBe(true)
        expect(yield* revocations.isRevoked("jti-c")).toBe(false)
        expect(yield* revocations.purgeExpired(101)).toBe(1)
        expect(yield* revocations.isRevoked("jti-a")).toBe(false)
        expect(yield* revocations.isRevoked("jti-b")).toBe(true)
      }))

      test("signing-key generations list newest first per environment; a taken generation number is a UniqueViolation", () => Effect.gen(function* () {
        const keys = yield* SigningKeys
        yield* keys.insert({ keyId: "sandbox/access-token/1", environment: "sandbox", seq: 1, createdAt: 1 })
        yield* keys.insert({ keyId: "sandbox/access-token/2", environment: "sandbox", seq: 2, createdAt: FAR_FUTURE_MS })
        yield* keys.insert({ keyId: "production/access-token/1", environment: "production", seq: 1, createdAt: 1 })
        expect((yield* keys.list("sandbox")).map((k) => k.keyId)).toEqual(["sandbox/access-token/2", "sandbox/access-token/1"])
        expect((yield* uniqueViolation(keys.insert({ keyId: "sandbox/other", environment: "sandbox", seq: 2, createdAt: 3 }))).what).toBe("signing key")
      }))

      test("a session sign-in is saved, replaced and removed", () => Effect.gen(function* () {
        const signIns = yield* SessionSignIns
        yield* signIns.save({ sessionId: "s1", userId: "u1", authTime: 1, amr: ["hwk", "user"] })
        yield* signIns.save({ sessionId: "s1", userId: "u2", authTime: FAR_FUTURE_MS, amr: ["fed"] })
        expect(yield* signIns.find("s1")).toEqual(Option.some({ sessionId: "s1", userId: "u2", authTime: FAR_FUTURE_MS, amr: ["fed"] }))
        yield* signIns.remove("s1")
        yield* signIns.remove("s1")
        expect(yield* signIns.find("s1")).toEqual(Option.none())
      }))
    })

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
        expect(yield* (yield* Passkeys).findById("cred-before"))
          .toEqual(Option.some(samplePasskey({ id: "cred-before", counter: 1 })))
        expect(yield* (yield* Ceremonies).findById(sampleCeremony().id)).toEqual(Option.none())
        expect(yield* (yield* Ceremonies).findById("cer_before")).toEqual(Option.some(sampleCeremony({ id: "cer_before" })))
        expect(yield* (yield* HostedSessions).findById(sampleHostedSession().id)).toEqual(Option.none())
        expect(yield* (yield* KeyRecords).list()).toEqual([])
      })

      test("commit keeps every write", () => Effect.gen(function* () {
        yield* seedBefore
        const storage = yield* Storage
        const rp = yield* storage.transaction(writeEverything)
        expect(yield* (yield* RelyingParties).list()).toEqual([rp])
        expect(yield* (yield* Users).findByEmail("ALICE@example.com")).toEqual(Option.some(sampleUser()))
        expect(yield* (yield* Passkeys).findById(samplePasskey().id)).toEqual(Option.some(samplePasskey()))
        expect(yield* (yield* Passkeys).findById("cred-before"))
          .toEqual(Option.some(samplePasskey({ id: "cred-before", counter: 9, lastUsedAt: 9 })))
        expect(yield* (yield* Ceremonies).findById(sampleCeremony().id)).toEqual(Option.some(sampleCeremony()))
        expect(yield* (yield* Ceremonies).consume("cer_before", 43)).toEqual(Option.none())
        expect(yield* (yield* HostedSessions).findById(sampleHostedSession().id)).toEqual(Option.some(sampleHostedSession()))
        expect(yield* (yield* KeyRecords).list()).toEqual([sampleStoredKey()])
      }))

      test("a failure rolls every write back and is returned as is", () => Effect.gen(function* () {
        yield* seedBefore
        const storage = yield* Storage
        const exit = yield* Effect.exit(storage.transaction(writeEverything.pipe(Effect.zipRight(Effect.fail("boom" as const)))))
        expect(exit).toEqual(Exit.fail("boom"))
        yield* expectNothingWritten
      }))

      test("a defect rolls every write back", () => Effect.gen(function* () {
        yield* seedBefore
        const storage = yield* Storage
        const exit = yield* Effect.exit(storage.transaction(writeEverything.pipe(Effect.zipRight(Effect.dieMessage("bug")))))
        expect(Exit.isFailure(exit)).toBe(true)
        yield* expectNothingWritten
      }))

      test("a UniqueViolation that fails the transaction rolls back the writes before it", () => Effect.gen(function* () {
        const storage = yield* Storage
        const users = yield* Users
        yield* users.insert(sampleUser())
        const exit = yield* Effect.exit(storage.transaction(Effect.gen(function* () {
          yield* (yield* KeyRecords).insert(sampleStoredKey())
          yield* users.insert(sampleUser({ id: "usr_0002" }))
        })))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(yield* (yield* KeyRecords).list()).toEqual([])
        expect(yield* users.findById("usr_0002")).toEqual(Option.none())
      }))

      test("a UniqueViolation caught inside the transaction leaves it usable, and it commits", () => Effect.gen(function* () {
        const storage = yield* Storage
        const users = yield* Users
        yield* users.insert(sampleUser())
        const caught = yield* storage.transaction(Effect.gen(function* () {
          yield* (yield* KeyRecords).insert(sampleStoredKey())
          const e = yield* Effect.flip(users.insert(sampleUser({ id: "usr_0002" })))
          yield* users.insert(sampleUser({ id: "usr_0003", email: "carol@example.com" }))
          return e
        }))
        expect(caught).toBeInstanceOf(UniqueViolation)
        expect(yield* (yield* KeyRecords).list()).toEqual([sampleStoredKey()])
        expect(yield* users.findById("usr_0003")).toEqual(Option.some(sampleUser({ id: "usr_0003", email: "carol@example.com" })))
        expect(yield* users.findById("usr_0002")).toEqual(Option.none())
      }))

      test("reads inside the transaction see its writes, also from forked fibers", () => Effect.gen(function* () {
        const storage = yield* Storage
        const users = yield* Users
        const ids = Array.from({ length: 8 }, (_, i) => `usr_${i}`)
        const seen = yield* storage.transaction(Effect.gen(function* () {
          yield* Effect.forEach(ids, (id) => users.insert(sampleUser({ id, email: `${id}@example.com` })), { concurrency: "unbounded" })
          const fiber = yield* Effect.fork(Effect.forEach(ids, (id) => users.findById(id), { concurrency: "unbounded" }))
          return yield* Fiber.join(fiber)
        }))
        expect(seen.every(Option.isSome)).toBe(true)
        for (const id of ids) expect(Option.isSome(yield* users.findById(id))).toBe(true)
      }))

      test("nested transactions join the outer one: the outer failure rolls back the inner writes", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const users = yield* Users
          const exit = yield* Effect.exit(storage.transaction(Effect.gen(function* () {
            yield* users.insert(sampleUser())
            yield* storage.transaction(users.insert(sampleUser({ id: "usr_inner", email: "inner@example.com" })))
            return yield* Effect.fail("outer")
          })))
          expect(exit).toEqual(Exit.fail("outer"))
          expect(yield* users.findById(sampleUser().id)).toEqual(Option.none())
          expect(yield* users.findById("usr_inner")).toEqual(Option.none())
        }))

      test("nested transactions join the outer one: an inner failure caught outside it keeps the outer going", () =>
        Effect.gen(function* () {
          const storage = yield* Storage
          const users = yield* Users
          yield* storage.transaction(Effect.gen(function* () {
            yield* users.insert(sampleUser())
            const inner = yield* Effect.exit(storage.transaction(
              users.insert(sampleUser({ id: "usr_inner", email: "inner@example.com" })).pipe(Effect.zipRight(Effect.fail("inner")))))
            expect(inner).toEqual(Exit.fail("inner"))
          }))
          expect(yield* users.findById(sampleUser().id)).toEqual(Option.some(sampleUser()))
          // Joined, not a savepoint: the inner write belongs to the outer transaction, which committed.
          expect(yield* users.findById("usr_inner")).toEqual(Option.some(sampleUser({ id: "usr_inner", email: "inner@example.com" })))
        }))

      test("concurrent transactions all commit", () => Effect.gen(function* () {
        const storage = yield* Storage
        const users = yield* Users
        const ids = Array.from({ length: 6 }, (_, i) => `usr_${i}`)
        yield* Effect.forEach(ids, (id) => storage.transaction(Effect.gen(function* () {
          yield* users.insert(sampleUser({ id, email: `${id}@example.com` }))
          yield* users.findById(id)
        })), { concurrency: "unbounded" })
        for (const id of ids) expect(Option.isSome(yield* users.findById(id))).toBe(true)
      }))

      test("a database error caught inside a transaction stops the commit (all or nothing)", () => Effect.gen(function* () {
        const storage = yield* Storage
        const rps = yield* RelyingParties
        const taken = yield* rps.insert(sampleRelyingParty({ clientId: "c_taken" }))
        const other = yield* rps.insert(sampleRelyingParty({ clientId: "c_other" }))
        const exit = yield* Effect.exit(storage.transaction(Effect.gen(function* () {
          yield* (yield* Users).insert(sampleUser())
          // Renaming onto a taken client id is a database error (a defect); catching it must not let the rest commit.
          yield* Effect.catchAllDefect(rps.update({ ...other, clientId: taken.clientId }), () => Effect.void)
        })))
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
        expect(yield* (yield* Users).findById(sampleUser().id)).toEqual(Option.none())
        expect(yield* rps.list()).toEqual([taken, other])
      }))

      test("interrupting a transaction rolls it back, and the store stays usable", () => Effect.gen(function* () {
        const storage = yield* Storage
        const users = yield* Users
        const written = yield* Deferred.make<void>()
        const fiber = yield* Effect.fork(storage.transaction(Effect.gen(function* () {
          yield* users.insert(sampleUser())
          yield* Deferred.succeed(written, undefined)
          return yield* Effect.never
        })))
        yield* Deferred.await(written)
        yield* Fiber.interrupt(fiber)
        expect(yield* users.findById(sampleUser().id)).toEqual(Option.none())
        yield* users.insert(sampleUser())
        expect(yield* users.findById(sampleUser().id)).toEqual(Option.some(sampleUser()))
      }))
    })
  })
}
