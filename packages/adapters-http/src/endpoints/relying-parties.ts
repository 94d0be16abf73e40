/** RP self-service for the contact account: `/v2/relying-parties*` (registration, settings, secret rotation, organisation KYC). */
import {
  IdTokenAlgorithm, ownOrganisationChecks, ownRelyingParty, listOwnRelyingParties, OrganisationCheck, OrganisationDocument, PlanId,
  registerOwnRelyingParty, rotateOwnSecrets, STEP_UP_HEADER, submitOwnOrganisation, updateOwnRelyingParty, Environment, Loa, RpStatus,
  type RelyingParty,
} from "@signet/core"
import { Clock, Effect, Schema } from "effect"
import { endpoint } from "../http/endpoint.ts"

const iso = (ms: number) => new Date(ms).toISOString()

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

/** The view of an RP at time `now` (a grace period that ended is shown as null). */
export const viewOf = (rp: RelyingParty, now: number): typeof RelyingPartyView.Type => ({
  clientId: rp.clientId, name: rp.name, environment: rp.environment, status: rp.status, maxLoa: rp.maxLoa,
  kycVerified: rp.kycVerified, plan: rp.plan, requestedPlan: rp.requestedPlan, signingOrigins: rp.signingOrigins,
  redirectUris: rp.redirectUris, webauthnRpId: rp.webauthnRpId, contactUserId: rp.contactUserId,
  idTokenSignedResponseAlg: rp.idTokenSignedResponseAlg,
  previousSecretsValidUntil: {
    client: rp.retiredClientSecret !== null && rp.retiredClientSecret.validUntil > now ? iso(rp.retiredClientSecret.validUntil) : null,
    ssc: rp.retiredSscSecret !== null && rp.retiredSscSecret.validUntil > now ? iso(rp.retiredSscSecret.validUntil) : null,
  },
  createdAt: iso(rp.createdAt), updatedAt: iso(rp.updatedAt),
})

/** The view now. */
export const viewNow = (rp: RelyingParty) => Effect.map(Clock.currentTimeMillis, (now) => viewOf(rp, now))

/** An organisation-KYC record entry with ISO time. */
export const OrganisationCheckView = Schema.Struct({
  ...OrganisationCheck.fields,
  createdAt: Schema.String,
})
/** The view of an organisation-KYC record entry. */
export const checkView = (c: OrganisationCheck): typeof OrganisationCheckView.Type => ({ ...c, createdAt: iso(c.createdAt) })

