/**
 * Identity at core level, over the in-memory storage with the TestClock: the e-mail proof and
 * enrolment ceremony with a software passkey, passkey sign-in ending in an access token, and
 * hosted-page sessions with their CSRF tokens, each with its lifetime.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { atTestStart, coreTestLayer, enrolTestSigner, TestMailbox, testRelyingParty } from "@signet/testkit/core"
import { SoftwarePasskey } from "@signet/testkit"
import {
  checkCsrf,
  completeEnrolment,
  completeSignIn,
  confirmEmailVerification,
  EMAIL_CODE_TTL_SECONDS,
  hostedSessionUser,
  openHostedSession,
  Passkeys,
  requestEnrolment,
  requestSignIn,
  rotateSigningKey,
  signInHostedSession,
  signOutHostedSession,
  startEmailVerification,
  TokenRevocations,
  Users,
  verifyAccessToken,
  type Assertion,
  type RegistrationCredential,
} from "../index.ts"

// The engine writes to the normalised (lower-case) address.
const codeFor = (email: string) => Effect.flatMap(TestMailbox, (m) => m.codeFor(email.toLowerCase()))

/** A proven e-mail: the verification id an enrolment can use once. */
const proveEmail = (email: string) =>
  Effect.gen(function* () {
    const started = yield* startEmailVerification(email)
    yield* confirmEmailVerification({ verificationId: started.verificationId, code: yield* codeFor(email) })
    return started.verificationId
  })

describe("enrolment", () => {
  it.effect("a new account needs a proven e-mail; with it the passkey is registered and the e-mail marked verified", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const refused = yield* Effect.flip(requestEnrolment({ email: "new@example.com" }))
      expect(refused._tag).toBe("EmailVerificationRequired")

      const passkey = SoftwarePasskey.create({ origin: "http://localhost:3000" })
      const emailVerificationId = yield* proveEmail("New@Example.com")
      const started = yield* requestEnrolment({ email: "new@example.com", emailVerificationId })
      yield* TestClock.adjust("1 minute")
      const enrolled = yield* completeEnrolment({
        enrolmentId: started.enrolmentId,
        credential: passkey.register(started.options) as unknown as RegistrationCredential,
      })
      expect(enrolled).toEqual({ userId: enrolled.userId, email: "new@example.com", credentialId: passkey.credentialId })
      const user = yield* Effect.flatMap(Users, (u) => u.findByEmail("NEW@example.com"))
      expect(Option.map(user, (u) => u.emailVerifiedAt)).toEqual(Option.some(Date.UTC(2026, 10, 25, 12, 1)))
      expect((yield* Effect.flatMap(Passkeys, (p) => p.listByUser(enrolled.userId))).map((p) => p.id)).toEqual([passkey.credentialId])
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("one e-mail proof lets in one passkey only", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const emailVerificationId = yield* proveEmail("once@example.com")
      const started = yield* requestEnrolment({ email: "once@example.com", emailVerificationId })
      yield* completeEnrolment({
        enrolmentId: started.enrolmentId,
        credential: SoftwarePasskey.create({ origin: "http://localhost:3000" }).register(started.options) as unknown as RegistrationCredential,
      })
      const again = yield* Effect.flip(requestEnrolment({ email: "once@example.com", emailVerificationId }))
      expect(again._tag).toBe("EmailVerificationRequired")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("an enrolment ceremony expires after its lifetime and cannot be completed twice", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const late = yield* requestEnrolment({ email: "late@example.com", emailVerificationId: yield* proveEmail("late@example.com") })
      yield* TestClock.adjust("5 minutes")
      const expired = yield* Effect.flip(
        completeEnrolment({
          enrolmentId: late.enrolmentId,
          credential: SoftwarePasskey.create({ origin: "http://localhost:3000" }).register(late.options) as unknown as RegistrationCredential,
        }),
      )
      expect(expired._tag).toBe("OperationExpired")
      expect(Option.isNone(yield* Effect.flatMap(Users, (u) => u.findByEmail("late@example.com")))).toBe(true)

      const fresh = yield* requestEnrolment({ email: "late@example.com", emailVerificationId: yield* proveEmail("late@example.com") })
      const passkey = SoftwarePasskey.create({ origin: "http://localhost:3000" })
      const credential = passkey.register(fresh.options) as unknown as RegistrationCredential
      yield* completeEnrolment({ enrolmentId: fresh.enrolmentId, credential })
      expect((yield* Effect.flip(completeEnrolment({ enrolmentId: fresh.enrolmentId, credential })))._tag).toBe("OperationExpired")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a registration made for another origin is refused and nothing is stored", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const started = yield* requestEnrolment({ email: "phish@example.com", emailVerificationId: yield* proveEmail("phish@example.com") })
      const phished = SoftwarePasskey.create({ origin: "https://evil.example" }).register(started.options) as unknown as RegistrationCredential
      const refused = yield* Effect.flip(completeEnrolment({ enrolmentId: started.enrolmentId, credential: phished }))
      expect(refused._tag).toBe("OriginMismatch")
      expect(Option.isNone(yield* Effect.flatMap(Users, (u) => u.findByEmail("phish@example.com")))).toBe(true)
    }).pipe(Effect.provide(coreTestLayer())),
  )
})

