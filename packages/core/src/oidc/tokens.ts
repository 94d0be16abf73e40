/**
 * The token endpoint's grants (RFC 6749 §4.1.3 and §6, RFC 7636 §4.6, OpenID Connect Core §3.1.3),
 * ID tokens, revocation (RFC 7009), userinfo (OIDC §5.3) and the ID-token hint of RP-initiated logout.
 * Refresh tokens rotate on every use; a used refresh token or authorization code presented
 * again revokes every token of its family (RFC 9700 §4.14.2, RFC 6749 §4.1.2).
 */
import { Clock, Effect, Option } from "effect"
import { base64url } from "jose"
import { OAuthError } from "./errors.ts"
import { hashSecret } from "../kernel/secrets.ts"
import { jsonDepthProblem } from "../kernel/json-depth.ts"
import { acceptedIdTokenKeyIds, currentIdTokenKeyId } from "../identity/signing-keys.ts"
import { AuthorizationCodes, RefreshTokens, TokenRevocations } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import { Users } from "../identity/ports.ts"
import type { RelyingParty } from "../rp/model.ts"
import type { RefreshToken, IdTokenAlgorithm } from "./model.ts"
import { authenticateBearer, issueAccessToken, verifyAccessToken } from "../identity/access-token.ts"
import { signJwt, verifyJwt } from "../identity/jws.ts"
import { sha256 } from "../kernel/digest.ts"
import { utf8 } from "../kernel/encoding.ts"
import { EngineConfig, issuerOf } from "../ports/engine-config.ts"
import { token } from "../ports/random.ts"
import { findRelyingParty } from "../rp/relying-parties.ts"

/** Lifetime of a refresh token; each rotation starts a new one. */
export const REFRESH_TTL_SECONDS = 30 * 24 * 3600

/** The token response of the code and refresh grants. */
export interface OidcTokenResponse {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly scope: string
  readonly refresh_token: string
  readonly id_token?: string
}

const invalidGrant = (description: string) => new OAuthError({ code: "invalid_grant", description })

/** base64url of the left half of SHA-256 of the ASCII token (`at_hash`, OIDC Core §3.1.3.6; both RS256 and ES256 hash with SHA-256). */
const leftHalfHash = (value: string) => Effect.map(sha256(utf8(value)), (h) => base64url.encode(h.slice(0, h.length / 2)))

/** Signs an ID token for `clientId` with the claims the scopes allow, with the client's `id_token_signed_response_alg`. */
export const issueIdToken = (input: {
  readonly userId: string
  readonly clientId: string
  readonly scope: ReadonlyArray<string>
  readonly nonce: string | null
  readonly authTime: number
  readonly amr: ReadonlyArray<string>
  readonly accessToken: string
  readonly alg: IdTokenAlgorithm
}) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const user = yield* Effect.flatMap(Users, (u) => u.findById(input.userId))
    if (Option.isNone(user)) return yield* invalidGrant("the user no longer exists")
    return yield* signJwt(
      yield* currentIdTokenKeyId(input.alg),
      "JWT",
      {
        iss: issuerOf(settings),
        sub: input.userId,
        aud: input.clientId,
        azp: input.clientId,
        iat: now,
        exp: now + settings.accessTokenTtlSeconds,
        auth_time: input.authTime,
        ...(input.nonce !== null ? { nonce: input.nonce } : {}),
        at_hash: yield* leftHalfHash(input.accessToken),
        ...(input.amr.length > 0 ? { amr: input.amr } : {}),
        ...(input.scope.includes("email") ? { email: user.value.email, email_verified: false } : {}),
        ...(input.scope.includes("profile") ? { name: user.value.displayName } : {}),
      },
      input.alg,
    )
  })

