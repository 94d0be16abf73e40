/** Errors of the authorization model (docs/authorization.md). */
import { Schema } from "effect"

/** 401: the administrator API and console need the administrator token (none configured refuses all). */
export class AdminTokenRequired extends Schema.TaggedError<AdminTokenRequired>()("AdminTokenRequired", {}) {
  readonly status = 401 as const
  override get message() {
    return "Administrator token required"
  }
}

/** 403: an account-wide administration call with a token that was not issued to Signet's console. */
export class ConsoleClientRequired extends Schema.TaggedError<ConsoleClientRequired>()("ConsoleClientRequired", {}) {
  readonly status = 403 as const
  override get message() {
    return "This operation needs a token issued to the Signet console"
  }
}

/** 403: decryption, revocation or secret rotation without a fresh, unused passkey approval for it. */
export class StepUpRequired extends Schema.TaggedError<StepUpRequired>()("StepUpRequired", { action: Schema.String }) {
  readonly status = 403 as const
  override get message() {
    return `Fresh passkey approval required: ${this.action}`
  }
}

/** 403: an RP contact may revoke only a certificate that signed for its RP alone. */
export class CertificateSharedWithOtherRps extends Schema.TaggedError<CertificateSharedWithOtherRps>()("CertificateSharedWithOtherRps", {}) {
  readonly status = 403 as const
  override get message() {
    return "Certificate also signed for other relying parties; only its holder or an administrator can revoke it"
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const authorizationErrors = [AdminTokenRequired, ConsoleClientRequired, StepUpRequired, CertificateSharedWithOtherRps] as const
/** An error of this module. */
export type AuthorizationError = InstanceType<(typeof authorizationErrors)[number]>
