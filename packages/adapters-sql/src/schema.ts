/**
 * The kysely view of the tables. Row types are not domain types: a `bigint` column reads
 * back as a number on SQLite and a string on PostgreSQL, JSON is text and booleans are
 * 0/1, so every row is decoded through a Schema (see `rows.ts`) before the domain sees it.
 */
import type { ColumnType, Generated } from "kysely"

/** A `bigint` column (ms timestamps, counters): number on SQLite, string on PostgreSQL; written as a number. */
export type BigIntColumn = ColumnType<number | string, number, number>

/** A nullable `bigint` column. */
export type NullableBigIntColumn = ColumnType<number | string | null, number | null, number | null>

/** A boolean stored as integer 0/1 on both databases. */
export type FlagColumn = ColumnType<number, number, number>

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

/** `keys`: the software KeyStore's encrypted key records. */
export interface KeysTable {
  readonly key_id: string
  readonly algorithm: string
  readonly public_jwk: string
  readonly encrypted_private_key: string
  readonly created_at: BigIntColumn
}

/** Every table of the engine, as kysely's `DB` type parameter. */
export interface Database {
  readonly relying_parties: RelyingPartiesTable
  readonly rp_organisation_checks: RpOrganisationChecksTable
  readonly users: UsersTable
  readonly passkeys: PasskeysTable
  readonly ceremonies: CeremoniesTable
  readonly hosted_sessions: HostedSessionsTable
  readonly keys: KeysTable
  readonly certificates: CertificatesTable
  readonly signing_requests: SigningRequestsTable
  readonly batches: BatchesTable
  readonly signing_events: SigningEventsTable
  readonly quota_counters: QuotaCountersTable
  readonly ssc_operations: SscOperationsTable
  readonly webhook_subscriptions: WebhookSubscriptionsTable
  readonly deliveries: DeliveriesTable
  readonly delivery_attempts: DeliveryAttemptsTable
  readonly kyc_verifications: KycVerificationsTable
  readonly kyc_captures: KycCapturesTable
  readonly kyc_images: KycImagesTable
  readonly kyc_audit: KycAuditTable
  readonly kyc_settings: KycSettingsTable
  readonly oidc_codes: OidcCodesTable
  readonly oidc_refresh_tokens: OidcRefreshTokensTable
  readonly oidc_consents: OidcConsentsTable
  readonly oidc_revocations: OidcRevocationsTable
  readonly oidc_signing_keys: OidcSigningKeysTable
  readonly session_sign_ins: SessionSignInsTable
  readonly checkouts: CheckoutsTable
  readonly subscriptions: SubscriptionsTable
  readonly identity_providers: IdentityProvidersTable
  readonly external_logins: ExternalLoginsTable
  readonly identity_links: IdentityLinksTable
  readonly link_offers: LinkOffersTable
  readonly email_verifications: EmailVerificationsTable
  readonly encrypted_files: EncryptedFilesTable
  readonly encrypted_file_recipients: EncryptedFileRecipientsTable
  readonly signature_images: SignatureImagesTable
  readonly prepared_pdfs: PreparedPdfsTable
  readonly step_up_proofs: StepUpProofsTable
  readonly audit_events: AuditEventsTable
}

/** `step_up_proofs`: single-use proofs of a fresh passkey approval (migration 0013). */
export interface StepUpProofsTable {
  readonly proof_hash: string
  readonly user_id: string
  readonly client_id: string
  readonly action: string
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly consumed_at: NullableBigIntColumn
}

/** `audit_events`: the append-only trail of security events (migration 0013). */
export interface AuditEventsTable {
  readonly id: string
  readonly at: BigIntColumn
  readonly action: string
  readonly actor_user_id: string | null
  readonly actor_client_id: string | null
  readonly subject: string
  /** JSON object */
  readonly detail: string
}

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

/** `webhook_subscriptions`: events is JSON text. */
export interface WebhookSubscriptionsTable {
  readonly id: Generated<number>
  readonly rp_id: number
  readonly client_id: string
  readonly owner_user_id: string
  readonly url: string
  readonly events: string
  readonly secret: string
  readonly active: FlagColumn
  readonly created_at: BigIntColumn
}

