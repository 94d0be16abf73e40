/** The oidc module's tables: the OpenID provider's codes, tokens, consents, keys and hosted-session sign-ins. */
import type { BigIntColumn } from "../columns.ts"

/** `oidc_codes`: one-time authorization codes by the SHA-256 of the code; scope and amr are JSON. */
export interface OidcCodesTable {
  readonly code_hash: string
  readonly client_id: string
  readonly user_id: string
  readonly redirect_uri: string
  readonly scope: string
  readonly nonce: string | null
  readonly code_challenge: string
  readonly auth_time: BigIntColumn
  readonly amr: string
  readonly family_id: string
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly consumed_at: BigIntColumn | null
}

/** `oidc_refresh_tokens`: refresh tokens by hash, grouped in families; scope and amr are JSON. */
export interface OidcRefreshTokensTable {
  readonly token_hash: string
  readonly family_id: string
  readonly client_id: string
  readonly user_id: string
  readonly scope: string
  readonly auth_time: BigIntColumn
  readonly amr: string
  readonly access_jti: string
  readonly access_expires_at: BigIntColumn
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly used_at: BigIntColumn | null
  readonly revoked_at: BigIntColumn | null
}

/** `oidc_consents`: one row per user and client; scope is JSON. */
export interface OidcConsentsTable {
  readonly user_id: string
  readonly client_id: string
  readonly scope: string
  readonly granted_at: BigIntColumn
}

/** `oidc_revocations`: revoked access-token ids until the token's expiry. */
export interface OidcRevocationsTable {
  readonly jti: string
  readonly expires_at: BigIntColumn
}

/** `oidc_signing_keys`: token-signing key generations per environment. */
export interface OidcSigningKeysTable {
  readonly key_id: string
  readonly environment: string
  readonly seq: number
  readonly created_at: BigIntColumn
}

/** `session_sign_ins`: who signed in on a hosted-page session; amr is JSON. */
export interface SessionSignInsTable {
  readonly session_id: string
  readonly user_id: string
  readonly auth_time: BigIntColumn
  readonly amr: string
}

declare module "../database.ts" {
  interface Database {
    readonly oidc_codes: OidcCodesTable
    readonly oidc_refresh_tokens: OidcRefreshTokensTable
    readonly oidc_consents: OidcConsentsTable
    readonly oidc_revocations: OidcRevocationsTable
    readonly oidc_signing_keys: OidcSigningKeysTable
    readonly session_sign_ins: SessionSignInsTable
  }
}