describe("e-mail codes", () => {
  it.effect("a code expires after ten minutes", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const started = yield* startEmailVerification("slow@example.com")
      const code = yield* codeFor("slow@example.com")
      yield* TestClock.adjust(EMAIL_CODE_TTL_SECONDS * 1000)
      expect((yield* Effect.flip(confirmEmailVerification({ verificationId: started.verificationId, code })))._tag).toBe("EmailVerificationFailed")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("five wrong codes kill the verification: the right code is then refused too", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const started = yield* startEmailVerification("guess@example.com")
      const code = yield* codeFor("guess@example.com")
      const wrong = code === "00000000" ? "11111111" : "00000000"
      for (let i = 0; i < 5; i++) yield* Effect.flip(confirmEmailVerification({ verificationId: started.verificationId, code: wrong }))
      expect((yield* Effect.flip(confirmEmailVerification({ verificationId: started.verificationId, code })))._tag).toBe("EmailVerificationFailed")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("at most five codes per address per hour; an hour after the first, one more", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      for (let i = 0; i < 5; i++) yield* startEmailVerification("busy@example.com")
      const limited = yield* Effect.flip(startEmailVerification("busy@example.com"))
      expect(limited._tag).toBe("EmailVerificationLimit")
      expect((yield* TestMailbox).sent().filter((m) => m.to === "busy@example.com")).toHaveLength(5)
      yield* TestClock.adjust("1 hour")
      expect((yield* Effect.flip(startEmailVerification("busy@example.com")))._tag).toBe("EmailVerificationLimit")
      yield* TestClock.adjust("1 millis")
      yield* startEmailVerification("busy@example.com")
      expect((yield* TestMailbox).sent().filter((m) => m.to === "busy@example.com")).toHaveLength(6)
    }).pipe(Effect.provide(coreTestLayer())),
  )
})

describe("passkey sign-in", () => {
  it.effect("a sign-in for an RP ends in an access token for the account, valid for its lifetime", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const { rp } = yield* testRelyingParty()
      const signer = yield* enrolTestSigner("alice@example.com")
      const started = yield* requestSignIn({ clientId: rp.clientId, email: "alice@example.com" })
      expect(started.options.allowCredentials?.map((c) => c.id)).toEqual([signer.passkey.credentialId])
      const answer = yield* completeSignIn({ signinId: started.signinId, assertion: signer.passkey.assert(started.options) as Assertion })
      expect(answer.sub).toBe(signer.userId)
      expect(answer.scope).toBe("openid basic")
      const claims = yield* verifyAccessToken(answer.access_token)
      expect([claims.sub, claims.clientId]).toEqual([signer.userId, rp.clientId])
      yield* TestClock.adjust(answer.expires_in * 1000)
      expect((yield* Effect.flip(verifyAccessToken(answer.access_token)))._tag).toBe("InvalidOrExpiredToken")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a token accepted before is checked again on every use: one second before expiry, revoked, or its key rotated out, it is refused", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const { rp } = yield* testRelyingParty()
      const signer = yield* enrolTestSigner("erin@example.com")
      const signIn = () =>
        Effect.gen(function* () {
          const started = yield* requestSignIn({ clientId: rp.clientId })
          return yield* completeSignIn({ signinId: started.signinId, assertion: signer.passkey.assert(started.options) as Assertion })
        })
      // Lifetime: accepted up to its last second, refused at `exp`.
      const first = yield* signIn()
      const claims = yield* verifyAccessToken(first.access_token)
      yield* TestClock.adjust((first.expires_in - 1) * 1000)
      expect((yield* verifyAccessToken(first.access_token)).jti).toBe(claims.jti)
      yield* TestClock.adjust(1000)
      expect((yield* Effect.flip(verifyAccessToken(first.access_token)))._tag).toBe("InvalidOrExpiredToken")
      // Revocation.
      const second = yield* signIn()
      const jti = (yield* verifyAccessToken(second.access_token)).jti
      yield* Effect.flatMap(TokenRevocations, (r) => r.revoke(jti, second.expires_in))
      expect((yield* Effect.flip(verifyAccessToken(second.access_token)))._tag).toBe("InvalidOrExpiredToken")
      // Rotation: one rotation keeps the previous generation published, a second one retires it.
      const third = yield* signIn()
      yield* verifyAccessToken(third.access_token)
      yield* rotateSigningKey
      yield* verifyAccessToken(third.access_token)
      yield* rotateSigningKey
      expect((yield* Effect.flip(verifyAccessToken(third.access_token)))._tag).toBe("InvalidOrExpiredToken")
      // A token altered after it was accepted is a different token, checked in full.
      const fourth = yield* signIn()
      yield* verifyAccessToken(fourth.access_token)
      const [h, p, sig] = fourth.access_token.split(".")
      const forged = `${h}.${p}.${sig!.slice(0, -2)}${sig!.endsWith("AA") ? "BA" : "AA"}`
      expect((yield* Effect.flip(verifyAccessToken(forged)))._tag).toBe("InvalidOrExpiredToken")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a sign-in ceremony is used once and expires", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const { rp } = yield* testRelyingParty()
      const signer = yield* enrolTestSigner("bob@example.com")
      const first = yield* requestSignIn({ clientId: rp.clientId })
      yield* completeSignIn({ signinId: first.signinId, assertion: signer.passkey.assert(first.options) as Assertion })
      const replay = yield* Effect.flip(completeSignIn({ signinId: first.signinId, assertion: signer.passkey.assert(first.options) as Assertion }))
      expect(replay._tag).toBe("OperationExpired")

      const slow = yield* requestSignIn({ clientId: rp.clientId })
      yield* TestClock.adjust("5 minutes")
      expect((yield* Effect.flip(completeSignIn({ signinId: slow.signinId, assertion: signer.passkey.assert(slow.options) as Assertion })))._tag).toBe(
        "OperationExpired",
      )
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a refused assertion uses the sign-in ceremony up: a retry on the same challenge is refused", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const { rp } = yield* testRelyingParty()
      const signer = yield* enrolTestSigner("dave@example.com")
      const started = yield* requestSignIn({ clientId: rp.clientId })
      const bad = yield* Effect.flip(
        completeSignIn({ signinId: started.signinId, assertion: signer.passkey.assert(started.options, { fault: "badSignature" }) as Assertion }),
      )
      expect(bad._tag).toBe("PasskeySignatureInvalid")
      const retry = yield* Effect.flip(completeSignIn({ signinId: started.signinId, assertion: signer.passkey.assert(started.options) as Assertion }))
      expect(retry._tag).toBe("OperationExpired")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a sign-in started for one account cannot be finished with another account's passkey", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const { rp } = yield* testRelyingParty()
      yield* enrolTestSigner("carol@example.com")
      const mallory = yield* enrolTestSigner("mallory@example.com")
      const started = yield* requestSignIn({ clientId: rp.clientId, email: "carol@example.com" })
      const refused = yield* Effect.flip(
        completeSignIn({ signinId: started.signinId, assertion: mallory.passkey.assert(started.options, { includeUserHandle: false }) as Assertion }),
      )
      expect(refused._tag).toBe("CredentialNotRegistered")
    }).pipe(Effect.provide(coreTestLayer())),
  )
})

