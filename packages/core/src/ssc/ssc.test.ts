/**
 * The signing-token flow at core level, over the in-memory storage with the TestClock: an RP's
 * server trades its SSC secret for a token bound to one hash; the signing frame opens an
 * operation and finalizes it with a passkey (registered or anonymous mode), within lifetimes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { createHash } from "node:crypto"
import { atTestStart, CORE_TEST_ORIGIN, coreTestLayer, enrolTestSigner, testRelyingParty } from "@signet/testkit/core"
import {
  ANONYMOUS_CHALLENGES_PER_MINUTE,
  finalizeOperation,
  issueSigningToken,
  openOperation,
  SIGNING_TOKEN_LIFETIME_SECONDS,
  validateSignature,
  verifySigningToken,
  type Assertion,
  Users,
} from "../index.ts"

const hashOf = (text: string) => createHash("sha256").update(text).digest("hex")
const IP = "203.0.113.7"

/** An approved RP (its secrets) and an enrolled signer. */
const world = Effect.gen(function* () {
  yield* atTestStart()
  const registered = yield* testRelyingParty()
  const signer = yield* enrolTestSigner("sam@example.com")
  return { ...registered, signer }
})

describe("signing tokens", () => {
  it.effect("an RP's SSC secret buys a token bound to the hash, valid for five minutes", () =>
    Effect.gen(function* () {
      const { rp, sscSecret } = yield* world
      const documentHash = hashOf("deed")
      const issued = yield* issueSigningToken({ clientId: rp.clientId, clientSecret: sscSecret, documentHash, loa: "LOA-2" })
      expect(issued.expiresAt).toBe(Date.UTC(2026, 10, 25, 12, 5) / 1000)
      const claims = yield* verifySigningToken(issued.token)
      expect([claims.clientId, claims.documentHash, claims.loa, claims.userId]).toEqual([rp.clientId, documentHash, "LOA-2", null])
      yield* TestClock.adjust(SIGNING_TOKEN_LIFETIME_SECONDS * 1000)
      expect((yield* Effect.flip(verifySigningToken(issued.token)))._tag).toBe("InvalidOrExpiredToken")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a wrong secret, or a signer without an account, gets no token", () =>
    Effect.gen(function* () {
      const { rp, clientSecret, sscSecret } = yield* world
      const wrong = yield* Effect.flip(issueSigningToken({ clientId: rp.clientId, clientSecret, documentHash: hashOf("x"), loa: "LOA-2" }))
      expect(wrong._tag).toBe("InvalidClientCredentials")
      const nobody = yield* Effect.flip(
        issueSigningToken({ clientId: rp.clientId, clientSecret: sscSecret, documentHash: hashOf("x"), loa: "LOA-2", signerEmail: "ghost@example.com" }),
      )
      expect(nobody.message).toBe("User not found for email: ghost@example.com")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("an account whose e-mail is only an identity provider's claim is no signer for that e-mail", () =>
    Effect.gen(function* () {
      const { rp, sscSecret } = yield* world
      // As an administrator's identity provider opens accounts: the address unproven (docs/identity.md).
      yield* Effect.flatMap(Users, (u) => u.insert({ id: "claimed-1", email: "ceo@example.com", displayName: "CEO", createdAt: 0, emailVerifiedAt: null }))
      // The lookup is the same for LOA-4, which binds the token to that account's passkey.
      const refused = yield* Effect.flip(
        issueSigningToken({ clientId: rp.clientId, clientSecret: sscSecret, documentHash: hashOf("x"), loa: "LOA-2", signerEmail: "ceo@example.com" }),
      )
      expect(refused.message).toBe("User not found for email: ceo@example.com")
      yield* Effect.flatMap(Users, (u) => u.markEmailVerified("claimed-1", 1))
      const named = yield* issueSigningToken({
        clientId: rp.clientId,
        clientSecret: sscSecret,
        documentHash: hashOf("x"),
        loa: "LOA-2",
        signerEmail: "ceo@example.com",
      })
      expect((yield* verifySigningToken(named.token)).userId).toBe("claimed-1")
    }).pipe(Effect.provide(coreTestLayer())),
  )
})

describe("operations", () => {
  it.effect("registered mode: the named signer's passkey finalizes once and gets a valid CMS over the hash", () =>
    Effect.gen(function* () {
      const { rp, sscSecret, signer } = yield* world
      const documentHash = hashOf("loan agreement")
      const { token } = yield* issueSigningToken({ clientId: rp.clientId, clientSecret: sscSecret, documentHash, loa: "LOA-2", signerEmail: "SAM@example.com" })
      const opened = yield* openOperation({ documentHash, documentName: "loan.pdf", rpOrigin: CORE_TEST_ORIGIN, mode: "registered", token }, IP)
      expect(opened.mode).toBe("registered")
      yield* TestClock.adjust("20 seconds")
      const assertion = signer.passkey.assert({ challenge: opened.challenge }) as Assertion
      const done = yield* finalizeOperation({ operationId: opened.operationId, documentHash, assertion }, IP)
      expect([done.mode, done.userVerified, done.credentialId, done.timestamp]).toEqual([
        "registered",
        true,
        signer.passkey.credentialId,
        Date.UTC(2026, 10, 25, 12, 0, 20) / 1000,
      ])
      const report = yield* validateSignature(done.signatureBase64, documentHash)
      expect(report.valid && report.coversDocumentHash).toBe(true)
      expect(report.signer?.subject).toContain("sam@example.com")
      const again = yield* Effect.flip(
        finalizeOperation(
          { operationId: opened.operationId, documentHash, assertion: signer.passkey.assert({ challenge: opened.challenge }) as Assertion },
          IP,
        ),
      )
      expect(again.message).toBe("Operation expired or not found")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("registered mode refuses another account's passkey; anonymous mode signs as whoever approves", () =>
    Effect.gen(function* () {
      const { rp, sscSecret } = yield* world
      const eve = yield* enrolTestSigner("eve@example.com")
      const documentHash = hashOf("will")
      const named = yield* issueSigningToken({ clientId: rp.clientId, clientSecret: sscSecret, documentHash, loa: "LOA-2", signerEmail: "sam@example.com" })
      const op = yield* openOperation({ documentHash, documentName: "will.pdf", rpOrigin: CORE_TEST_ORIGIN, mode: "registered", token: named.token }, IP)
      const refused = yield* Effect.flip(
        finalizeOperation(
          { operationId: op.operationId, documentHash, assertion: eve.passkey.assert({ challenge: op.challenge }, { includeUserHandle: false }) as Assertion },
          IP,
        ),
      )
      expect(refused._tag).toBe("CredentialNotRegistered")

      const open = yield* issueSigningToken({ clientId: rp.clientId, clientSecret: sscSecret, documentHash, loa: "LOA-2" })
      const anonymous = yield* openOperation({ documentHash, documentName: "will.pdf", rpOrigin: CORE_TEST_ORIGIN, mode: "anonymous", token: open.token }, IP)
      const done = yield* finalizeOperation(
        { operationId: anonymous.operationId, documentHash, assertion: eve.passkey.assert({ challenge: anonymous.challenge }) as Assertion },
        IP,
      )
      expect(done.mode).toBe("anonymous")
      expect((yield* validateSignature(done.signatureBase64, documentHash)).signer?.subject).toContain("eve@example.com")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("an operation expires after five minutes", () =>
    Effect.gen(function* () {
      const { rp, sscSecret, signer } = yield* world
      const documentHash = hashOf("slow")
      const { token } = yield* issueSigningToken({ clientId: rp.clientId, clientSecret: sscSecret, documentHash, loa: "LOA-2", signerEmail: "sam@example.com" })
      const op = yield* openOperation({ documentHash, documentName: "slow.pdf", rpOrigin: CORE_TEST_ORIGIN, mode: "registered", token }, IP)
      yield* TestClock.adjust("5 minutes")
      const late = yield* Effect.flip(
        finalizeOperation({ operationId: op.operationId, documentHash, assertion: signer.passkey.assert({ challenge: op.challenge }) as Assertion }, IP),
      )
      expect(late._tag).toBe("OperationExpired")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a token opens operations only for its own hash and the RP's origins", () =>
    Effect.gen(function* () {
      const { rp, sscSecret } = yield* world
      const { token } = yield* issueSigningToken({ clientId: rp.clientId, clientSecret: sscSecret, documentHash: hashOf("a"), loa: "LOA-2" })
      const otherHash = yield* Effect.flip(
        openOperation({ documentHash: hashOf("b"), documentName: "b", rpOrigin: CORE_TEST_ORIGIN, mode: "anonymous", token }, IP),
      )
      expect(otherHash.message).toBe("documentHash does not match the signing token")
      const otherOrigin = yield* Effect.flip(
        openOperation({ documentHash: hashOf("a"), documentName: "a", rpOrigin: "https://evil.example", mode: "anonymous", token }, IP),
      )
      expect(otherOrigin._tag).toBe("RpOriginNotAuthorized")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("anonymous challenges are limited per client IP per minute", () =>
    Effect.gen(function* () {
      const { rp, sscSecret } = yield* world
      const documentHash = hashOf("flood")
      const { token } = yield* issueSigningToken({ clientId: rp.clientId, clientSecret: sscSecret, documentHash, loa: "LOA-2" })
      const open = (ip: string) => openOperation({ documentHash, documentName: "f", rpOrigin: CORE_TEST_ORIGIN, mode: "anonymous", token }, ip)
      for (let i = 0; i < ANONYMOUS_CHALLENGES_PER_MINUTE; i++) yield* open(IP)
      expect((yield* Effect.flip(open(IP)))._tag).toBe("RateLimitExceeded")
      yield* open("198.51.100.1")
      yield* TestClock.adjust("1 minute")
      yield* open(IP)
    }).pipe(Effect.provide(coreTestLayer())),
  )
})
