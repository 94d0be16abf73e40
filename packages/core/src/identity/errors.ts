/** Errors of the identity capability: bearer authentication, passkey assertions and registration, e-mail ownership. */
import { Schema } from "effect"

/** 401: a bearer endpoint was called without an Authorization header. */
export class MissingAuthorizationHeader extends Schema.TaggedError<MissingAuthorizationHeader>()("MissingAuthorizationHeader", {}) {
  readonly status = 401 as const
  override get message() {
    return "Missing Authorization header"
  }
}

/** 401: the bearer token is malformed, forged, from another environment or expired. */
export class InvalidOrExpiredToken extends Schema.TaggedError<InvalidOrExpiredToken>()("InvalidOrExpiredToken", {}) {
  readonly status = 401 as const
  override get message() {
    return "Invalid or expired token"
  }
}

/** 401: a valid token without `sub` (a client-credentials token) on a user endpoint. */
export class TokenMissingSubject extends Schema.TaggedError<TokenMissingSubject>()("TokenMissingSubject", {}) {
  readonly status = 401 as const
  override get message() {
    return "Token missing subject claim"
  }
}

/** 403: a cookie-authenticated state change without a valid CSRF token or Authorization header. */
export class CsrfValidationFailed extends Schema.TaggedError<CsrfValidationFailed>()("CsrfValidationFailed", {}) {
  readonly status = 403 as const
  override get message() {
    return "CSRF token validation failed"
  }
}

/** 403: the bearer token lacks a scope the endpoint needs (`basic` for `/v2/*`). */
export class InsufficientScope extends Schema.TaggedError<InsufficientScope>()("InsufficientScope", { scope: Schema.String }) {
  readonly status = 403 as const
  override get message() {
    return `Token lacks required scope: ${this.scope}`
  }
}

/** 403: the assertion signature does not verify with the registered public key. */
export class PasskeySignatureInvalid extends Schema.TaggedError<PasskeySignatureInvalid>()("PasskeySignatureInvalid", {}) {
  readonly status = 403 as const
  override get message() {
    return "Passkey signature verification failed"
  }
}

/** 403: the assertion was made over another challenge (dynamic linking). */
export class ChallengeMismatch extends Schema.TaggedError<ChallengeMismatch>()("ChallengeMismatch", {}) {
  readonly status = 403 as const
  override get message() {
    return "Challenge mismatch — dynamic linking failed"
  }
}

/** 403: clientDataJSON names an origin the engine does not serve for this RP. */
export class OriginMismatch extends Schema.TaggedError<OriginMismatch>()("OriginMismatch", {}) {
  readonly status = 403 as const
  override get message() {
    return "Origin mismatch — possible phishing attack"
  }
}

/** 403: the authenticator did not verify the user (UV flag off). */
export class UserVerificationRequired extends Schema.TaggedError<UserVerificationRequired>()("UserVerificationRequired", {}) {
  readonly status = 403 as const
  override get message() {
    return "User verification required — biometric or PIN not confirmed"
  }
}

/** 403: the authenticator data is scoped to another RP id. */
export class RpIdMismatch extends Schema.TaggedError<RpIdMismatch>()("RpIdMismatch", {}) {
  readonly status = 403 as const
  override get message() {
    return "Passkey was created for a different site (RP ID mismatch)"
  }
}

/** 403: the credential id is not registered (or not the expected user's). */
export class CredentialNotRegistered extends Schema.TaggedError<CredentialNotRegistered>()("CredentialNotRegistered", {}) {
  readonly status = 403 as const
  override get message() {
    return "Credential not registered"
  }
}

/** 403: the signature counter went backwards: a sign of a cloned authenticator (engine decision). */
export class SignatureCounterRegressed extends Schema.TaggedError<SignatureCounterRegressed>()("SignatureCounterRegressed", {}) {
  readonly status = 403 as const
  override get message() {
    return "Passkey signature counter did not increase — possible cloned authenticator"
  }
}

/** 403: adding a passkey to an account that has one needs that account's bearer token. */
export class EnrolmentRequiresSignIn extends Schema.TaggedError<EnrolmentRequiresSignIn>()("EnrolmentRequiresSignIn", {}) {
  readonly status = 403 as const
  override get message() {
    return "Sign in to add a passkey to an existing account"
  }
}

/** 403: the registration response did not verify (attestation, algorithm or format). */
export class RegistrationRejected extends Schema.TaggedError<RegistrationRejected>()("RegistrationRejected", { detail: Schema.String }) {
  readonly status = 403 as const
  override get message() {
    return `Passkey registration failed: ${this.detail}`
  }
}

/** 403: a passkey for an account (new or existing) without that account's proof: its token or session, or a verified e-mail. */
export class EmailVerificationRequired extends Schema.TaggedError<EmailVerificationRequired>()("EmailVerificationRequired", {}) {
  readonly status = 403 as const
  override get message() {
    return "Verify this e-mail address first (POST /enrolment/email), or sign in to add a passkey to your own account"
  }
}

/** 400: an e-mail verification code that is wrong, or a verification that is unknown, used up, expired or out of attempts. */
export class EmailVerificationFailed extends Schema.TaggedError<EmailVerificationFailed>()("EmailVerificationFailed", {}) {
  readonly status = 400 as const
  override get message() {
    return "E-mail verification code is wrong, used or expired"
  }
}

/** 429: too many verification e-mails for one address within the hour. */
export class EmailVerificationLimit extends Schema.TaggedError<EmailVerificationLimit>()("EmailVerificationLimit", { perHour: Schema.Number }) {
  readonly status = 429 as const
  override get message() {
    return `Too many verification e-mails for this address: at most ${this.perHour} per hour`
  }
}

/** 502: the mail system refused the message or could not be reached. */
export class MailUndeliverable extends Schema.TaggedError<MailUndeliverable>()("MailUndeliverable", { detail: Schema.String }) {
  readonly status = 502 as const
  override get message() {
    return `E-mail could not be sent: ${this.detail}`
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const identityErrors = [
  MissingAuthorizationHeader,
  InvalidOrExpiredToken,
  TokenMissingSubject,
  CsrfValidationFailed,
  InsufficientScope,
  PasskeySignatureInvalid,
  ChallengeMismatch,
  OriginMismatch,
  UserVerificationRequired,
  RpIdMismatch,
  CredentialNotRegistered,
  SignatureCounterRegressed,
  EnrolmentRequiresSignIn,
  RegistrationRejected,
  EmailVerificationRequired,
  EmailVerificationFailed,
  EmailVerificationLimit,
  MailUndeliverable,
] as const
/** An error of this module. */
export type IdentityError = InstanceType<(typeof identityErrors)[number]>

/** Errors of accounts and e-mail ownership. */
export type AccountError = EmailVerificationRequired | EmailVerificationFailed | EmailVerificationLimit | MailUndeliverable