/** Organisation details as submitted or checked. */
export const OrganisationDetailsBody = {
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

/** A rotation result as its answer. */
export const rotationAnswer = (r: { readonly rp: RelyingParty; readonly clientSecret?: string; readonly sscSecret?: string; readonly previousValidUntil: number | null }) => ({
  clientId: r.rp.clientId,
  ...(r.clientSecret !== undefined ? { clientSecret: r.clientSecret } : {}),
  ...(r.sscSecret !== undefined ? { sscSecret: r.sscSecret } : {}),
  previousValidUntil: r.previousValidUntil === null ? null : iso(r.previousValidUntil),
})

const NOT_FOUND = { status: 404, description: "`RP <clientId> not found` (also for another account's RP)" }
const BAD = { status: 400, description: "a bad name, redirect URI, signing origin, WebAuthn RP id or plan" }

/** `POST /v2/relying-parties`: self-service registration; the caller becomes the contact. */
export const registerRelyingPartyEndpoint = endpoint({
  method: "POST", path: "/v2/relying-parties", tag: "Relying parties", auth: "bearer",
  summary: "Register an RP (status pending until an administrator approves); the client and SSC secrets are shown this once",
  body: Schema.Struct({
    name: Schema.String,
    redirectUris: Schema.optional(Schema.Array(Schema.String)).annotations({ description: "OAuth redirect URIs: https, or http to localhost; no fragment" }),
    signingOrigins: Schema.optional(Schema.Array(Schema.String)).annotations({ description: "origins that may embed the signing frame (scheme://host[:port])" }),
    webauthnRpId: Schema.optional(Schema.String).annotations({ description: "WebAuthn RP id of the RP's users' passkeys (default: the engine's host name)" }),
    requestedPlan: Schema.optional(Schema.NullOr(PlanId)),
    idTokenSignedResponseAlg: Schema.optional(IdTokenAlgorithm).annotations({ description: "how ID tokens for this client are signed: RS256 (default) or ES256" }),
  }),
  response: Schema.Struct({ ...RelyingPartyView.fields, clientSecret: Schema.String, sscSecret: Schema.String }), status: 201,
  errors: [BAD, { status: 429, description: "`Rate limit exceeded. Please try again later.` (5 registrations per minute per account)" }],
  handle: ({ body, user }) => Effect.gen(function* () {
    const created = yield* registerOwnRelyingParty(user!, body)
    return { ...(yield* viewNow(created.rp)), clientSecret: created.clientSecret, sscSecret: created.sscSecret }
  }),
})

/** `GET /v2/relying-parties`: the caller's RPs. */
export const listRelyingPartiesEndpoint = endpoint({
  method: "GET", path: "/v2/relying-parties", tag: "Relying parties", auth: "bearer",
  summary: "The RPs whose contact account is the caller, oldest first",
  response: Schema.Array(RelyingPartyView),
  handle: ({ user }) => Effect.flatMap(listOwnRelyingParties(user!), Effect.forEach(viewNow)),
})

/** `GET /v2/relying-parties/{clientId}`. */
export const getRelyingPartyEndpoint = endpoint({
  method: "GET", path: "/v2/relying-parties/{clientId}", tag: "Relying parties", auth: "bearer",
  summary: "One of the caller's RPs",
  response: RelyingPartyView,
  errors: [NOT_FOUND],
  handle: ({ user, params }) => Effect.flatMap(ownRelyingParty(user!, params["clientId"]!), viewNow),
})

/** `PATCH /v2/relying-parties/{clientId}`. */
export const updateRelyingPartyEndpoint = endpoint({
  method: "PATCH", path: "/v2/relying-parties/{clientId}", tag: "Relying parties", auth: "bearer",
  summary: "Change the RP's name, redirect URIs, signing origins or ID-token algorithm (any time), WebAuthn RP id or requested plan (while pending)",
  body: Schema.Struct({
    name: Schema.optional(Schema.String),
    redirectUris: Schema.optional(Schema.Array(Schema.String)),
    signingOrigins: Schema.optional(Schema.Array(Schema.String)),
    webauthnRpId: Schema.optional(Schema.String),
    requestedPlan: Schema.optional(Schema.NullOr(PlanId)),
    idTokenSignedResponseAlg: Schema.optional(IdTokenAlgorithm).annotations({ description: "RS256 or ES256" }),
  }),
  response: RelyingPartyView,
  errors: [BAD, NOT_FOUND, { status: 409, description: "`webauthnRpId can only be changed while the registration is pending` (likewise `requestedPlan`)" }],
  handle: ({ user, params, body }) => Effect.flatMap(updateOwnRelyingParty(user!, params["clientId"]!, body), viewNow),
})

/** `POST /v2/relying-parties/{clientId}/rotate-secrets`. */
export const rotateSecretsEndpoint = endpoint({
  method: "POST", path: "/v2/relying-parties/{clientId}/rotate-secrets", tag: "Relying parties", auth: "bearer",
  summary: "Replace the client secret, the SSC secret or both; the replaced ones keep working for the grace period (24 h by default)",
  body: Schema.Struct({ which: SecretKindSchema }),
  response: RotationAnswer,
  errors: [NOT_FOUND, { status: 403, description: "`Fresh passkey approval required: rotate-secrets` (no, a used or a foreign `Signet-Step-Up` proof)" }],
  handle: ({ user, params, body, request }) =>
    Effect.map(rotateOwnSecrets(user!, params["clientId"]!, body.which, request.headers.get(STEP_UP_HEADER)), rotationAnswer),
})

/** `POST /v2/relying-parties/{clientId}/organisation`. */
export const submitOrganisationEndpoint = endpoint({
  method: "POST", path: "/v2/relying-parties/{clientId}/organisation", tag: "Relying parties", auth: "bearer",
  summary: "Submit the organisation's details for KYC review (an administrator's check unlocks LOA-4)",
  body: Schema.Struct(OrganisationDetailsBody),
  response: OrganisationCheckView,
  errors: [{ status: 400, description: "a missing legal name or registration number, a bad country code or document" }, NOT_FOUND],
  handle: ({ user, params, body }) => Effect.map(submitOwnOrganisation(user!, params["clientId"]!, body), checkView),
})

/** `GET /v2/relying-parties/{clientId}/organisation`. */
export const organisationRecordEndpoint = endpoint({
  method: "GET", path: "/v2/relying-parties/{clientId}/organisation", tag: "Relying parties", auth: "bearer",
  summary: "The RP's organisation-KYC record: submissions and administrators' checks, oldest first",
  response: Schema.Array(OrganisationCheckView),
  errors: [NOT_FOUND],
  handle: ({ user, params }) => Effect.map(ownOrganisationChecks(user!, params["clientId"]!), (cs) => cs.map(checkView)),
})

/** RP self-service endpoints in document order. */
export const relyingPartyEndpoints = [
  registerRelyingPartyEndpoint, listRelyingPartiesEndpoint, getRelyingPartyEndpoint, updateRelyingPartyEndpoint,
  rotateSecretsEndpoint, submitOrganisationEndpoint, organisationRecordEndpoint,
] as const