/** Access token, refresh token (a new member of `familyId`) and, with `openid`, an ID token. */
const issueTokens = (input: {
  readonly userId: string
  readonly clientId: string
  readonly scope: ReadonlyArray<string>
  readonly nonce: string | null
  readonly authTime: number
  readonly amr: ReadonlyArray<string>
  readonly familyId: string
  readonly idTokenAlg: IdTokenAlgorithm
}) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const access = yield* issueAccessToken({ sub: input.userId, clientId: input.clientId, scope: input.scope })
    const refresh = yield* token(32)
    const tokenHash = yield* hashSecret(refresh)
    yield* Effect.flatMap(RefreshTokens, (r) =>
      r.insert({
        tokenHash,
        familyId: input.familyId,
        clientId: input.clientId,
        userId: input.userId,
        scope: input.scope,
        authTime: input.authTime,
        amr: input.amr,
        accessJti: access.jti,
        accessExpiresAt: access.expiresAt * 1000,
        createdAt: now,
        expiresAt: now + REFRESH_TTL_SECONDS * 1000,
        usedAt: null,
        revokedAt: null,
      }),
    ).pipe(Effect.orDie)
    const idToken = input.scope.includes("openid") ? yield* issueIdToken({ ...input, accessToken: access.token, alg: input.idTokenAlg }) : undefined
    return {
      access_token: access.token,
      token_type: "Bearer" as const,
      expires_in: access.expiresIn,
      scope: input.scope.join(" "),
      refresh_token: refresh,
      ...(idToken !== undefined ? { id_token: idToken } : {}),
    } satisfies OidcTokenResponse
  })

/** Revokes every refresh token of a family and every access token issued with them. */
export const revokeFamily = (familyId: string) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const members = yield* Effect.flatMap(RefreshTokens, (r) => r.revokeFamily(familyId, now))
    const revocations = yield* TokenRevocations
    for (const m of members) if (m.accessExpiresAt > now) yield* revocations.revoke(m.accessJti, m.accessExpiresAt)
  })

const isVerifier = (v: string) => /^[A-Za-z0-9._~-]{43,128}$/.test(v)

/** `grant_type=authorization_code` for an authenticated client. */
export const exchangeCode = (
  rp: RelyingParty,
  input: { readonly code: string; readonly redirectUri: string | undefined; readonly codeVerifier: string | undefined },
) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const now = yield* Clock.currentTimeMillis
    const codeHash = yield* hashSecret(input.code)
    const codes = yield* AuthorizationCodes
    const consumed = yield* storage.transaction(codes.consume(codeHash, now))
    if (Option.isNone(consumed)) {
      const seen = yield* codes.findByHash(codeHash)
      // A second exchange means the code leaked or was replayed: the first exchange's tokens go too.
      if (Option.isSome(seen) && seen.value.clientId === rp.clientId) yield* revokeFamily(seen.value.familyId)
      return yield* invalidGrant(Option.isSome(seen) ? "authorization code was already used" : "unknown authorization code")
    }
    const code = consumed.value
    if (code.clientId !== rp.clientId) return yield* invalidGrant("authorization code was issued to another client")
    if (code.expiresAt <= now) return yield* invalidGrant("authorization code expired")
    if (input.redirectUri !== code.redirectUri) return yield* invalidGrant("redirect_uri differs from the authorization request")
    if (input.codeVerifier === undefined) return yield* new OAuthError({ code: "invalid_request", description: "code_verifier is required (PKCE)" })
    if (!isVerifier(input.codeVerifier)) return yield* invalidGrant("code_verifier is malformed")
    const computed = base64url.encode(yield* sha256(utf8(input.codeVerifier)))
    if (computed !== code.codeChallenge) return yield* invalidGrant("code_verifier does not match the code_challenge")
    return yield* issueTokens({ ...code, idTokenAlg: rp.idTokenSignedResponseAlg })
  })

/** `grant_type=refresh_token`: rotation, and family revocation on reuse. */
export const refreshTokens = (rp: RelyingParty, input: { readonly refreshToken: string; readonly scope: ReadonlyArray<string> }) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const tokenHash = yield* hashSecret(input.refreshToken)
    const repo = yield* RefreshTokens
    // The client is checked before anything is used up: a token shown to (or stolen by) another
    // client must neither be spent nor trip the reuse detection that revokes its rightful grant.
    const presented = yield* repo.findByHash(tokenHash)
    if (Option.isSome(presented) && presented.value.clientId !== rp.clientId) return yield* invalidGrant("refresh token was issued to another client")
    const consumed = yield* repo.consume(tokenHash, now)
    if (Option.isNone(consumed)) {
      const seen = yield* repo.findByHash(tokenHash)
      if (Option.isSome(seen) && seen.value.clientId === rp.clientId && seen.value.revokedAt === null) {
        // A rotated token came back: one of the two holders is not the client. Stop both.
        yield* revokeFamily(seen.value.familyId)
        return yield* invalidGrant("refresh token was already used; every token of this grant is revoked")
      }
      return yield* invalidGrant(Option.isSome(seen) ? "refresh token was revoked" : "unknown refresh token")
    }
    const old: RefreshToken = consumed.value
    if (old.clientId !== rp.clientId) return yield* invalidGrant("refresh token was issued to another client")
    if (old.expiresAt <= now) return yield* invalidGrant("refresh token expired")
    const extra = input.scope.find((s) => !old.scope.includes(s))
    if (extra !== undefined) return yield* new OAuthError({ code: "invalid_scope", description: `scope ${extra} was not granted` })
    const scope = input.scope.length === 0 ? old.scope : input.scope
    return yield* issueTokens({
      userId: old.userId,
      clientId: rp.clientId,
      scope,
      nonce: null,
      authTime: old.authTime,
      amr: old.amr,
      familyId: old.familyId,
      idTokenAlg: rp.idTokenSignedResponseAlg,
    })
  })

