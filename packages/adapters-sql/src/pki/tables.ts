/** The pki module's tables: the software KeyStore's key records and the certificates the CA issued. */
import type { BigIntColumn, NullableBigIntColumn } from "../columns.ts"

/** `keys`: the software KeyStore's encrypted key records. */
export interface KeysTable {
  readonly key_id: string
  readonly algorithm: string
  readonly public_jwk: string
  readonly encrypted_private_key: string
  readonly created_at: BigIntColumn
}

/** `certificates`: everything the engine's CA issued. */
export interface CertificatesTable {
  readonly serial: string
  readonly kind: string
  readonly environment: string
  readonly user_id: string | null
  readonly key_id: string
  readonly subject: string
  readonly issuer_serial: string | null
  /** base64 DER */
  readonly der: string
  readonly not_before: BigIntColumn
  readonly not_after: BigIntColumn
  readonly status: string
  readonly revoked_at: NullableBigIntColumn
  readonly revocation_reason: string | null
  readonly created_at: BigIntColumn
}

declare module "../database.ts" {
  interface Database {
    readonly keys: KeysTable
    readonly certificates: CertificatesTable
  }
}
