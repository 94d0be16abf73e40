/** The signing module's tables: hash signing requests, batches, the signing event log and quota counters. */
import type { Generated } from "kysely"
import type { BigIntColumn, NullableBigIntColumn } from "../columns.ts"

/** `signing_requests`: single hash signing requests. */
export interface SigningRequestsTable {
  readonly id: string
  readonly user_id: string
  readonly client_id: string
  readonly credential_id: string
  readonly document_hash: string
  readonly document_name: string | null
  readonly signature_format: string
  readonly loa: string
  readonly callback_url: string | null
  readonly rp_origin: string | null
  readonly status: string
  readonly nonce: string
  readonly failed_attempts: number
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly completed_at: NullableBigIntColumn
  readonly signature: string | null
  readonly certificate_serial: string | null
  readonly error_message: string | null
}

/** `batches`: batch signing requests; documents and results are JSON text. */
export interface BatchesTable {
  readonly id: string
  readonly user_id: string
  readonly client_id: string
  readonly credential_id: string
  readonly documents: string
  readonly callback_url: string | null
  readonly status: string
  readonly nonce: string
  readonly failed_attempts: number
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly completed_at: NullableBigIntColumn
  readonly results: string | null
  readonly error_message: string | null
}

/** `signing_events`: the append-only event log; `seq` orders it. */
export interface SigningEventsTable {
  readonly seq: Generated<number>
  readonly type: string
  readonly subject_id: string
  readonly subject_kind: string
  readonly user_id: string
  readonly client_id: string
  readonly status: string
  readonly document_hash: string
  readonly created_at: BigIntColumn
  readonly signed_at: NullableBigIntColumn
  readonly error_message: string | null
  readonly recorded_at: BigIntColumn
}

/** `quota_counters`: one row per counter window. */
export interface QuotaCountersTable {
  readonly key: string
  readonly count: BigIntColumn
  readonly expires_at: BigIntColumn
}

declare module "../database.ts" {
  interface Database {
    readonly signing_requests: SigningRequestsTable
    readonly batches: BatchesTable
    readonly signing_events: SigningEventsTable
    readonly quota_counters: QuotaCountersTable
  }
}