/**
 * RFC 7009 revocation by an authenticated client. A refresh token revokes its whole grant;
 * an access token is refused from then on. Unknown tokens, and tokens of other clients, change
 * nothing and answer the same (§2.2: the client cannot probe).
 */
export const revokeToken = (rp: RelyingParty, value: string, hint: string | undefined) =>
  Effect.gen(function* () {
    const asAccess = Effect.gen(function* () {
      const claims = yield* Effect.option(verifyAccessToken(value))
      if (Option.isNone(claims) || claims.value.clientId !== rp.clientId || claims.value.jti === "") return false
      yield* Effect.flatMap(TokenRevocations, (r) => r.revoke(claims.value.jti, claims.value.expiresAt * 1000))
      return true
    })
    const asRefresh = Effect.gen(function* () {
      const tokenHash = yield* hashSecret(value)
      const found = yield* Effect.flatMap(RefreshTokens, (r) => r.findByHash(tokenHash))
      if (Option.isNone(found) || found.value.clientId !== rp.clientId) return false
      yield* revokeFamily(found.value.familyId)
      return true
    })
    const looksLikeJwt = value.split(".").length === 3
    if (hint === "refresh_token" || !looksLikeJwt) {
      if (!(yield* asRefresh)) yield* asAccess
    } else if (!(yield* asAccess)) yield* asRefresh
  })

/** OIDC Core §5.3 userinfo: needs a user access token with `openid`; claims follow the token's scopes. */
export const userInfo = (authorization: Option.Option<string>) =>
  Effect.gen(function* () {
    const bearer = yield* authenticateBearer(authorization, "openid")
    const user = yield* Effect.flatMap(Users, (u) => u.findById(bearer.userId))
    if (Option.isNone(user)) return yield* invalidGrant("the user no longer exists")
    return {
      sub: user.value.id,
      ...(bearer.scope.includes("email") ? { email: user.value.email, email_verified: false } : {}),
      ...(bearer.scope.includes("profile") ? { name: user.value.displayName } : {}),
    }
  })

/**
 * The `id_token_hint` of RP-initiated logout: an ID token this engine signed (signature and
 * issuer); it may have expired (Logout 1.0 §2). Answers its `sub` and `aud`, or None.
 */
export const readIdTokenHint = (idToken: string, clientId: string | undefined) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const parts = idToken.split(".")
    let claims: { aud?: unknown; iat?: unknown } = {}
    try {
      const text = new TextDecoder().decode(base64url.decode(parts[1] ?? ""))
      // read before its signature is checked: an attacker's text, so within the JSON budget
      if (jsonDepthProblem(text) !== undefined) return Option.none()
      claims = JSON.parse(text)
    } catch {
      return Option.none()
    }
    const aud = typeof claims.aud === "string" ? claims.aud : undefined
    if (aud === undefined || (clientId !== undefined && clientId !== aud) || typeof claims.iat !== "number") return Option.none()
    const payload = yield* verifyJwt(idToken, {
      keyIds: yield* acceptedIdTokenKeyIds,
      typ: "JWT",
      issuer: issuerOf(settings),
      audience: aud,
      at: claims.iat * 1000,
    })
    if (payload === undefined || typeof payload.sub !== "string") return Option.none()
    const rp = yield* findRelyingParty(aud)
    return Option.map(rp, (r) => ({ sub: payload.sub as string, rp: r }))
  })
