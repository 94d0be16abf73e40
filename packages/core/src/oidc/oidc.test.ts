/**
 * The OpenID provider at core level, over the in-memory storage with the TestClock: authorize
 * (sign-in, consent, code), the code exchange with PKCE, refresh-token rotation with reuse
 * detection, revocation, and every lifetime, as an RP's back end sees them.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { atTestStart, coreTestLayer, enrolTestSigner, testRelyingParty } from "@signet/testkit/core"
import {
  authorize,
  CODE_TTL_SECONDS,
  exchangeCode,
  REFRESH_TTL_SECONDS,
  refreshTokens,
  revokeToken,
  userInfo,
  verifyAccessToken,
  type RelyingParty,
  type SessionSignIn,
} from "../index.ts"

const REDIRECT = "https://app.example.com/callback"

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>

/** A PKCE pair. */
const pkce = () => {
  const verifier = b64url(randomBytes(32))
  return { verifier, challenge: b64url(createHash("sha256").update(verifier).digest()) }
}

const request = (rp: RelyingParty, challenge: string, extra: Record<string, string> = {}) =>
  new URLSearchParams({
    client_id: rp.clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: "openid email",
    state: "st-1",
    nonce: "n-1",
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...extra,
  })

/**
 * An approved RP, an enrolled user signed in on a hosted session at the test start. ES256 ID
 * tokens (a P-256 key is quick to make) unless the test is about the default, RS256.
 */
const makeWorld = (idTokenAlg?: "RS256" | "ES256") =>
  Effect.gen(function* () {
    yield* atTestStart()
    const { rp } = yield* testRelyingParty({ redirectUris: [REDIRECT], ...(idTokenAlg === undefined ? {} : { idTokenAlg }) })
    const user = yield* enrolTestSigner("olivia@example.com")
    const signIn: SessionSignIn = { sessionId: "s-1", userId: user.userId, authTime: Math.floor(Date.UTC(2026, 10, 25, 12) / 1000), amr: ["hwk", "user"] }
    return { rp, user, signIn }
  })
const world = makeWorld("ES256")

/** Runs authorize with consent given and answers the code from the redirect. */
const codeFor = (rp: RelyingParty, signIn: SessionSignIn, challenge: string) =>
  Effect.gen(function* () {
    const outcome = yield* authorize(request(rp, challenge), Option.some(signIn), "allow")
    if (outcome._tag !== "Redirect") throw new Error(`expected a redirect, got ${outcome._tag}`)
    const location = new URL(outcome.location)
    return location.searchParams.get("code")!
  })

/** The OAuth error an effect fails with, as `code: description`. */
const grantError = <E extends { readonly message: string }, R>(effect: Effect.Effect<unknown, E, R>) => Effect.map(Effect.flip(effect), (e) => e.message)

