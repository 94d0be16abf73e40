/** Errors of the relying-party capability: client authentication, approval, LOA, origins, quotas and self-service. */
import { Schema } from "effect"

/** 401: HTTP Basic with an unknown client id or a wrong client secret (KYC, token endpoint). */
export class InvalidClient extends Schema.TaggedError<InvalidClient>()("InvalidClient", {}) {
  readonly status = 401 as const
  override get message() {
    return "invalid_client"
  }
}

/** 403: `/ssc/token` (and sign-in) for a client id the engine does not know. */
export class UnknownRpClientId extends Schema.TaggedError<UnknownRpClientId>()("UnknownRpClientId", {}) {
  readonly status = 403 as const
  override get message() {
    return "Unknown RP client_id"
  }
}

/** 403: the RP exists but is `pending`, `rejected` or `suspended`. */
export class RpNotApproved extends Schema.TaggedError<RpNotApproved>()("RpNotApproved", { rpStatus: Schema.String }) {
  readonly status = 403 as const
  override get message() {
    return `RP registration not approved. Status: ${this.rpStatus}`
  }
}

/** 403: `/ssc/token` with a wrong SSC secret. */
export class InvalidClientCredentials extends Schema.TaggedError<InvalidClientCredentials>()("InvalidClientCredentials", {}) {
  readonly status = 403 as const
  override get message() {
    return "Invalid client credentials"
  }
}

/** 403: the requested LOA is above what the RP may grant. */
export class LoaExceedsMaximum extends Schema.TaggedError<LoaExceedsMaximum>()("LoaExceedsMaximum", { requested: Schema.String, maximum: Schema.String }) {
  readonly status = 403 as const
  override get message() {
    return `Requested LOA ${this.requested} exceeds RP maximum ${this.maximum}`
  }
}

/** 403: LOA-4 asked of an RP whose organisation is not KYC-verified. */
export class Loa4RequiresKycVerifiedRp extends Schema.TaggedError<Loa4RequiresKycVerifiedRp>()("Loa4RequiresKycVerifiedRp", {}) {
  readonly status = 403 as const
  override get message() {
    return "LOA-4 requires KYC-verified RP"
  }
}

/** 403: `/ssc/challenge` from an origin the RP did not authorise. */
export class RpOriginNotAuthorized extends Schema.TaggedError<RpOriginNotAuthorized>()("RpOriginNotAuthorized", { origin: Schema.String }) {
  readonly status = 403 as const
  override get message() {
    return `RP origin not authorized: ${this.origin}`
  }
}

/** 429: the RP's daily signature allowance is used up until 00:00 UTC. */
export class DailySigningLimitExceeded extends Schema.TaggedError<DailySigningLimitExceeded>()("DailySigningLimitExceeded", {
  used: Schema.Number,
  maximum: Schema.Number,
  resetsAt: Schema.String,
  /** seconds until 00:00 UTC (the `Retry-After` header) */
  retryAfterSeconds: Schema.optional(Schema.Number),
}) {
  readonly status = 429 as const
  override get message() {
    return `Daily signing limit exceeded (${this.used}/${this.maximum} used, resets at ${this.resetsAt})`
  }
}

/** 429: a per-minute window is full. */
export class RateLimitExceeded extends Schema.TaggedError<RateLimitExceeded>()("RateLimitExceeded", {
  /** seconds until the window ends (the `Retry-After` header; 60 when not known) */
  retryAfterSeconds: Schema.optional(Schema.Number),
}) {
  readonly status = 429 as const
  override get message() {
    return "Rate limit exceeded. Please try again later."
  }
}

/** 429: a batch larger than the plan allows. */
export class BatchSizeExceeded extends Schema.TaggedError<BatchSizeExceeded>()("BatchSizeExceeded", { size: Schema.Number, maximum: Schema.Number }) {
  readonly status = 429 as const
  override get message() {
    return `Batch size ${this.size} exceeds maximum ${this.maximum}`
  }
}

/** 409: an RP status move the approval rules do not allow (e.g. suspending a pending RP). */
export class RpTransitionNotAllowed extends Schema.TaggedError<RpTransitionNotAllowed>()("RpTransitionNotAllowed", {
  from: Schema.String,
  command: Schema.String,
}) {
  readonly status = 409 as const
  override get message() {
    return `RP in status ${this.from} cannot be ${this.command}`
  }
}

/** 409: a setting the contact may only change before approval (WebAuthn RP id, requested plan). */
export class RpSettingLocked extends Schema.TaggedError<RpSettingLocked>()("RpSettingLocked", { setting: Schema.String }) {
  readonly status = 409 as const
  override get message() {
    return `${this.setting} can only be changed while the registration is pending`
  }
}

/** 403: webhook and usage operations need the access token of the RP's contact account. */
export class NotRpContactAccount extends Schema.TaggedError<NotRpContactAccount>()("NotRpContactAccount", {}) {
  readonly status = 403 as const
  override get message() {
    return "Only the RP contact account can manage webhooks"
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const rpErrors = [
  InvalidClient,
  UnknownRpClientId,
  RpNotApproved,
  InvalidClientCredentials,
  LoaExceedsMaximum,
  Loa4RequiresKycVerifiedRp,
  RpOriginNotAuthorized,
  DailySigningLimitExceeded,
  RateLimitExceeded,
  BatchSizeExceeded,
  RpTransitionNotAllowed,
  RpSettingLocked,
  NotRpContactAccount,
] as const
/** An error of this module. */
export type RpError = InstanceType<(typeof rpErrors)[number]>