describe("hosted sessions", () => {
  it.effect("the CSRF token works for the session's lifetime only, and only with its own session", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const session = yield* openHostedSession()
      const other = yield* openHostedSession()
      yield* checkCsrf(session.sessionId, session.csrfToken)
      expect((yield* Effect.flip(checkCsrf(session.sessionId, other.csrfToken)))._tag).toBe("CsrfValidationFailed")
      expect((yield* Effect.flip(checkCsrf(session.sessionId, undefined)))._tag).toBe("CsrfValidationFailed")
      yield* TestClock.adjust("1 hour")
      expect((yield* Effect.flip(checkCsrf(session.sessionId, session.csrfToken)))._tag).toBe("CsrfValidationFailed")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a signed-in session carries the user to the next page load, until sign-out or expiry", () =>
    Effect.gen(function* () {
      yield* atTestStart()
      const first = yield* openHostedSession()
      yield* signInHostedSession(first.sessionId, { userId: "usr_1", amr: ["hwk", "user"] })
      expect(Option.map(yield* hostedSessionUser(first.sessionId), (s) => [s.userId, s.authTime])).toEqual(
        Option.some(["usr_1", Date.UTC(2026, 10, 25, 12) / 1000]),
      )

      yield* TestClock.adjust("10 minutes")
      const next = yield* openHostedSession(first.sessionId)
      expect(Option.map(yield* hostedSessionUser(next.sessionId), (s) => s.userId)).toEqual(Option.some("usr_1"))
      // the sign-in moved: the old cookie no longer signs anyone in
      expect(yield* hostedSessionUser(first.sessionId)).toEqual(Option.none())

      yield* signOutHostedSession(next.sessionId)
      expect(yield* hostedSessionUser(next.sessionId)).toEqual(Option.none())

      const later = yield* openHostedSession()
      yield* signInHostedSession(later.sessionId, { userId: "usr_2", amr: ["swk", "user"] })
      yield* TestClock.adjust("1 hour")
      expect(yield* hostedSessionUser(later.sessionId)).toEqual(Option.none())
      expect((yield* Effect.flip(signInHostedSession(later.sessionId, { userId: "usr_2", amr: [] })))._tag).toBe("CsrfValidationFailed")
    }).pipe(Effect.provide(coreTestLayer())),
  )
})