describe("authorization endpoint", () => {
  it.effect("asks to sign in, then for consent, then redirects with a code, the state and the issuer; consent is remembered", () =>
    Effect.gen(function* () {
      const { rp, signIn } = yield* world
      const { challenge } = pkce()
      expect(yield* authorize(request(rp, challenge), Option.none())).toEqual({ _tag: "SignIn", clientId: rp.clientId })
      expect(yield* authorize(request(rp, challenge), Option.some(signIn))).toEqual({ _tag: "Consent", clientName: "Test RP", scope: ["openid", "email"] })
      const allowed = yield* authorize(request(rp, challenge), Option.some(signIn), "allow")
      expect(allowed._tag).toBe("Redirect")
      const location = new URL((allowed as { readonly location: string }).location)
      expect(location.origin + location.pathname).toBe(REDIRECT)
      expect(location.searchParams.get("state")).toBe("st-1")
      expect(location.searchParams.get("iss")).toBe("http://localhost:3000/api")
      expect(location.searchParams.get("code")).toMatch(/^[A-Za-z0-9_-]{20,}$/)
      // the next request with the same scopes needs no consent page
      expect((yield* authorize(request(rp, challenge), Option.some(signIn)))._tag).toBe("Redirect")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("an unregistered redirect URI gets an error page, never a redirect; a denial goes back as access_denied", () =>
    Effect.gen(function* () {
      const { rp, signIn } = yield* world
      const { challenge } = pkce()
      const stray = yield* authorize(request(rp, challenge, { redirect_uri: "https://evil.example/cb" }), Option.some(signIn), "allow")
      expect(stray._tag).toBe("ErrorPage")
      const denied = yield* authorize(request(rp, challenge), Option.some(signIn), "deny")
      expect(new URL((denied as { readonly location: string }).location).searchParams.get("error")).toBe("access_denied")
    }).pipe(Effect.provide(coreTestLayer())),
  )
})

describe("token endpoint", () => {
  it.effect("a code and its verifier give an access token, a refresh token and an ID token (RS256 by default) for the user", () =>
    Effect.gen(function* () {
      const { rp, user, signIn } = yield* makeWorld()
      const { verifier, challenge } = pkce()
      const code = yield* codeFor(rp, signIn, challenge)
      yield* TestClock.adjust("10 seconds")
      const tokens = yield* exchangeCode(rp, { code, redirectUri: REDIRECT, codeVerifier: verifier })
      expect(tokens.scope).toBe("openid email")
      expect(JSON.parse(Buffer.from(tokens.id_token!.split(".")[0]!, "base64url").toString("utf8")).alg).toBe("RS256")
      const id = claimsOf(tokens.id_token!)
      expect([id["sub"], id["aud"], id["nonce"], id["email"], id["auth_time"]]).toEqual([
        user.userId,
        rp.clientId,
        "n-1",
        "olivia@example.com",
        signIn.authTime,
      ])
      expect((yield* verifyAccessToken(tokens.access_token)).sub).toBe(user.userId)
      expect(yield* userInfo(Option.some(`Bearer ${tokens.access_token}`))).toEqual({ sub: user.userId, email: "olivia@example.com", email_verified: false })
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a code expires after a minute", () =>
    Effect.gen(function* () {
      const { rp, signIn } = yield* world
      const { verifier, challenge } = pkce()
      const code = yield* codeFor(rp, signIn, challenge)
      yield* TestClock.adjust(CODE_TTL_SECONDS * 1000)
      expect(yield* grantError(exchangeCode(rp, { code, redirectUri: REDIRECT, codeVerifier: verifier }))).toBe("invalid_grant: authorization code expired")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a wrong verifier is refused, and the code is spent", () =>
    Effect.gen(function* () {
      const { rp, signIn } = yield* world
      const { verifier, challenge } = pkce()
      const code = yield* codeFor(rp, signIn, challenge)
      expect(yield* grantError(exchangeCode(rp, { code, redirectUri: REDIRECT, codeVerifier: pkce().verifier }))).toBe(
        "invalid_grant: code_verifier does not match the code_challenge",
      )
      expect(yield* grantError(exchangeCode(rp, { code, redirectUri: REDIRECT, codeVerifier: verifier }))).toBe(
        "invalid_grant: authorization code was already used",
      )
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a replayed code revokes what the first exchange issued", () =>
    Effect.gen(function* () {
      const { rp, signIn } = yield* world
      const { verifier, challenge } = pkce()
      const code = yield* codeFor(rp, signIn, challenge)
      const first = yield* exchangeCode(rp, { code, redirectUri: REDIRECT, codeVerifier: verifier })
      expect(yield* grantError(exchangeCode(rp, { code, redirectUri: REDIRECT, codeVerifier: verifier }))).toBe(
        "invalid_grant: authorization code was already used",
      )
      expect((yield* Effect.flip(verifyAccessToken(first.access_token)))._tag).toBe("InvalidOrExpiredToken")
      expect(yield* grantError(refreshTokens(rp, { refreshToken: first.refresh_token, scope: [] }))).toBe("invalid_grant: refresh token was revoked")
    }).pipe(Effect.provide(coreTestLayer())),
  )
})

describe("refresh tokens", () => {
  it.effect("each refresh rotates; a rotated token coming back revokes the whole grant", () =>
    Effect.gen(function* () {
      const { rp, signIn } = yield* world
      const { verifier, challenge } = pkce()
      const first = yield* exchangeCode(rp, { code: yield* codeFor(rp, signIn, challenge), redirectUri: REDIRECT, codeVerifier: verifier })
      yield* TestClock.adjust("1 hour")
      const second = yield* refreshTokens(rp, { refreshToken: first.refresh_token, scope: [] })
      expect(second.refresh_token).not.toBe(first.refresh_token)
      expect(second.scope).toBe("openid email")
      const narrowed = yield* refreshTokens(rp, { refreshToken: second.refresh_token, scope: ["openid"] })
      expect(narrowed.scope).toBe("openid")
      expect(narrowed.id_token).toBeDefined()

      // the first token is replayed (stolen): everything of the grant stops
      expect(yield* grantError(refreshTokens(rp, { refreshToken: first.refresh_token, scope: [] }))).toBe(
        "invalid_grant: refresh token was already used; every token of this grant is revoked",
      )
      expect(yield* grantError(refreshTokens(rp, { refreshToken: narrowed.refresh_token, scope: [] }))).toBe("invalid_grant: refresh token was revoked")
      expect((yield* Effect.flip(verifyAccessToken(narrowed.access_token)))._tag).toBe("InvalidOrExpiredToken")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a refresh asking for a scope never granted is refused", () =>
    Effect.gen(function* () {
      const { rp, signIn } = yield* world
      const { verifier, challenge } = pkce()
      const first = yield* exchangeCode(rp, { code: yield* codeFor(rp, signIn, challenge), redirectUri: REDIRECT, codeVerifier: verifier })
      expect(yield* grantError(refreshTokens(rp, { refreshToken: first.refresh_token, scope: ["openid", "profile"] }))).toBe(
        "invalid_scope: scope profile was not granted",
      )
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a refresh token expires after thirty days; the access token after its lifetime", () =>
    Effect.gen(function* () {
      const { rp, signIn } = yield* world
      const { verifier, challenge } = pkce()
      const first = yield* exchangeCode(rp, { code: yield* codeFor(rp, signIn, challenge), redirectUri: REDIRECT, codeVerifier: verifier })
      yield* TestClock.adjust(first.expires_in * 1000)
      expect((yield* Effect.flip(verifyAccessToken(first.access_token)))._tag).toBe("InvalidOrExpiredToken")
      yield* TestClock.adjust(REFRESH_TTL_SECONDS * 1000)
      expect(yield* grantError(refreshTokens(rp, { refreshToken: first.refresh_token, scope: [] }))).toBe("invalid_grant: refresh token expired")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("revoking a refresh token ends the grant and its access tokens; another client's revocation changes nothing", () =>
    Effect.gen(function* () {
      const { rp, signIn } = yield* world
      const { rp: other } = yield* testRelyingParty({ redirectUris: [REDIRECT], idTokenAlg: "ES256" })
      const { verifier, challenge } = pkce()
      const first = yield* exchangeCode(rp, { code: yield* codeFor(rp, signIn, challenge), redirectUri: REDIRECT, codeVerifier: verifier })
      yield* revokeToken(other, first.refresh_token, "refresh_token")
      yield* verifyAccessToken(first.access_token)
      yield* revokeToken(rp, first.refresh_token, "refresh_token")
      expect((yield* Effect.flip(verifyAccessToken(first.access_token)))._tag).toBe("InvalidOrExpiredToken")
      expect(yield* grantError(refreshTokens(rp, { refreshToken: first.refresh_token, scope: [] }))).toBe("invalid_grant: refresh token was revoked")
    }).pipe(Effect.provide(coreTestLayer())),
  )
})
