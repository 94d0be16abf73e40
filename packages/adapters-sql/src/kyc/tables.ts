/** The kyc module's tables: identity verifications, captures, images, audit and per-RP settings. */
import type { Generated } from "kysely"
import type { BigIntColumn, NullableBigIntColumn, FlagColumn } from "../columns.ts"

/** `kyc_verifications`: one customer's verification at one RP. */
export interface KycVerificationsTable {
  readonly id: string
  readonly client_id: string
  readonly customer_id: string
  readonly phone_number: string
  readonly rp_urn: string | null
  readonly status: string
  /** JSON of the extracted document fields */
  readonly document: string | null
  readonly liveness_score: number | null
  readonly face_match_score: number | null
  /** JSON array of reason codes */
  readonly reasons: string
  readonly session_token_hash: string | null
  readonly session_expires_at: NullableBigIntColumn
  readonly selfie_image_id: string | null
  readonly created_at: BigIntColumn
  readonly updated_at: BigIntColumn
  readonly version: number
}

/** `kyc_captures`: confirmed liveness captures (one-time transaction ids). */
export interface KycCapturesTable {
  readonly id: string
  readonly verification_id: string
  readonly liveness_score: number
  readonly selfie_image_id: string
  readonly created_at: BigIntColumn
  readonly consumed_at: NullableBigIntColumn
}

/** `kyc_images`: document images and selfies, encrypted. */
export interface KycImagesTable {
  readonly id: string
  readonly verification_id: string
  readonly kind: string
  readonly position: number
  readonly content_type: string
  readonly ciphertext: string
  readonly created_at: BigIntColumn
}

/** `kyc_audit`: the append-only KYC audit log. */
export interface KycAuditTable {
  readonly seq: Generated<number>
  readonly verification_id: string
  readonly client_id: string
  readonly action: string
  readonly from_status: string | null
  readonly to_status: string | null
  readonly reasons: string
  readonly at: BigIntColumn
}

/** `kyc_settings`: whether KYC is enabled for an RP, and its identity scope. */
export interface KycSettingsTable {
  readonly client_id: string
  readonly enabled: FlagColumn
  readonly identity_scope: string
  readonly updated_at: BigIntColumn
}

declare module "../database.ts" {
  interface Database {
    readonly kyc_verifications: KycVerificationsTable
    readonly kyc_captures: KycCapturesTable
    readonly kyc_images: KycImagesTable
    readonly kyc_audit: KycAuditTable
    readonly kyc_settings: KycSettingsTable
  }
}
