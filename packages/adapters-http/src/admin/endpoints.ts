/**
 * The administrator API behind the console (`/admin/api/*`): every RP with today's usage,
 * approval moves and settings (the RP state machine's commands), secret rotation and the
 * organisation check. Authentication: `Authorization: Bearer <administrator token>`, the
 * token given in configuration (`SIGNET_ADMIN_TOKEN`, `pnpm admin token` makes one); with
 * none configured every call is refused.
 */
import {
  AdminCheckRequest,
  AdminCheckResponse,
  administerRelyingParty,
  AdminListResponse,
  AdminOneResponse,
  AdminRelyingPartyView,
  AdminRotateRequest,
  auditEvent,
  EngineConfig,
  getRelyingParty,
  organisationChecks,
  planInForce,
  recordOrganisationCheck,
  RelyingParties,
  type RelyingParty,
  RotationAnswer,
  rotateSecrets,
  RpCommand,
  signaturesUsedToday,
} from "@signet/core"
import { Effect } from "effect"
import { endpoint, type Endpoint } from "../http/endpoint.ts"
import { checkView, rotationAnswer, viewNow } from "../rp/endpoints.ts"
import { ADMIN_TOKEN_REQUIRED, adminGuard } from "./guard.ts"

const adminView = (rp: RelyingParty) =>
  Effect.gen(function* () {
    return {
      ...(yield* viewNow(rp)),
      postLogoutRedirectUris: rp.postLogoutRedirectUris,
      usage: { signaturesToday: yield* signaturesUsedToday(rp.clientId), signaturesPerDay: (yield* planInForce(rp)).allowance.signaturesPerDay },
    }
  })

const NOT_FOUND = { status: 404, description: "`RP <clientId> not found`" }

/** The administrator API for this engine's administrator token (undefined: refuse all). */
export const adminEndpointsFor = (options: { readonly adminToken: string | undefined }): ReadonlyArray<Endpoint<any, any>> => {
  const requireAdmin = adminGuard(options.adminToken)

  const list = endpoint({
    method: "GET",
    path: "/admin/api/relying-parties",
    tag: "Administration",
    auth: "admin",
    summary: "Every RP of this environment with its status, KYC flag and today's signatures",
    response: AdminListResponse,
    errors: [ADMIN_TOKEN_REQUIRED],
    handle: ({ request }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const settings = yield* EngineConfig
        const all = yield* Effect.flatMap(RelyingParties, (r) => r.list())
        return yield* Effect.forEach(
          all.filter((rp) => rp.environment === settings.environment),
          adminView,
        )
      }),
  })

  const one = endpoint({
    method: "GET",
    path: "/admin/api/relying-parties/{clientId}",
    tag: "Administration",
    auth: "admin",
    summary: "One RP with its usage and organisation-KYC record",
    response: AdminOneResponse,
    errors: [ADMIN_TOKEN_REQUIRED, NOT_FOUND],
    handle: ({ request, params }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const rp = yield* getRelyingParty(params["clientId"]!)
        return { ...(yield* adminView(rp)), organisationChecks: (yield* organisationChecks(rp.clientId)).map(checkView) }
      }),
  })

  const command = endpoint({
    method: "POST",
    path: "/admin/api/relying-parties/{clientId}/commands",
    tag: "Administration",
    auth: "admin",
    summary: 'Apply a command of the RP state machine: Approve, Reject, Suspend, SetPlan, SetMaxLoa, SetSigningOrigins, … (`{ "_tag": "Approve" }`)',
    body: RpCommand,
    response: AdminRelyingPartyView,
    errors: [
      ADMIN_TOKEN_REQUIRED,
      { status: 400, description: "a bad setting" },
      NOT_FOUND,
      { status: 409, description: "`RP in status <status> cannot be <approved|rejected|suspended>`" },
    ],
    handle: ({ request, params, body }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const { rp } = yield* administerRelyingParty(params["clientId"]!, body)
        yield* auditEvent("administrator", "admin.rp-command", rp.clientId, { command: body._tag })
        return yield* adminView(rp)
      }),
  })

  const rotate = endpoint({
    method: "POST",
    path: "/admin/api/relying-parties/{clientId}/rotate-secrets",
    tag: "Administration",
    auth: "admin",
    summary: "Rotate an RP's secrets; `grace: false` ends the replaced secrets at once (after a leak)",
    body: AdminRotateRequest,
    response: RotationAnswer,
    errors: [ADMIN_TOKEN_REQUIRED, NOT_FOUND],
    handle: ({ request, params, body }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const rotated = yield* rotateSecrets(params["clientId"]!, body.which, body.grace === undefined ? {} : { grace: body.grace })
        yield* auditEvent("administrator", "admin.rp-secrets-rotated", params["clientId"]!, { which: body.which, grace: body.grace ?? true })
        return rotationAnswer(rotated)
      }),
  })

  const check = endpoint({
    method: "POST",
    path: "/admin/api/relying-parties/{clientId}/organisation-checks",
    tag: "Administration",
    auth: "admin",
    summary: "Record the check of the RP's organisation: `verified` sets kycVerified (unlocks LOA-4), `rejected` clears it",
    body: AdminCheckRequest,
    response: AdminCheckResponse,
    errors: [ADMIN_TOKEN_REQUIRED, { status: 400, description: "missing details; a verification names at least one checked document" }, NOT_FOUND],
    handle: ({ request, params, body }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const { rp, check } = yield* recordOrganisationCheck(params["clientId"]!, body)
        yield* auditEvent("administrator", "admin.organisation-check", rp.clientId, { outcome: body.outcome, checkedBy: body.checkedBy })
        return { relyingParty: yield* adminView(rp), check: checkView(check) }
      }),
  })

  return [list, one, command, rotate, check]
}
