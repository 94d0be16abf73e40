/** The rp module's tables: relying parties and their organisation checks. */
import type { Generated } from "kysely"
import type { BigIntColumn, NullableBigIntColumn, FlagColumn } from "../columns.ts"

/** `relying_parties`: one row per registered application. */
export interface RelyingPartiesTable {
  readonly id: Generated<number>
  readonly client_id: string
  readonly name: string
  readonly environment: string
  readonly client_secret_hash: string
  readonly ssc_secret_hash: string
  readonly status: string
  readonly max_loa: string
  readonly kyc_verified: FlagColumn
  /** JSON array of origins */
  readonly signing_origins: string
  readonly webauthn_rp_id: string
  readonly plan: string | null
  /** JSON of the custom allowance */
  readonly custom_allowance: string | null
  readonly contact_user_id: string | null
  readonly created_at: BigIntColumn
  readonly updated_at: BigIntColumn
  /** JSON array of OAuth / OpenID Connect redirect URIs (migration 0009) */
  readonly redirect_uris: string
  /** JSON array of post-logout redirect URIs (migration 0007) */
  readonly post_logout_redirect_uris: string
  readonly requested_plan: string | null
  readonly retired_client_secret_hash: string | null
  readonly retired_client_secret_until: NullableBigIntColumn
  readonly retired_ssc_secret_hash: string | null
  readonly retired_ssc_secret_until: NullableBigIntColumn
  /** RS256 or ES256 (migration 0015; rows from before it are ES256) */
  readonly id_token_signed_response_alg: string
}

/** `rp_organisation_checks`: the organisation-KYC record of RPs (append-only). */
export interface RpOrganisationChecksTable {
  readonly id: Generated<number>
  readonly client_id: string
  readonly status: string
  readonly legal_name: string
  readonly registration_number: string
  readonly country: string
  /** JSON array of { kind, reference } */
  readonly documents: string
  readonly submitted_by: string | null
  readonly checked_by: string | null
  readonly note: string | null
  readonly created_at: BigIntColumn
}

declare module "../database.ts" {
  interface Database {
    readonly relying_parties: RelyingPartiesTable
    readonly rp_organisation_checks: RpOrganisationChecksTable
  }
}
