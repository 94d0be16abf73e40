/** Errors of the identity-verification (KYC) capability. */
import { Schema } from "effect"

/** 404: unknown verification, or a capture that did not go through the session url. */
export class KycVerificationNotFound extends Schema.TaggedError<KycVerificationNotFound>()("KycVerificationNotFound", {}) {
  readonly status = 404 as const
  override get message() {
    return "KYC verification not found"
  }
}

/** 409: document or face step on a verification that is already `verified`. */
export class AlreadyVerified extends Schema.TaggedError<AlreadyVerified>()("AlreadyVerified", {}) {
  readonly status = 409 as const
  override get message() {
    return "This verification is already verified"
  }
}

/** 409: face step before any document was accepted. */
export class SubmitDocumentFirst extends Schema.TaggedError<SubmitDocumentFirst>()("SubmitDocumentFirst", {}) {
  readonly status = 409 as const
  override get message() {
    return "Submit the document before the liveness step"
  }
}

/** 409: face step after the document was refused; a new document is needed. */
export class ResubmitDocumentFirst extends Schema.TaggedError<ResubmitDocumentFirst>()("ResubmitDocumentFirst", {}) {
  readonly status = 409 as const
  override get message() {
    return "Resubmit the document before the liveness step"
  }
}

/** 409: the `rp_urn` names another customer of this RP. */
export class RpUrnNotOwned extends Schema.TaggedError<RpUrnNotOwned>()("RpUrnNotOwned", { urn: Schema.String, detail: Schema.String }) {
  readonly status = 409 as const
  override get message() {
    return `rp_urn ${this.urn} does not belong to this customer_id: ${this.detail}`
  }
}

/** 409: the phone number (or `rp_urn`) is held by another customer, or the customer holds another. */
export class PhoneNumberTaken extends Schema.TaggedError<PhoneNumberTaken>()("PhoneNumberTaken", { phoneNumber: Schema.String, detail: Schema.String }) {
  readonly status = 409 as const
  override get message() {
    return `phone_number ${this.phoneNumber} already belongs to another customer: ${this.detail}`
  }
}

/** 422: document step without images. */
export class DocumentImageRequired extends Schema.TaggedError<DocumentImageRequired>()("DocumentImageRequired", {}) {
  readonly status = 422 as const
  override get message() {
    return "At least one document image is required"
  }
}

/** 422: face step without `livenessTransactionId`. */
export class LivenessTransactionIdRequired extends Schema.TaggedError<LivenessTransactionIdRequired>()("LivenessTransactionIdRequired", {}) {
  readonly status = 422 as const
  override get message() {
    return "A liveness transaction id is required"
  }
}

/** 422: a KYC call without `customer_id`. */
export class CustomerIdRequired extends Schema.TaggedError<CustomerIdRequired>()("CustomerIdRequired", {}) {
  readonly status = 422 as const
  override get message() {
    return "customer_id is required"
  }
}

/** 422: `/kyc/verifications` without `phone_number`. */
export class PhoneNumberRequired extends Schema.TaggedError<PhoneNumberRequired>()("PhoneNumberRequired", {}) {
  readonly status = 422 as const
  override get message() {
    return "phone_number is required"
  }
}

/** Why a phone number or customer e-mail was refused. */
export const InvalidIdentifierReason = Schema.Literal("no_country_code", "wrong_digit_count", "unused_range", "email_without_tld", "unsafe_characters")

/** 422: a phone number or e-mail identifier in a wrong format. */
export class InvalidIdentifierFormat extends Schema.TaggedError<InvalidIdentifierFormat>()("InvalidIdentifierFormat", {
  value: Schema.String,
  reason: InvalidIdentifierReason,
}) {
  readonly status = 422 as const
  // biome-ignore lint/suspicious/useGetterReturn: the switch is exhaustive over the reasons (tsc checks it), every case returns
  override get message() {
    switch (this.reason) {
      case "no_country_code":
        return `phone_number ${this.value} must include a country code (e.g. +254...)`
      case "wrong_digit_count":
        return `phone_number ${this.value} has the wrong number of digits for its country`
      case "unused_range":
        return `phone_number ${this.value} is not in a number range in use`
      case "email_without_tld":
        return `customer_id ${this.value} is an e-mail address without a top-level domain`
      // `value` is already made visible (\u{…}) by the caller: the refused characters must not act in the message either.
      case "unsafe_characters":
        return `customer_id ${this.value} contains control, bidirectional, invisible or compatibility (e.g. fullwidth) characters`
    }
  }
}

/** 403: KYC is not enabled for the authenticated RP (an administrator enables it; docs/kyc.md). */
export class KycNotEnabled extends Schema.TaggedError<KycNotEnabled>()("KycNotEnabled", {}) {
  readonly status = 403 as const
  override get message() {
    return "KYC is not enabled for this RP"
  }
}

/** 403: an `rp_urn` in another RP's namespace (`urn:<service>:<client_id>:<id>` with another client id). */
export class KycUrnForeign extends Schema.TaggedError<KycUrnForeign>()("KycUrnForeign", { urn: Schema.String }) {
  readonly status = 403 as const
  override get message() {
    return `rp_urn ${this.urn} belongs to another RP`
  }
}

/** 409: compare against a customer whose verification is not `verified`. */
export class KycIdentityNotVerified extends Schema.TaggedError<KycIdentityNotVerified>()("KycIdentityNotVerified", { customerId: Schema.String }) {
  readonly status = 409 as const
  override get message() {
    return `No verified identity on file for customer_id ${this.customerId}; complete document and live face capture first`
  }
}

/** 409: a reviewer decision on a verification that is not in `needs_review`. */
export class KycReviewNotPending extends Schema.TaggedError<KycReviewNotPending>()("KycReviewNotPending", { current: Schema.String }) {
  readonly status = 409 as const
  override get message() {
    return `Only a verification in needs_review can be reviewed; this one is ${this.current}`
  }
}

/** 409: the verification changed while this request ran; read its current state. */
export class KycStateConflict extends Schema.TaggedError<KycStateConflict>()("KycStateConflict", {}) {
  readonly status = 409 as const
  override get message() {
    return "The verification changed meanwhile; read its current state and retry"
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const kycErrors = [
  KycVerificationNotFound,
  AlreadyVerified,
  SubmitDocumentFirst,
  ResubmitDocumentFirst,
  RpUrnNotOwned,
  PhoneNumberTaken,
  DocumentImageRequired,
  LivenessTransactionIdRequired,
  CustomerIdRequired,
  PhoneNumberRequired,
  InvalidIdentifierFormat,
  KycNotEnabled,
  KycUrnForeign,
  KycIdentityNotVerified,
  KycReviewNotPending,
  KycStateConflict,
] as const
/** An error of this module. */
export type KycError = InstanceType<(typeof kycErrors)[number]>
