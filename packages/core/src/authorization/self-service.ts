/**
 * RP self-service for the contact account (`/v2/relying-parties*`): registration, its own
 * RPs, the settings a contact may change, secret rotation and the organisation details.
 * Another account's RP is as unknown as a missing one (404), so ids cannot be probed.
 */
import type { IdTokenAlgorithm } from "../oidc/model.ts"
import { requireConsole, requireRpBinding } from "./principals.ts"
import { organisationChecks, submitOrganisationDetails, type OrganisationDetails } from "../rp/organisation.ts"
import type { PlanId } from "../rp/model.ts"
import { ResourceNotFound } from "../kernel/errors.ts"
import { RpSettingLocked } from "../rp/errors.ts"
import { RelyingParties } from "../rp/ports.ts"
import { Storage } from "../ports/storage.ts"
import { Effect } from "effect"
import { auditEvent } from "./audit.ts"
import { requireStepUp } from "./step-up.ts"
import type { BearerUser } from "../identity/access-token.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import type { RpCommand } from "../rp/commands.ts"
import { countRequest } from "../rp/quota.ts"
import { administerRelyingParty, findRelyingParty, registerRelyingParty, rotateSecrets, type SecretKind } from "../rp/relying-parties.ts"

/** What a contact registers. */
export interface RelyingPartyRegistration {
  readonly name: string
  readonly redirectUris?: ReadonlyArray<string> | undefined
  readonly signingOrigins?: ReadonlyArray<string> | undefined
  readonly webauthnRpId?: string | undefined
  readonly requestedPlan?: PlanId | null | undefined
  /** `id_token_signed_response_alg` (RS256 when not given) */
  readonly idTokenSignedResponseAlg?: IdTokenAlgorithm | undefined
}

/** What a contact may change; `webauthnRpId` and `requestedPlan` only while the registration is pending. */
export interface RelyingPartySettings {
  readonly name?: string | undefined
  readonly redirectUris?: ReadonlyArray<string> | undefined
  readonly signingOrigins?: ReadonlyArray<string> | undefined
  readonly webauthnRpId?: string | undefined
  readonly requestedPlan?: PlanId | null | undefined
  /** `id_token_signed_response_alg`: how the RP's ID tokens are signed (any time) */
  readonly idTokenSignedResponseAlg?: IdTokenAlgorithm | undefined
}

/**
 * Registers an RP for the caller, who becomes its contact: status `pending` until an
 * administrator approves, secrets shown once. The RP's own maximum is LOA-4; what it may
 * grant is then capped by its plan and by the KYC of its organisation. 5 per minute per account.
 */
export const registerOwnRelyingParty = (user: BearerUser, input: RelyingPartyRegistration) =>
  Effect.gen(function* () {
    // An RP's token must not register RPs in its user's name: only Signet's console may.
    yield* requireConsole(user)
    yield* countRequest(`rp-register:${user.userId}`, 5)
    return yield* registerRelyingParty({
      name: input.name,
      ...(input.redirectUris !== undefined ? { redirectUris: input.redirectUris } : {}),
      ...(input.signingOrigins !== undefined ? { signingOrigins: input.signingOrigins } : {}),
      ...(input.webauthnRpId !== undefined ? { webauthnRpId: input.webauthnRpId } : {}),
      ...(input.idTokenSignedResponseAlg !== undefined ? { idTokenSignedResponseAlg: input.idTokenSignedResponseAlg } : {}),
      requestedPlan: input.requestedPlan ?? null,
      maxLoa: "LOA-4",
      contactUserId: user.userId,
      status: "pending",
    })
  })

/**
 * The caller's RP, or 404 `RP <clientId> not found` (also for another account's RP, and for a
 * token issued to any client but this RP or Signet's console: docs/authorization.md).
 */
export const ownRelyingParty = (user: BearerUser, clientId: string) =>
  Effect.gen(function* () {
    yield* requireRpBinding(user, clientId)
    const found = yield* findRelyingParty(clientId)
    if (found._tag === "None" || found.value.contactUserId !== user.userId) return yield* new ResourceNotFound({ what: `RP ${clientId}` })
    return found.value
  })

/** The RPs whose contact is the caller (this environment), oldest first. */
export const listOwnRelyingParties = (user: BearerUser) =>
  Effect.gen(function* () {
    yield* requireConsole(user)
    const settings = yield* EngineConfig
    const all = yield* Effect.flatMap(RelyingParties, (r) => r.list())
    return all.filter((rp) => rp.contactUserId === user.userId && rp.environment === settings.environment)
  })

/** Changes the contact's settings in one transaction; a locked setting is 409 and changes nothing. */
export const updateOwnRelyingParty = (user: BearerUser, clientId: string, settings: RelyingPartySettings) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    return yield* storage.transaction(
      Effect.gen(function* () {
        let rp = yield* ownRelyingParty(user, clientId)
        if (rp.status !== "pending") {
          if (settings.webauthnRpId !== undefined && settings.webauthnRpId !== rp.webauthnRpId) return yield* new RpSettingLocked({ setting: "webauthnRpId" })
          if (settings.requestedPlan !== undefined && settings.requestedPlan !== rp.requestedPlan)
            return yield* new RpSettingLocked({ setting: "requestedPlan" })
        }
        const commands: Array<RpCommand> = []
        if (settings.name !== undefined) commands.push({ _tag: "SetName", name: settings.name })
        if (settings.redirectUris !== undefined) commands.push({ _tag: "SetRedirectUris", uris: settings.redirectUris })
        if (settings.signingOrigins !== undefined) commands.push({ _tag: "SetSigningOrigins", origins: settings.signingOrigins })
        if (settings.webauthnRpId !== undefined && settings.webauthnRpId !== rp.webauthnRpId)
          commands.push({ _tag: "SetWebAuthnRpId", rpId: settings.webauthnRpId })
        if (settings.requestedPlan !== undefined) commands.push({ _tag: "SetRequestedPlan", plan: settings.requestedPlan })
        if (settings.idTokenSignedResponseAlg !== undefined) commands.push({ _tag: "SetIdTokenAlgorithm", alg: settings.idTokenSignedResponseAlg })
        for (const command of commands) rp = (yield* administerRelyingParty(clientId, command)).rp
        if (commands.length > 0) yield* auditEvent(user, "rp.settings-changed", clientId, { fields: commands.map((c) => c._tag).join(",") })
        return rp
      }),
    )
  })

/**
 * The contact rotates its RP's secrets (the replaced ones keep working for the grace period);
 * the answer carries the new secrets, so it needs a fresh passkey approval (`stepUp`).
 */
export const rotateOwnSecrets = (user: BearerUser, clientId: string, which: SecretKind, stepUp?: string | null) =>
  Effect.gen(function* () {
    yield* ownRelyingParty(user, clientId)
    yield* requireStepUp(user, "rotate-secrets", stepUp)
    const rotated = yield* rotateSecrets(clientId, which)
    yield* auditEvent(user, "rp.secrets-rotated", clientId, { which })
    return rotated
  })

/** The contact submits the organisation's details for KYC review. */
export const submitOwnOrganisation = (user: BearerUser, clientId: string, details: OrganisationDetails) =>
  Effect.gen(function* () {
    yield* ownRelyingParty(user, clientId)
    return yield* submitOrganisationDetails(clientId, user.userId, details)
  })

/** The contact reads its RP's organisation-KYC record. */
export const ownOrganisationChecks = (user: BearerUser, clientId: string) => Effect.flatMap(ownRelyingParty(user, clientId), () => organisationChecks(clientId))
