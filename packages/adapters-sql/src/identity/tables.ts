/** The identity module's tables: users, passkeys, WebAuthn ceremonies, hosted sessions and e-mail verifications. */
import type { BigIntColumn, NullableBigIntColumn, FlagColumn } from "../columns.ts"

/** `users`: e-mail stored lower-case and unique. */
export interface UsersTable {
  readonly id: string
  readonly email: string
  readonly display_name: string
  readonly created_at: BigIntColumn
  /** migration 0013: when the e-mail was proven; null when only claimed */
  readonly email_verified_at: NullableBigIntColumn
}

/** `passkeys`: primary key is the credential id. */
export interface PasskeysTable {
  readonly id: string
  readonly user_id: string
  readonly public_key: string
  readonly algorithm: number
  readonly counter: BigIntColumn
  readonly rp_id: string
  /** JSON array of transports */
  readonly transports: string
  readonly backed_up: FlagColumn
  readonly created_at: BigIntColumn
  readonly last_used_at: NullableBigIntColumn
}

/** `ceremonies`: WebAuthn challenges in flight, consumed once. */
export interface CeremoniesTable {
  readonly id: string
  readonly kind: string
  readonly challenge: string
  readonly user_id: string | null
  readonly email: string | null
  readonly display_name: string | null
  readonly client_id: string | null
  readonly rp_id: string
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly consumed_at: NullableBigIntColumn
  /** migration 0013: the e-mail verification an enrolment uses up */
  readonly email_verification_id: string | null
}

/** `hosted_sessions`: hosted-page cookies (by the SHA-256 of their value, since migration 0013) and their CSRF token hashes. */
export interface HostedSessionsTable {
  readonly id: string
  readonly csrf_token_hash: string
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  // Who is signed in on a session lives in `session_sign_ins` (migration 0007).
}

/** `email_verifications`: one-time e-mail codes (hashed with their id) in flight (migration 0013). */
export interface EmailVerificationsTable {
  readonly id: string
  readonly email: string
  readonly code_hash: string
  readonly attempts: number
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly verified_at: NullableBigIntColumn
  readonly consumed_at: NullableBigIntColumn
}

declare module "../database.ts" {
  interface Database {
    readonly users: UsersTable
    readonly passkeys: PasskeysTable
    readonly ceremonies: CeremoniesTable
    readonly hosted_sessions: HostedSessionsTable
    readonly email_verifications: EmailVerificationsTable
  }
}
