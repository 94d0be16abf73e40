/** The ssc module's tables: operations of the signing-token flow. */
import type { BigIntColumn, NullableBigIntColumn } from "../columns.ts"

/** `ssc_operations`: operations of the signing-token flow. */
export interface SscOperationsTable {
  readonly id: string
  readonly client_id: string
  readonly token_id: string
  readonly document_hash: string
  readonly document_name: string
  readonly loa: string
  readonly mode: string
  readonly rp_origin: string
  readonly user_id: string | null
  readonly credential_id: string | null
  readonly status: string
  readonly nonce: string
  readonly failed_attempts: number
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly completed_at: NullableBigIntColumn
  readonly signature_id: string | null
  readonly signature: string | null
  readonly certificate_serial: string | null
  readonly error_message: string | null
}

declare module "../database.ts" {
  interface Database {
    readonly ssc_operations: SscOperationsTable
  }
}
