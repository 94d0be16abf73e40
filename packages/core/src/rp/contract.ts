/**
 * The rp contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"
import { IdTokenAlgorithm } from "../oidc/model.ts"
import { Loa, OrganisationCheck, OrganisationDocument, PlanId, RpStatus } from "./model.ts"
import { Environment } from "../ports/engine-config.ts"

// relying-parties endpoints
/** An RP as its contact and administrators see it: never a secret or its hash. */
export const RelyingPartyView = Schema.Struct({
  clientId: Schema.String,
  name: Schema.String,
  environment: Environment,
  status: RpStatus,
  maxLoa: Loa,
  kycVerified: Schema.Boolean.annotations({ description: "the organisation was verified (needed for LOA-4)" }),
  plan: Schema.NullOr(PlanId).annotations({ description: "the plan in force (from a subscription or an administrator)" }),
  requestedPlan: Schema.NullOr(PlanId),
  signingOrigins: Schema.Array(Schema.String),
  redirectUris: Schema.Array(Schema.String),
  webauthnRpId: Schema.String,
  contactUserId: Schema.NullOr(Schema.String),
  idTokenSignedResponseAlg: IdTokenAlgorithm.annotations({ description: "`id_token_signed_response_alg`: how this client's ID tokens are signed" }),
  previousSecretsValidUntil: Schema.Struct({
    client: Schema.NullOr(Schema.String),
    ssc: Schema.NullOr(Schema.String),
  }).annotations({ description: "ISO 8601 end of the grace period of the secret replaced by the last rotation; null when none is valid" }),
  createdAt: Schema.String,
  updatedAt: Schema.String,
})
/** An organisation-KYC record entry with ISO time. */
export const OrganisationCheckView = Schema.Struct({
  ...OrganisationCheck.fields,
  createdAt: Schema.String,
})
/** Organisation details as submitted or checked. */
export const OrganisationDetailsFields = {
  legalName: Schema.String,
  registrationNumber: Schema.String.annotations({ description: "the company registry number" }),
  country: Schema.String.annotations({ description: "ISO 3166-1 alpha-2 country of registration, e.g. KE" }),
  documents: Schema.Array(OrganisationDocument),
}
/** Which secrets to rotate. */
export const SecretKindSchema = Schema.Literal("client", "ssc", "both")
/** What a rotation answers: the new secrets (shown once) and when the replaced ones stop working. */
export const RotationAnswer = Schema.Struct({
  clientId: Schema.String,
  clientSecret: Schema.optional(Schema.String),
  sscSecret: Schema.optional(Schema.String),
  previousValidUntil: Schema.NullOr(Schema.String).annotations({ description: "ISO 8601; null when the replaced secrets stopped at once" }),
})
/** Body of `POST /v2/relying-parties`. */
export const RegisterRelyingPartyRequest = Schema.Struct({
  name: Schema.String,
  redirectUris: Schema.optional(Schema.Array(Schema.String)).annotations({ description: "OAuth redirect URIs: https, or http to localhost; no fragment" }),
  signingOrigins: Schema.optional(Schema.Array(Schema.String)).annotations({ description: "origins that may embed the signing frame (scheme://host[:port])" }),
  webauthnRpId: Schema.optional(Schema.String).annotations({ description: "WebAuthn RP id of the RP's users' passkeys (default: the engine's host name)" }),
  requestedPlan: Schema.optional(Schema.NullOr(PlanId)),
  idTokenSignedResponseAlg: Schema.optional(IdTokenAlgorithm).annotations({
    description: "how ID tokens for this client are signed: RS256 (default) or ES256",
  }),
})
/** Answer of `POST /v2/relying-parties`. */
export const RegisterRelyingPartyResponse = Schema.Struct({ ...RelyingPartyView.fields, clientSecret: Schema.String, sscSecret: Schema.String })
/** Answer of `GET /v2/relying-parties`. */
export const ListRelyingPartiesResponse = Schema.Array(RelyingPartyView)
/** Body of `PATCH /v2/relying-parties/{clientId}`. */
export const UpdateRelyingPartyRequest = Schema.Struct({
  name: Schema.optional(Schema.String),
  redirectUris: Schema.optional(Schema.Array(Schema.String)),
  signingOrigins: Schema.optional(Schema.Array(Schema.String)),
  webauthnRpId: Schema.optional(Schema.String),
  requestedPlan: Schema.optional(Schema.NullOr(PlanId)),
  idTokenSignedResponseAlg: Schema.optional(IdTokenAlgorithm).annotations({ description: "RS256 or ES256" }),
})
/** Body of `POST /v2/relying-parties/{clientId}/rotate-secrets`. */
export const RotateSecretsRequest = Schema.Struct({ which: SecretKindSchema })
/** Body of `POST /v2/relying-parties/{clientId}/organisation`. */
export const SubmitOrganisationRequest = Schema.Struct(OrganisationDetailsFields)
/** Answer of `GET /v2/relying-parties/{clientId}/organisation`. */
export const OrganisationRecordResponse = Schema.Array(OrganisationCheckView)

// admin endpoints
/** An RP with today's usage, as the console lists it. */
export const AdminRelyingPartyView = Schema.Struct({
  ...RelyingPartyView.fields,
  postLogoutRedirectUris: Schema.Array(Schema.String),
  usage: Schema.Struct({
    signaturesToday: Schema.Int.annotations({ description: "signatures counted today (UTC), from the quota counters the signing endpoints use" }),
    signaturesPerDay: Schema.Int.annotations({ description: "the daily allowance in force" }),
  }),
})
/** Answer of `GET /admin/api/relying-parties`. */
export const AdminListResponse = Schema.Array(AdminRelyingPartyView)
/** Answer of `GET /admin/api/relying-parties/{clientId}`. */
export const AdminOneResponse = Schema.Struct({ ...AdminRelyingPartyView.fields, organisationChecks: Schema.Array(OrganisationCheckView) })
/** Body of `POST /admin/api/relying-parties/{clientId}/rotate-secrets`. */
export const AdminRotateRequest = Schema.Struct({ which: SecretKindSchema, grace: Schema.optional(Schema.Boolean) })
/** Body of `POST /admin/api/relying-parties/{clientId}/organisation-checks`. */
export const AdminCheckRequest = Schema.Struct({
  outcome: Schema.Literal("verified", "rejected"),
  ...OrganisationDetailsFields,
  checkedBy: Schema.String.annotations({ description: "the administrator who checked" }),
  note: Schema.optional(Schema.NullOr(Schema.String)),
})
/** Answer of `POST /admin/api/relying-parties/{clientId}/organisation-checks`. */
export const AdminCheckResponse = Schema.Struct({ relyingParty: AdminRelyingPartyView, check: OrganisationCheckView })
