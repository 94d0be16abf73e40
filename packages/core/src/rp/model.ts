/** The relying-party aggregate: an application registered with the engine. */
import { Schema } from "effect"
import { IdTokenAlgorithm } from "../oidc/model.ts"
import { Environment } from "../ports/engine-config.ts"

/** The levels of assurance the interface names. */
export const Loa = Schema.Literal("LOA-2", "LOA-4")
/** The levels of assurance the interface names. */
export type Loa = typeof Loa.Type

/** Plan identifiers. */
export const PlanId = Schema.Literal("starter", "business", "enterprise")
/** Plan identifiers. */
export type PlanId = typeof PlanId.Type

/** Approval status; only `approved` RPs may obtain tokens. */
export const RpStatus = Schema.Literal("pending", "approved", "rejected", "suspended")
/** Approval status; only `approved` RPs may obtain tokens. */
export type RpStatus = typeof RpStatus.Type

/** Custom allowance agreed with sales (Enterprise). */
export const AllowanceSchema = Schema.Struct({
  signaturesPerDay: Schema.Int,
  documentsPerBatch: Schema.Int,
  requestsPerMinute: Schema.Int,
  highestLoa: Loa,
})

/** A secret replaced by rotation that keeps working until `validUntil` (ms), so RP servers can switch over. */
export const RetiredSecret = Schema.Struct({ hash: Schema.String, validUntil: Schema.Number })
/** A secret replaced by rotation that keeps working until `validUntil` (ms), so RP servers can switch over. */
export type RetiredSecret = typeof RetiredSecret.Type

/** A relying party as the domain sees it; secrets only as SHA-256 hashes (hex). */
export const RelyingParty = Schema.Struct({
  id: Schema.Int,
  clientId: Schema.String,
  name: Schema.String,
  environment: Environment,
  clientSecretHash: Schema.String,
  sscSecretHash: Schema.String,
  status: RpStatus,
  maxLoa: Loa,
  kycVerified: Schema.Boolean,
  signingOrigins: Schema.Array(Schema.String),
  webauthnRpId: Schema.String,
  plan: Schema.NullOr(PlanId),
  customAllowance: Schema.NullOr(AllowanceSchema),
  contactUserId: Schema.NullOr(Schema.String),
  /** OAuth / OpenID Connect redirect URIs, matched exactly at `/authorize`; registered by the contact */
  redirectUris: Schema.Array(Schema.String),
  /** where RP-initiated logout may send the user back to, matched exactly */
  postLogoutRedirectUris: Schema.Array(Schema.String),
  /** the plan the contact asked for at registration; the plan in force is `plan` */
  requestedPlan: Schema.NullOr(PlanId),
  /** the client secret before the last rotation, valid during the grace period */
  retiredClientSecret: Schema.NullOr(RetiredSecret),
  /** the SSC secret before the last rotation, valid during the grace period */
  retiredSscSecret: Schema.NullOr(RetiredSecret),
  /** `id_token_signed_response_alg`: how this client's ID tokens are signed (RS256 for new clients, ES256 for those registered before RS256 existed) */
  idTokenSignedResponseAlg: IdTokenAlgorithm,
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
})
/** A relying party as the domain sees it; secrets only as SHA-256 hashes (hex). */
export type RelyingParty = typeof RelyingParty.Type

/** A relying party before storage gives it an id. */
export type NewRelyingParty = Omit<RelyingParty, "id">

/** `submitted` by the contact; `verified` or `rejected` by an administrator's check. */
export const OrganisationCheckStatus = Schema.Literal("submitted", "verified", "rejected")
/** `submitted` by the contact; `verified` or `rejected` by an administrator's check. */
export type OrganisationCheckStatus = typeof OrganisationCheckStatus.Type

/** A document of the organisation: what it is and how to find it again (number, file reference). */
export const OrganisationDocument = Schema.Struct({
  kind: Schema.String.annotations({ description: "e.g. certificate_of_incorporation, tax_registration, director_id" }),
  reference: Schema.String.annotations({ description: "the document's number or the reference of the copy on file" }),
})
/** A document of the organisation: what it is and how to find it again. */
export type OrganisationDocument = typeof OrganisationDocument.Type

/** One entry of the organisation-KYC record. */
export const OrganisationCheck = Schema.Struct({
  id: Schema.Int,
  clientId: Schema.String,
  status: OrganisationCheckStatus,
  legalName: Schema.String,
  registrationNumber: Schema.String,
  /** ISO 3166-1 alpha-2 */
  country: Schema.String,
  documents: Schema.Array(OrganisationDocument),
  /** the contact account that submitted (submissions) */
  submittedBy: Schema.NullOr(Schema.String),
  /** the administrator who checked (checks) */
  checkedBy: Schema.NullOr(Schema.String),
  note: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
})
/** One entry of the organisation-KYC record. */
export type OrganisationCheck = typeof OrganisationCheck.Type

/** An entry before storage numbers it. */
export type NewOrganisationCheck = Omit<OrganisationCheck, "id">