/** `deliveries`: the outbox. */
export interface DeliveriesTable {
  readonly id: Generated<number>
  readonly kind: string
  readonly subscription_id: number | null
  readonly client_id: string
  readonly url: string
  readonly event_type: string
  readonly message_id: string
  readonly ordering_key: string
  readonly payload: string
  readonly status: string
  readonly attempts: number
  readonly next_attempt_at: BigIntColumn
  readonly locked_until: BigIntColumn
  readonly last_status: number | null
  readonly last_error: string | null
  readonly created_at: BigIntColumn
  readonly delivered_at: NullableBigIntColumn
}

/** `delivery_attempts`: one row per attempt. */
export interface DeliveryAttemptsTable {
  readonly delivery_id: number
  readonly attempt: number
  readonly at: BigIntColumn
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: BigIntColumn
}

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

/** `checkouts`: attempts to pay for a plan; `rate_quote` is the JSON of the quote it was priced with. */
export interface CheckoutsTable {
  readonly id: string
  readonly client_id: string
  readonly user_id: string
  readonly plan: string
  readonly period: string
  readonly method: string
  readonly price_usd_minor: BigIntColumn
  readonly currency: string
  readonly amount_minor: BigIntColumn
  readonly rate_quote: string | null
  readonly status: string
  readonly provider_reference: string | null
  readonly failure_reason: string | null
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly updated_at: BigIntColumn
  readonly paid_at: NullableBigIntColumn
}

/** `subscriptions`: paid terms of a plan; `checkout_id` is unique (one term per payment). */
export interface SubscriptionsTable {
  readonly id: string
  readonly client_id: string
  readonly plan: string
  readonly period: string
  readonly checkout_id: string
  readonly starts_at: BigIntColumn
  readonly ends_at: BigIntColumn
  readonly created_at: BigIntColumn
}
// ---------------------------------------------------------------- external identity providers (migration 0008)

/** `identity_providers`: external OpenID providers, engine-wide or owned by one RP. */
export interface IdentityProvidersTable {
  readonly id: string
  readonly owner_client_id: string | null
  readonly name: string
  readonly issuer: string
  readonly client_id: string
  /** base64 of the Vault-sealed client secret */
  readonly client_secret_sealed: string
  /** JSON array */
  readonly scopes: string
  readonly authorization_endpoint: string
  readonly token_endpoint: string
  readonly jwks_uri: string
  readonly userinfo_endpoint: string | null
  readonly created_at: BigIntColumn
}

/** `external_logins`: external sign-ins in flight (state, nonce, PKCE verifier), used once. */
export interface ExternalLoginsTable {
  /** SHA-256 hex of the `state` sent to the provider */
  readonly id: string
  readonly provider_id: string
  readonly nonce: string
  readonly code_verifier: string
  readonly browser_binding_hash: string
  readonly return_to: string
  readonly link_user_id: string | null
  readonly client_id: string | null
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly consumed_at: NullableBigIntColumn
}

/** `identity_links`: an external identity (issuer + subject) linked to a Signet account. */
export interface IdentityLinksTable {
  readonly id: string
  readonly user_id: string
  readonly provider_id: string
  readonly issuer: string
  readonly subject: string
  readonly email: string | null
  readonly created_at: BigIntColumn
}

/** `link_offers`: an external identity waiting for the account holder's passkey before it is linked. */
export interface LinkOffersTable {
  readonly id: string
  readonly user_id: string
  readonly provider_id: string
  readonly issuer: string
  readonly subject: string
  readonly email: string | null
  readonly browser_binding_hash: string
  readonly return_to: string
  readonly client_id: string | null
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly consumed_at: NullableBigIntColumn
}

/** `encrypted_files`: documents stored as CMS AuthEnvelopedData. */
export interface EncryptedFilesTable {
  readonly id: string
  readonly owner_user_id: string
  readonly name: string
  readonly size: BigIntColumn
  readonly envelope: string
  readonly created_at: BigIntColumn
}

/** `encrypted_file_recipients`: who a file is addressed to, in order. */
export interface EncryptedFileRecipientsTable {
  readonly file_id: string
  readonly user_id: string
  readonly position: number
}

/** `signature_images`: signers' own images, sealed in the Vault. */
export interface SignatureImagesTable {
  readonly user_id: string
  readonly sealed: string
  readonly width: number
  readonly height: number
  readonly size: number
  readonly updated_at: BigIntColumn
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
