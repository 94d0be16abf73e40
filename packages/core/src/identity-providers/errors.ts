/** Errors of the external identity-provider capability (docs/identity-providers.md). */
import { Schema } from "effect"

/** 502: the external provider could not be reached, or answered something that is not OpenID Connect. */
export class IdentityProviderUnavailable extends Schema.TaggedError<IdentityProviderUnavailable>()("IdentityProviderUnavailable", { detail: Schema.String }) {
  readonly status = 502 as const
  override get message() {
    return `Identity provider unavailable: ${this.detail}`
  }
}

/** 422: the discovery document does not describe the issuer that was registered. */
export class IdentityProviderIssuerMismatch extends Schema.TaggedError<IdentityProviderIssuerMismatch>()("IdentityProviderIssuerMismatch", {
  expected: Schema.String,
  actual: Schema.String,
}) {
  readonly status = 422 as const
  override get message() {
    return `Identity provider issuer mismatch: discovery names ${this.actual}, not ${this.expected}`
  }
}

/** 403: an RP's identity providers are managed by its contact account only. */
export class NotRpContactForProviders extends Schema.TaggedError<NotRpContactForProviders>()("NotRpContactForProviders", {}) {
  readonly status = 403 as const
  override get message() {
    return "Only the RP contact account can manage its identity providers"
  }
}

/** 400: the callback's state is unknown, used, expired, or was started in another browser. */
export class ExternalSignInStateInvalid extends Schema.TaggedError<ExternalSignInStateInvalid>()("ExternalSignInStateInvalid", {}) {
  readonly status = 400 as const
  override get message() {
    return "External sign-in state mismatch or already used"
  }
}

/** 401: the provider refused, or its code exchange or ID token did not hold. */
export class ExternalSignInFailed extends Schema.TaggedError<ExternalSignInFailed>()("ExternalSignInFailed", { detail: Schema.String }) {
  readonly status = 401 as const
  override get message() {
    return `External sign-in failed: ${this.detail}`
  }
}

/** 409: the external identity belongs to another Signet account. */
export class ExternalIdentityLinkedElsewhere extends Schema.TaggedError<ExternalIdentityLinkedElsewhere>()("ExternalIdentityLinkedElsewhere", {}) {
  readonly status = 409 as const
  override get message() {
    return "This external identity is already linked to another account"
  }
}

/** 403: a new account needs an e-mail address the provider has verified. */
export class ExternalEmailNotVerified extends Schema.TaggedError<ExternalEmailNotVerified>()("ExternalEmailNotVerified", {}) {
  readonly status = 403 as const
  override get message() {
    return "The identity provider did not give a verified e-mail address; sign in with a passkey and link it from your account"
  }
}

/** 403: an RP's own identity provider may sign in accounts linked to it, never create one (no pre-account hijack). */
export class ExternalAccountCreationRefused extends Schema.TaggedError<ExternalAccountCreationRefused>()("ExternalAccountCreationRefused", {}) {
  readonly status = 403 as const
  override get message() {
    return "This identity provider belongs to one relying party and cannot create Signet accounts; enrol with a passkey, then link it from your account"
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const identityProviderErrors = [
  IdentityProviderUnavailable,
  IdentityProviderIssuerMismatch,
  NotRpContactForProviders,
  ExternalSignInStateInvalid,
  ExternalSignInFailed,
  ExternalIdentityLinkedElsewhere,
  ExternalEmailNotVerified,
  ExternalAccountCreationRefused,
] as const
/** An error of this module. */
export type IdentityProviderError = InstanceType<(typeof identityProviderErrors)[number]>
