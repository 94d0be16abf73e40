/** RP self-service for the contact account: `/v2/relying-parties*` (registration, settings, secret rotation, organisation KYC). */
import {
  listOwnRelyingParties,
  ListRelyingPartiesResponse,
  type OrganisationCheck,
  OrganisationCheckView,
  OrganisationRecordResponse,
  ownOrganisationChecks,
  ownRelyingParty,
  registerOwnRelyingParty,
  RegisterRelyingPartyRequest,
  RegisterRelyingPartyResponse,
  type RelyingParty,
  RelyingPartyView,
  rotateOwnSecrets,
  RotateSecretsRequest,
  RotationAnswer,
  STEP_UP_HEADER,
  SubmitOrganisationRequest,
  submitOwnOrganisation,
  updateOwnRelyingParty,
  UpdateRelyingPartyRequest,
} from "@signet/core"
import { Clock, Effect } from "effect"
import { endpoint } from "../http/endpoint.ts"

const iso = (ms: number) => new Date(ms).toISOString()

/** The view of an RP at time `now` (a grace period that ended is shown as null). */
export const viewOf = (rp: RelyingParty, now: number): typeof RelyingPartyView.Type => ({
  clientId: rp.clientId,
  name: rp.name,
  environment: rp.environment,
  status: rp.status,
  maxLoa: rp.maxLoa,
  kycVerified: rp.kycVerified,
  plan: rp.plan,
  requestedPlan: rp.requestedPlan,
  signingOrigins: rp.signingOrigins,
  redirectUris: rp.redirectUris,
  webauthnRpId: rp.webauthnRpId,
  contactUserId: rp.contactUserId,
  idTokenSignedResponseAlg: rp.idTokenSignedResponseAlg,
  previousSecretsValidUntil: {
    client: rp.retiredClientSecret !== null && rp.retiredClientSecret.validUntil > now ? iso(rp.retiredClientSecret.validUntil) : null,
    ssc: rp.retiredSscSecret !== null && rp.retiredSscSecret.validUntil > now ? iso(rp.retiredSscSecret.validUntil) : null,
  },
  createdAt: iso(rp.createdAt),
  updatedAt: iso(rp.updatedAt),
})

/** The view now. */
export const viewNow = (rp: RelyingParty) => Effect.map(Clock.currentTimeMillis, (now) => viewOf(rp, now))

/** The view of an organisation-KYC record entry. */
export const checkView = (c: OrganisationCheck): typeof OrganisationCheckView.Type => ({ ...c, createdAt: iso(c.createdAt) })

/** A rotation result as its answer. */
export const rotationAnswer = (r: {
  readonly rp: RelyingParty
  readonly clientSecret?: string
  readonly sscSecret?: string
  readonly previousValidUntil: number | null
}) => ({
  clientId: r.rp.clientId,
  ...(r.clientSecret !== undefined ? { clientSecret: r.clientSecret } : {}),
  ...(r.sscSecret !== undefined ? { sscSecret: r.sscSecret } : {}),
  previousValidUntil: r.previousValidUntil === null ? null : iso(r.previousValidUntil),
})

const NOT_FOUND = { status: 404, description: "`RP <clientId> not found` (also for another account's RP)" }
const BAD = { status: 400, description: "a bad name, redirect URI, signing origin, WebAuthn RP id or plan" }

/** `POST /v2/relying-parties`: self-service registration; the caller becomes the contact. */
export const registerRelyingPartyEndpoint = endpoint({
  method: "POST",
  path: "/v2/relying-parties",
  tag: "Relying parties",
  auth: "bearer",
  summary: "Register an RP (status pending until an administrator approves); the client and SSC secrets are shown this once",
  body: RegisterRelyingPartyRequest,
  response: RegisterRelyingPartyResponse,
  status: 201,
  errors: [BAD, { status: 429, description: "`Rate limit exceeded. Please try again later.` (5 registrations per minute per account)" }],
  handle: ({ body, user }) =>
    Effect.gen(function* () {
      const created = yield* registerOwnRelyingParty(user!, body)
      return { ...(yield* viewNow(created.rp)), clientSecret: created.clientSecret, sscSecret: created.sscSecret }
    }),
})

