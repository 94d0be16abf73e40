/** Access tokens: ES256 JWTs (RFC 9068 `at+jwt`) signed inside the KeyStore, verified with `jose` (see jws.ts). */
import { Clock, Effect, Option } from "effect"
import type { JWTPayload } from "jose"
import { InsufficientScope, InvalidOrExpiredToken, MissingAuthorizationHeader, TokenMissingSubject } from "./errors.ts"
import { EngineConfig, issuerOf, type EngineSettings } from "../ports/engine-config.ts"
import { KeyStore, type KeyInfo } from "../ports/key-store.ts"
import { SigningKeys, TokenRevocations } from "../oidc/ports.ts"
import { uuid } from "../ports/random.ts"
import { acceptedGenerations, acceptedOf, currentSigningKeyId, rsaSigningKeyId, signingKeyId } from "./signing-keys.ts"
import { namedJti, signJwt, verifyJwt } from "./jws.ts"

/** Claims the engine puts in (and reads from) an access token. */
export interface AccessClaims {
  readonly sub: string | undefined
  readonly clientId: string
  readonly scope: ReadonlyArray<string>
  readonly issuedAt: number
  readonly expiresAt: number
  /** the token's id, by which it is revoked */
  readonly jti: string
}

/** A signed-in user as the bearer endpoints see them. */
export interface BearerUser {
  readonly userId: string
  readonly clientId: string
  readonly scope: ReadonlyArray<string>
}

/** The KeyStore id of this environment's first token-signing key; the environment in it keeps sandbox and production apart. */
export const accessTokenKeyId = (s: Pick<EngineSettings, "environment">): string => signingKeyId(s, 1)

/**
 * The JWKS document: the public halves of the accepted token keys (current and previous
 * generation), each generation's ES256 key and its RS256 ID-token key.
 */
export const jwks = Effect.gen(function* () {
  const settings = yield* EngineConfig
  const store = yield* KeyStore
  const keys: Array<KeyInfo> = []
  for (const seq of yield* acceptedGenerations) {
    keys.push(yield* store.ensure(signingKeyId(settings, seq), "ES256"))
    keys.push(yield* store.ensure(rsaSigningKeyId(settings, seq), "RS256"))
  }
  return { keys: keys.map((k) => ({ ...k.publicJwk, kid: k.keyId, alg: k.algorithm, use: "sig" })) }
})

/** Issues an access token for a user (`sub`) or, without `sub`, for the RP's own backend. */
export const issueAccessToken = (input: { readonly sub?: string; readonly clientId: string; readonly scope: ReadonlyArray<string> }) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const issuer = issuerOf(settings)
    const jti = yield* uuid
    const token = yield* signJwt(yield* currentSigningKeyId, "at+jwt", {
      iss: issuer,
      ...(input.sub !== undefined ? { sub: input.sub } : {}),
      aud: issuer,
      client_id: input.clientId,
      scope: input.scope.join(" "),
      iat: now,
      exp: now + settings.accessTokenTtlSeconds,
      jti,
    })
    return { token, expiresIn: settings.accessTokenTtlSeconds, jti, expiresAt: now + settings.accessTokenTtlSeconds }
  })

/** Verifies a token's signature, issuer, audience, type and lifetime (at the Clock's time), and that it was not revoked. */
export const verifyAccessToken = (token: string) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const issuer = issuerOf(settings)
    // One read for the keys that verify and the token's revocation (RFC 7009, refresh-token reuse), which
    // must stop a token before it expires; the revocation counts only once the signature proved the `jti`.
    const named = namedJti(token)
    const { generations, revoked } = yield* Effect.flatMap(SigningKeys, (k) => k.listWithRevocation(settings.environment, named))
    const keyIds = acceptedOf(generations).map((seq) => signingKeyId(settings, seq))
    const payload = yield* verifyJwt(token, { keyIds, typ: "at+jwt", issuer, audience: issuer })
    if (payload === undefined) return yield* new InvalidOrExpiredToken()
    const claims = claimsOf(payload)
    if (claims.jti === "") return claims
    const isRevoked = claims.jti === named ? revoked : yield* Effect.flatMap(TokenRevocations, (r) => r.isRevoked(claims.jti))
    if (isRevoked) return yield* new InvalidOrExpiredToken()
    return claims
  })

const claimsOf = (p: JWTPayload): AccessClaims => ({
  sub: typeof p.sub === "string" && p.sub.length > 0 ? p.sub : undefined,
  clientId: typeof p["client_id"] === "string" ? p["client_id"] : "",
  scope: typeof p["scope"] === "string" ? p["scope"].split(" ").filter((s) => s.length > 0) : [],
  issuedAt: p.iat ?? 0,
  expiresAt: p.exp ?? 0,
  jti: typeof p.jti === "string" ? p.jti : "",
})

/**
 * Bearer authentication with the spec's exact messages: no header, a token that does not
 * verify, a token without `sub`; then the `basic` scope a user endpoint needs.
 */
export const authenticateBearer = (authorization: Option.Option<string>, requiredScope = "basic") =>
  Effect.gen(function* () {
    if (Option.isNone(authorization) || authorization.value.trim() === "") return yield* new MissingAuthorizationHeader()
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.value)
    if (match === null) return yield* new InvalidOrExpiredToken()
    const claims = yield* verifyAccessToken(match[1]!)
    if (claims.sub === undefined) return yield* new TokenMissingSubject()
    if (!claims.scope.includes(requiredScope)) return yield* new InsufficientScope({ scope: requiredScope })
    return { userId: claims.sub, clientId: claims.clientId, scope: claims.scope } satisfies BearerUser
  })
