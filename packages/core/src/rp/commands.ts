/**
 * The relying-party state machine: (RP, command) → (new RP, events) or a typed error.
 * Pure: no storage, no clock (the time of the change comes in with the command).
 */
import { Either, Schema } from "effect"
import { InvalidRequest } from "../kernel/errors.ts"
import { RpTransitionNotAllowed } from "./errors.ts"
import { IdTokenAlgorithm } from "../oidc/model.ts"
import { Loa, PlanId, AllowanceSchema, type RelyingParty, type RpStatus } from "./model.ts"

/** Administrative commands on an RP. Secrets rotate through `rotateSecrets` (they need randomness). */
export const RpCommand = Schema.Union(
  Schema.TaggedStruct("Approve", {}),
  Schema.TaggedStruct("Reject", {}),
  Schema.TaggedStruct("Suspend", {}),
  Schema.TaggedStruct("SetPlan", { plan: Schema.NullOr(PlanId) }),
  Schema.TaggedStruct("SetMaxLoa", { loa: Loa }),
  Schema.TaggedStruct("SetKycVerified", { kycVerified: Schema.Boolean }),
  Schema.TaggedStruct("SetSigningOrigins", { origins: Schema.Array(Schema.String) }),
  Schema.TaggedStruct("SetWebAuthnRpId", { rpId: Schema.String }),
  Schema.TaggedStruct("SetContact", { userId: Schema.NullOr(Schema.String) }),
  Schema.TaggedStruct("SetCustomAllowance", { allowance: Schema.NullOr(AllowanceSchema) }),
  Schema.TaggedStruct("SetName", { name: Schema.String }),
  Schema.TaggedStruct("SetRedirectUris", { uris: Schema.Array(Schema.String) }),
  Schema.TaggedStruct("SetPostLogoutRedirectUris", { uris: Schema.Array(Schema.String) }),
  Schema.TaggedStruct("SetRequestedPlan", { plan: Schema.NullOr(PlanId) }),
  Schema.TaggedStruct("SetIdTokenAlgorithm", { alg: IdTokenAlgorithm }),
)
/** Administrative commands on an RP. */
export type RpCommand = typeof RpCommand.Type

/** What a command changed, for the audit trail. */
export type RpEvent =
  | { readonly _tag: "RpStatusChanged"; readonly clientId: string; readonly from: RpStatus; readonly to: RpStatus }
  | { readonly _tag: "RpSettingsChanged"; readonly clientId: string; readonly command: RpCommand["_tag"] }

// Approval moves: pending is decided once; an approved RP can be suspended and reinstated;
// a rejected or suspended RP can be approved after review.
const STATUS_MOVES: Record<"Approve" | "Reject" | "Suspend", { readonly from: ReadonlyArray<RpStatus>; readonly to: RpStatus; readonly verb: string }> = {
  Approve: { from: ["pending", "rejected", "suspended"], to: "approved", verb: "approved" },
  Reject: { from: ["pending"], to: "rejected", verb: "rejected" },
  Suspend: { from: ["approved"], to: "suspended", verb: "suspended" },
}

/** An origin as browsers send it: scheme, host and port only, http(s). */
export const isOrigin = (value: string): boolean => {
  try {
    const url = new URL(value)
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value
  } catch {
    return false
  }
}

/** A WebAuthn RP id: a lower-case host name without scheme, port or path. */
export const isRpId = (value: string): boolean => /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(value)

/**
 * An OAuth redirect URI as RFC 9700 wants it registered: absolute, no fragment, https, or
 * http only to a loopback host (native and development clients).
 */
export const isRedirectUri = (value: string): boolean => {
  try {
    const url = new URL(value)
    if (url.hash !== "" || value.includes("#") || url.username !== "" || url.password !== "") return false
    if (url.protocol === "https:") return true
    return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)
  } catch {
    return false
  }
}

/** The first redirect URI that is not acceptable, as a 400. */
export const checkRedirectUris = (uris: ReadonlyArray<string>): InvalidRequest | undefined => {
  const bad = uris.find((u) => !isRedirectUri(u))
  return bad === undefined
    ? undefined
    : new InvalidRequest({ detail: `redirect URI ${bad} must be an absolute https URL (http only for localhost) without fragment` })
}

/** Applies one command at time `at` (ms). */
export const applyRpCommand = (
  rp: RelyingParty,
  command: RpCommand,
  at: number,
): Either.Either<{ readonly rp: RelyingParty; readonly events: ReadonlyArray<RpEvent> }, RpTransitionNotAllowed | InvalidRequest> => {
  const changed = (next: Partial<RelyingParty>) =>
    Either.right({
      rp: { ...rp, ...next, updatedAt: at },
      events: [{ _tag: "RpSettingsChanged", clientId: rp.clientId, command: command._tag }] as ReadonlyArray<RpEvent>,
    })
  switch (command._tag) {
    case "Approve":
    case "Reject":
    case "Suspend": {
      const move = STATUS_MOVES[command._tag]
      if (!move.from.includes(rp.status)) return Either.left(new RpTransitionNotAllowed({ from: rp.status, command: move.verb }))
      return Either.right({
        rp: { ...rp, status: move.to, updatedAt: at },
        events: [{ _tag: "RpStatusChanged", clientId: rp.clientId, from: rp.status, to: move.to }],
      })
    }
    case "SetPlan":
      return changed({ plan: command.plan })
    case "SetMaxLoa":
      return changed({ maxLoa: command.loa })
    case "SetKycVerified":
      return changed({ kycVerified: command.kycVerified })
    case "SetSigningOrigins": {
      const bad = command.origins.find((o) => !isOrigin(o))
      if (bad !== undefined) return Either.left(new InvalidRequest({ detail: `signing origin ${bad} is not an origin (scheme://host[:port])` }))
      return changed({ signingOrigins: [...new Set(command.origins)] })
    }
    case "SetWebAuthnRpId": {
      if (!isRpId(command.rpId)) return Either.left(new InvalidRequest({ detail: `WebAuthn RP id ${command.rpId} is not a host name` }))
      return changed({ webauthnRpId: command.rpId })
    }
    case "SetContact":
      return changed({ contactUserId: command.userId })
    case "SetCustomAllowance":
      return changed({ customAllowance: command.allowance })
    case "SetName": {
      const name = command.name.trim()
      if (name === "" || name.length > 200) return Either.left(new InvalidRequest({ detail: "name must be 1 to 200 characters" }))
      return changed({ name })
    }
    case "SetRedirectUris":
    case "SetPostLogoutRedirectUris": {
      const bad = checkRedirectUris(command.uris)
      if (bad !== undefined) return Either.left(bad)
      const uris = [...new Set(command.uris)]
      return changed(command._tag === "SetRedirectUris" ? { redirectUris: uris } : { postLogoutRedirectUris: uris })
    }
    case "SetRequestedPlan":
      return changed({ requestedPlan: command.plan })
    case "SetIdTokenAlgorithm":
      return changed({ idTokenSignedResponseAlg: command.alg })
  }
}