/** `GET /v2/relying-parties`: the caller's RPs. */
export const listRelyingPartiesEndpoint = endpoint({
  method: "GET",
  path: "/v2/relying-parties",
  tag: "Relying parties",
  auth: "bearer",
  summary: "The RPs whose contact account is the caller, oldest first",
  response: ListRelyingPartiesResponse,
  handle: ({ user }) => Effect.flatMap(listOwnRelyingParties(user!), Effect.forEach(viewNow)),
})

/** `GET /v2/relying-parties/{clientId}`. */
export const getRelyingPartyEndpoint = endpoint({
  method: "GET",
  path: "/v2/relying-parties/{clientId}",
  tag: "Relying parties",
  auth: "bearer",
  summary: "One of the caller's RPs",
  response: RelyingPartyView,
  errors: [NOT_FOUND],
  handle: ({ user, params }) => Effect.flatMap(ownRelyingParty(user!, params["clientId"]!), viewNow),
})

/** `PATCH /v2/relying-parties/{clientId}`. */
export const updateRelyingPartyEndpoint = endpoint({
  method: "PATCH",
  path: "/v2/relying-parties/{clientId}",
  tag: "Relying parties",
  auth: "bearer",
  summary: "Change the RP's name, redirect URIs, signing origins or ID-token algorithm (any time), WebAuthn RP id or requested plan (while pending)",
  body: UpdateRelyingPartyRequest,
  response: RelyingPartyView,
  errors: [BAD, NOT_FOUND, { status: 409, description: "`webauthnRpId can only be changed while the registration is pending` (likewise `requestedPlan`)" }],
  handle: ({ user, params, body }) => Effect.flatMap(updateOwnRelyingParty(user!, params["clientId"]!, body), viewNow),
})

/** `POST /v2/relying-parties/{clientId}/rotate-secrets`. */
export const rotateSecretsEndpoint = endpoint({
  method: "POST",
  path: "/v2/relying-parties/{clientId}/rotate-secrets",
  tag: "Relying parties",
  auth: "bearer",
  summary: "Replace the client secret, the SSC secret or both; the replaced ones keep working for the grace period (24 h by default)",
  body: RotateSecretsRequest,
  response: RotationAnswer,
  errors: [NOT_FOUND, { status: 403, description: "`Fresh passkey approval required: rotate-secrets` (no, a used or a foreign `Signet-Step-Up` proof)" }],
  handle: ({ user, params, body, request }) =>
    Effect.map(rotateOwnSecrets(user!, params["clientId"]!, body.which, request.headers.get(STEP_UP_HEADER)), rotationAnswer),
})

/** `POST /v2/relying-parties/{clientId}/organisation`. */
export const submitOrganisationEndpoint = endpoint({
  method: "POST",
  path: "/v2/relying-parties/{clientId}/organisation",
  tag: "Relying parties",
  auth: "bearer",
  summary: "Submit the organisation's details for KYC review (an administrator's check unlocks LOA-4)",
  body: SubmitOrganisationRequest,
  response: OrganisationCheckView,
  errors: [{ status: 400, description: "a missing legal name or registration number, a bad country code or document" }, NOT_FOUND],
  handle: ({ user, params, body }) => Effect.map(submitOwnOrganisation(user!, params["clientId"]!, body), checkView),
})

/** `GET /v2/relying-parties/{clientId}/organisation`. */
export const organisationRecordEndpoint = endpoint({
  method: "GET",
  path: "/v2/relying-parties/{clientId}/organisation",
  tag: "Relying parties",
  auth: "bearer",
  summary: "The RP's organisation-KYC record: submissions and administrators' checks, oldest first",
  response: OrganisationRecordResponse,
  errors: [NOT_FOUND],
  handle: ({ user, params }) => Effect.map(ownOrganisationChecks(user!, params["clientId"]!), (cs) => cs.map(checkView)),
})

/** RP self-service endpoints in document order. */
export const relyingPartyEndpoints = [
  registerRelyingPartyEndpoint,
  listRelyingPartiesEndpoint,
  getRelyingPartyEndpoint,
  updateRelyingPartyEndpoint,
  rotateSecretsEndpoint,
  submitOrganisationEndpoint,
  organisationRecordEndpoint,
] as const
