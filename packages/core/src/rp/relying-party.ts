/** The relying-party aggregate: an application registered with the engine. */
import { Schema } from "effect"
import { IdTokenAlgorithm } from "../oidc/signing-keys.ts"
import { Environment } from "../ports/engine-config.ts"
import { Loa } from "./loa.ts"
import { PlanId } from "./plans.ts"

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
