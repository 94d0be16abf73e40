/** The pades module's tables: PDFs prepared for PAdES signing. */
import type { BigIntColumn } from "../columns.ts"

/** `prepared_pdfs`: PDFs prepared for PAdES signing, sealed by the Vault, by signing request. */
export interface PreparedPdfsTable {
  readonly request_id: string
  readonly client_id: string
  readonly user_id: string
  readonly sealed: Uint8Array
  readonly contents_offset: BigIntColumn
  readonly contents_bytes: number
  readonly field_name: string
  /** `PAdES-BASELINE-B`, `-T` or `-LT` (migration 0012) */
  readonly level: string
  readonly created_at: BigIntColumn
}

declare module "../database.ts" {
  interface Database {
    readonly prepared_pdfs: PreparedPdfsTable
  }
}
