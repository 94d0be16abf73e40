/** Storage conformance of the oidc module: the OpenID provider's codes, refresh tokens, consents, revocations, signing keys and session sign-ins. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import {
  type AuthorizationCode,
  AuthorizationCodes,
  Consents,
  type RefreshToken,
  RefreshTokens,
  SessionSignIns,
  SigningKeys,
  TokenRevocations,
} from "@signet/core"
import { FAR_FUTURE_MS } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

const sampleCode = (overrides: Partial<AuthorizationCode> = {}): AuthorizationCode => ({
  codeHash: "c".repeat(64),
  clientId: "rp_sbx_1",
  userId: "usr_1",
  redirectUri: "https://app.example.com/cb?a=ü",
  scope: ["openid", "basic"],
  nonce: "n-0",
  codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  authTime: 1_700_000_000,
  amr: ["hwk", "user"],
  familyId: "fam_1",
  createdAt: FAR_FUTURE_MS,
  expiresAt: FAR_FUTURE_MS + 60_000,
  consumedAt: null,
  ...overrides,
})

const sampleRefresh = (overrides: Partial<RefreshToken> = {}): RefreshToken => ({
  tokenHash: "r".repeat(64),
  familyId: "fam_1",
  clientId: "rp_sbx_1",
  userId: "usr_1",
  scope: ["openid", "email"],
  authTime: 1_700_000_000,
  amr: ["swk", "user"],
  accessJti: "jti-1",
  accessExpiresAt: FAR_FUTURE_MS + 3_600_000,
  createdAt: FAR_FUTURE_MS,
  expiresAt: FAR_FUTURE_MS + 1,
  usedAt: null,
  revokedAt: null,
  ...overrides,
})

/** The oidc module's repositories against the storage contract. */
export const oidcConformance = conformanceSuite<AuthorizationCodes | RefreshTokens | Consents | TokenRevocations | SigningKeys | SessionSignIns>()(
  "oidc",
  ({ test, uniqueViolation }) => {
    describe("OpenID provider repositories", () => {
      test("an authorization code round-trips and is consumed exactly once", () =>
        Effect.gen(function* () {
          const codes = yield* AuthorizationCodes
          yield* codes.insert(sampleCode())
          expect(yield* codes.findByHash("c".repeat(64))).toEqual(Option.some(sampleCode()))
          expect(yield* codes.consume("c".repeat(64), 5)).toEqual(Option.some(sampleCode({ consumedAt: 5 })))
          expect(yield* codes.consume("c".repeat(64), 6)).toEqual(Option.none())
          expect(yield* codes.consume("unknown", 6)).toEqual(Option.none())
          expect((yield* uniqueViolation(codes.insert(sampleCode()))).what).toBe("code")
        }))

      test("a refresh token is consumed once; revoking its family revokes every member and stops consumption", () =>
        Effect.gen(function* () {
          const tokens = yield* RefreshTokens
          yield* tokens.insert(sampleRefresh())
          yield* tokens.insert(sampleRefresh({ tokenHash: "s".repeat(64), accessJti: "jti-2", createdAt: FAR_FUTURE_MS + 1 }))
          yield* tokens.insert(sampleRefresh({ tokenHash: "t".repeat(64), familyId: "fam_other" }))
          expect(yield* tokens.findByHash("r".repeat(64))).toEqual(Option.some(sampleRefresh()))
          expect(yield* tokens.consume("r".repeat(64), 7)).toEqual(Option.some(sampleRefresh({ usedAt: 7 })))
          expect(yield* tokens.consume("r".repeat(64), 8)).toEqual(Option.none())
          const members = yield* tokens.revokeFamily("fam_1", 9)
          expect(members.map((m) => [m.accessJti, m.revokedAt])).toEqual([
            ["jti-1", 9],
            ["jti-2", 9],
          ])
          expect(yield* tokens.consume("s".repeat(64), 10)).toEqual(Option.none())
          expect((yield* tokens.findByHash("t".repeat(64))).pipe(Option.map((t) => t.revokedAt))).toEqual(Option.some(null))
        }))

      test("consents are one per user and client and saving replaces", () =>
        Effect.gen(function* () {
          const consents = yield* Consents
          yield* consents.save({ userId: "u", clientId: "c", scope: ["openid"], grantedAt: 1 })
          yield* consents.save({ userId: "u", clientId: "c", scope: ["openid", "email"], grantedAt: FAR_FUTURE_MS })
          expect(yield* consents.find("u", "c")).toEqual(Option.some({ userId: "u", clientId: "c", scope: ["openid", "email"], grantedAt: FAR_FUTURE_MS }))
          expect(yield* consents.find("u", "other")).toEqual(Option.none())
        }))

      test("revocations are idempotent and purged after the token's expiry", () =>
        Effect.gen(function* () {
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

      test("signing-key generations list newest first per environment; a taken generation number is a UniqueViolation", () =>
        Effect.gen(function* () {
          const keys = yield* SigningKeys
          yield* keys.insert({ keyId: "sandbox/access-token/1", environment: "sandbox", seq: 1, createdAt: 1 })
          yield* keys.insert({ keyId: "sandbox/access-token/2", environment: "sandbox", seq: 2, createdAt: FAR_FUTURE_MS })
          yield* keys.insert({ keyId: "production/access-token/1", environment: "production", seq: 1, createdAt: 1 })
          expect((yield* keys.list("sandbox")).map((k) => k.keyId)).toEqual(["sandbox/access-token/2", "sandbox/access-token/1"])
          expect((yield* uniqueViolation(keys.insert({ keyId: "sandbox/other", environment: "sandbox", seq: 2, createdAt: 3 }))).what).toBe("signing key")
        }))

      test("the bearer check's read answers the generations newest first and the token's revocation, as list and isRevoked do", () =>
        Effect.gen(function* () {
          const keys = yield* SigningKeys
          const revocations = yield* TokenRevocations
          expect(yield* keys.listWithRevocation("sandbox", "jti-x")).toEqual({ generations: [], revoked: false })
          yield* keys.insert({ keyId: "sandbox/access-token/1", environment: "sandbox", seq: 1, createdAt: 1 })
          yield* keys.insert({ keyId: "sandbox/access-token/3", environment: "sandbox", seq: 3, createdAt: 3 })
          yield* keys.insert({ keyId: "sandbox/access-token/2", environment: "sandbox", seq: 2, createdAt: 2 })
          yield* keys.insert({ keyId: "production/access-token/1", environment: "production", seq: 1, createdAt: 1 })
          yield* revocations.revoke("jti-x", FAR_FUTURE_MS)
          const read = yield* keys.listWithRevocation("sandbox", "jti-x")
          expect(read).toEqual({ generations: yield* keys.list("sandbox"), revoked: true })
          expect(read.generations.map((k) => k.seq)).toEqual([3, 2, 1])
          expect(yield* keys.listWithRevocation("sandbox", "jti-y")).toEqual({ generations: read.generations, revoked: false })
          expect((yield* keys.listWithRevocation("nowhere", "jti-x")).revoked).toBe(true)
        }))

      test("a session sign-in is saved, replaced and removed", () =>
        Effect.gen(function* () {
          const signIns = yield* SessionSignIns
          yield* signIns.save({ sessionId: "s1", userId: "u1", authTime: 1, amr: ["hwk", "user"] })
          yield* signIns.save({ sessionId: "s1", userId: "u2", authTime: FAR_FUTURE_MS, amr: ["fed"] })
          expect(yield* signIns.find("s1")).toEqual(Option.some({ sessionId: "s1", userId: "u2", authTime: FAR_FUTURE_MS, amr: ["fed"] }))
          yield* signIns.remove("s1")
          yield* signIns.remove("s1")
          expect(yield* signIns.find("s1")).toEqual(Option.none())
        }))
    })
  },
)
