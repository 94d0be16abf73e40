/** OpenID provider aggregates: authorization codes, refresh-token families, consents, revocations and signing keys. */
import { Schema } from "effect"

/** Scopes the provider offers: `openid` (an ID token), `basic` (the `/v2/*` user endpoints), `email`, `profile`. */
export const OIDC_SCOPES: ReadonlyArray<string> = ["openid", "basic", "email", "profile", "files", "certificates"]

/** A one-time authorization code (stored by the SHA-256 of the code), bound to client, redirect URI and PKCE challenge. */
export const AuthorizationCode = Schema.Struct({
  codeHash: Schema.String,
  clientId: Schema.String,
  userId: Schema.String,
  redirectUri: Schema.String,
  scope: Schema.Array(Schema.String),
  nonce: Schema.NullOr(Schema.String),
  /** base64url SHA-256 of the PKCE code verifier (S256) */
  codeChallenge: Schema.String,
  /** when the user authenticated, seconds since the epoch */
  authTime: Schema.Number,
  /** RFC 8176 authentication method references */
  amr: Schema.Array(Schema.String),
  /** the token family the code's tokens belong to, so reuse of the code revokes them */
  familyId: Schema.String,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  consumedAt: Schema.NullOr(Schema.Number),
})
/** A one-time authorization code (stored by the SHA-256 of the code), bound to client, redirect URI and PKCE challenge. */
export type AuthorizationCode = typeof AuthorizationCode.Type

/**
 * One refresh token of a family (the grant a code started). Each use rotates it: the token is
 * marked used and a new one joins the family; a used token presented again revokes the family.
 */
export const RefreshToken = Schema.Struct({
  tokenHash: Schema.String,
  familyId: Schema.String,
  clientId: Schema.String,
  userId: Schema.String,
  scope: Schema.Array(Schema.String),
  authTime: Schema.Number,
  amr: Schema.Array(Schema.String),
  /** the access token issued together with this refresh token, revoked with the family */
  accessJti: Schema.String,
  accessExpiresAt: Schema.Number,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  usedAt: Schema.NullOr(Schema.Number),
  revokedAt: Schema.NullOr(Schema.Number),
})
/** One refresh token of a family; see the schema. */
export type RefreshToken = typeof RefreshToken.Type

/** The scopes a user allowed a client; asked again only for scopes beyond them. */
export const Consent = Schema.Struct({
  userId: Schema.String,
  clientId: Schema.String,
  scope: Schema.Array(Schema.String),
  grantedAt: Schema.Number,
})
/** The scopes a user allowed a client. */
export type Consent = typeof Consent.Type

/** A token-signing key generation: KeyStore key `keyId`, number `seq` in its environment. */
export const SigningKey = Schema.Struct({
  keyId: Schema.String,
  environment: Schema.String,
  seq: Schema.Int,
  createdAt: Schema.Number,
})
/** A token-signing key generation. */
export type SigningKey = typeof SigningKey.Type

/** Who signed in on a hosted-page session, and how (the ID token's `auth_time` and `amr`). */
export const SessionSignIn = Schema.Struct({
  sessionId: Schema.String,
  userId: Schema.String,
  /** seconds since the epoch */
  authTime: Schema.Number,
  amr: Schema.Array(Schema.String),
})
/** Who signed in on a hosted-page session, and how. */
export type SessionSignIn = typeof SessionSignIn.Type

/** The JWS algorithms an ID token may be signed with (OIDC Discovery requires RS256). */
export const ID_TOKEN_ALGORITHMS = ["RS256", "ES256"] as const

/** A client's `id_token_signed_response_alg` (OIDC Dynamic Client Registration §2); RS256 when it names none. */
export const IdTokenAlgorithm = Schema.Literal(...ID_TOKEN_ALGORITHMS)
/** The JWS algorithms an ID token may be signed with. */
export type IdTokenAlgorithm = typeof IdTokenAlgorithm.Type
