/**
 * The error catalogue: every failure the engine reports, with the exact message of the
 * interface spec ("Messages by condition") and its HTTP status. Nothing else in the
 * code base writes an error message; the HTTP adapter only reads `status` and `message`.
 */
import { Schema } from "effect"

/** HTTP status carried by every catalogued error. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503

// ---------------------------------------------------------------- authentication

/** 401: a bearer endpoint was called without an Authorization header. */
export class MissingAuthorizationHeader extends Schema.TaggedError<MissingAuthorizationHeader>()(
  "MissingAuthorizationHeader", {}) {
  readonly status = 401 as const
  override get message() { return "Missing Authorization header" }
}

/** 401: the bearer token is malformed, forged, from another environment or expired. */
export class InvalidOrExpiredToken extends Schema.TaggedError<InvalidOrExpiredToken>()(
  "InvalidOrExpiredToken", {}) {
  readonly status = 401 as const
  override get message() { return "Invalid or expired token" }
}

/** 401: a valid token without `sub` (a client-credentials token) on a user endpoint. */
export class TokenMissingSubject extends Schema.TaggedError<TokenMissingSubject>()(
  "TokenMissingSubject", {}) {
  readonly status = 401 as const
  override get message() { return "Token missing subject claim" }
}

/** 403: a cookie-authenticated state change without a valid CSRF token or Authorization header. */
export class CsrfValidationFailed extends Schema.TaggedError<CsrfValidationFailed>()(
  "CsrfValidationFailed", {}) {
  readonly status = 403 as const
  override get message() { return "CSRF token validation failed" }
}

/** 401: HTTP Basic with an unknown client id or a wrong client secret (KYC, token endpoint). */
export class InvalidClient extends Schema.TaggedError<InvalidClient>()("InvalidClient", {}) {
  readonly status = 401 as const
  override get message() { return "invalid_client" }
}

/** 403: the bearer token lacks a scope the endpoint needs (`basic` for `/v2/*`). */
export class InsufficientScope extends Schema.TaggedError<InsufficientScope>()(
  "InsufficientScope", { scope: Schema.String }) {
  readonly status = 403 as const
  override get message() { return `Token lacks required scope: ${this.scope}` }
}

// ---------------------------------------------------------------- relying parties and LOA

/** 403: `/ssc/token` (and sign-in) for a client id the engine does not know. */
export class UnknownRpClientId extends Schema.TaggedError<UnknownRpClientId>()(
  "UnknownRpClientId", {}) {
  readonly status = 403 as const
  override get message() { return "Unknown RP client_id" }
}

/** 403: the RP exists but is `pending`, `rejected` or `suspended`. */
export class RpNotApproved extends Schema.TaggedError<RpNotApproved>()(
  "RpNotApproved", { rpStatus: Schema.String }) {
  readonly status = 403 as const
  override get message() { return `RP registration not approved. Status: ${this.rpStatus}` }
}

/** 403: `/ssc/token` with a wrong SSC secret. */
export class InvalidClientCredentials extends Schema.TaggedError<InvalidClientCredentials>()(
  "InvalidClientCredentials", {}) {
  readonly status = 403 as const
  override get message() { return "Invalid client credentials" }
}

/** 403: the requested LOA is above what the RP may grant. */
export class LoaExceedsMaximum extends Schema.TaggedError<LoaExceedsMaximum>()(
  "LoaExceedsMaximum", { requested: Schema.String, maximum: Schema.String }) {
  readonly status = 403 as const
  override get message() { return `Requested LOA ${this.requested} exceeds RP maximum ${this.maximum}` }
}

/** 403: LOA-4 asked of an RP whose organisation is not KYC-verified. */
export class Loa4RequiresKycVerifiedRp extends Schema.TaggedError<Loa4RequiresKycVerifiedRp>()(
  "Loa4RequiresKycVerifiedRp", {}) {
  readonly status = 403 as const
  override get message() { return "LOA-4 requires KYC-verified RP" }
}

/** 404: LOA-4 token for a signer e-mail with no account. */
export class UserNotFoundForEmail extends Schema.TaggedError<UserNotFoundForEmail>()(
  "UserNotFoundForEmail", { email: Schema.String }) {
  readonly status = 404 as const
  override get message() { return `User not found for email: ${this.email}` }
}

/** 404: LOA-4 token for a signer with no passkey. */
export class NoCredentialForUser extends Schema.TaggedError<NoCredentialForUser>()(
  "NoCredentialForUser", {}) {
  readonly status = 404 as const
  override get message() { return "No credential found for user" }
}

/** 403: `/ssc/challenge` from an origin the RP did not authorise. */
export class RpOriginNotAuthorized extends Schema.TaggedError<RpOriginNotAuthorized>()(
  "RpOriginNotAuthorized", { origin: Schema.String }) {
  readonly status = 403 as const
  override get message() { return `RP origin not authorized: ${this.origin}` }
}

// ---------------------------------------------------------------- passkey assertions

/** 403: the assertion signature does not verify with the registered public key. */
export class PasskeySignatureInvalid extends Schema.TaggedError<PasskeySignatureInvalid>()(
  "PasskeySignatureInvalid", {}) {
  readonly status = 403 as const
  override get message() { return "Passkey signature verification failed" }
}

/** 403: the assertion was made over another challenge (dynamic linking). */
export class ChallengeMismatch extends Schema.TaggedError<ChallengeMismatch>()(
  "ChallengeMismatch", {}) {
  readonly status = 403 as const
  override get message() { return "Challenge mismatch — dynamic linking failed" }
}

/** 403: clientDataJSON names an origin the engine does not serve for this RP. */
export class OriginMismatch extends Schema.TaggedError<OriginMismatch>()("OriginMismatch", {}) {
  readonly status = 403 as const
  override get message() { return "Origin mismatch — possible phishing attack" }
}

/** 403: the authenticator did not verify the user (UV flag off). */
export class UserVerificationRequired extends Schema.TaggedError<UserVerificationRequired>()(
  "UserVerificationRequired", {}) {
  readonly status = 403 as const
  override get message() { return "User verification required — biometric or PIN not confirmed" }
}

/** 403: the authenticator data is scoped to another RP id. */
export class RpIdMismatch extends Schema.TaggedError<RpIdMismatch>()("RpIdMismatch", {}) {
  readonly status = 403 as const
  override get message() { return "Passkey was created for a different site (RP ID mismatch)" }
}

/** 403: the credential id is not registered (or not the expected user's). */
export class CredentialNotRegistered extends Schema.TaggedError<CredentialNotRegistered>()(
  "CredentialNotRegistered", {}) {
  readonly status = 403 as const
  override get message() { return "Credential not registered" }
}

/** 403: the signature counter went backwards: a sign of a cloned authenticator (engine decision). */
export class SignatureCounterRegressed extends Schema.TaggedError<SignatureCounterRegressed>()(
  "SignatureCounterRegressed", {}) {
  readonly status = 403 as const
  override get message() { return "Passkey signature counter did not increase — possible cloned authenticator" }
}

/** 410: the operation (or ceremony) is unknown, already used or past its lifetime. */
export class OperationExpired extends Schema.TaggedError<OperationExpired>()("OperationExpired", {}) {
  readonly status = 410 as const
  override get message() { return "Operation expired or not found" }
}

// ---------------------------------------------------------------- hash signing

/** 400: `/v2/sign/single` without `documentHash` or `credentialId`. */
export class DocumentHashAndCredentialRequired extends Schema.TaggedError<DocumentHashAndCredentialRequired>()(
  "DocumentHashAndCredentialRequired", {}) {
  readonly status = 400 as const
  override get message() { return "documentHash and credentialId required" }
}

/** 404: the signed-in user holds no passkey with that id. */
export class NoSigningCredential extends Schema.TaggedError<NoSigningCredential>()(
  "NoSigningCredential", {}) {
  readonly status = 404 as const
  override get message() { return "No signing credential found for user" }
}

/** 404: completion of an unknown or already completed signing request. */
export class SigningRequestNotFound extends Schema.TaggedError<SigningRequestNotFound>()(
  "SigningRequestNotFound", {}) {
  readonly status = 404 as const
  override get message() { return "Signing request not found or already processed" }
}

/** 429: the RP's daily signature allowance is used up until 00:00 UTC. */
export class DailySigningLimitExceeded extends Schema.TaggedError<DailySigningLimitExceeded>()(
  "DailySigningLimitExceeded", {
    used: Schema.Number, maximum: Schema.Number, resetsAt: Schema.String,
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
  override get message() { return "Rate limit exceeded. Please try again later." }
}

/** 429: a batch larger than the plan allows. */
export class BatchSizeExceeded extends Schema.TaggedError<BatchSizeExceeded>()(
  "BatchSizeExceeded", { size: Schema.Number, maximum: Schema.Number }) {
  readonly status = 429 as const
  override get message() { return `Batch size ${this.size} exceeds maximum ${this.maximum}` }
}

// ---------------------------------------------------------------- identity verification

/** 404: unknown verification, or a capture that did not go through the session url. */
export class KycVerificationNotFound extends Schema.TaggedError<KycVerificationNotFound>()(
  "KycVerificationNotFound", {}) {
  readonly status = 404 as const
  override get message() { return "KYC verification not found" }
}

/** 409: document or face step on a verification that is already `verified`. */
export class AlreadyVerified extends Schema.TaggedError<AlreadyVerified>()("AlreadyVerified", {}) {
  readonly status = 409 as const
  override get message() { return "This verification is already verified" }
}

/** 409: face step before any document was accepted. */
export class SubmitDocumentFirst extends Schema.TaggedError<SubmitDocumentFirst>()(
  "SubmitDocumentFirst", {}) {
  readonly status = 409 as const
  override get message() { return "Submit the document before the liveness step" }
}

/** 409: face step after the document was refused; a new document is needed. */
export class ResubmitDocumentFirst extends Schema.TaggedError<ResubmitDocumentFirst>()(
  "ResubmitDocumentFirst", {}) {
  readonly status = 409 as const
  override get message() { return "Resubmit the document before the liveness step" }
}

/** 409: the `rp_urn` names another customer of this RP. */
export class RpUrnNotOwned extends Schema.TaggedError<RpUrnNotOwned>()(
  "RpUrnNotOwned", { urn: Schema.String, detail: Schema.String }) {
  readonly status = 409 as const
  override get message() { return `rp_urn ${this.urn} does not belong to this customer_id: ${this.detail}` }
}

/** 409: the phone number (or `rp_urn`) is held by another customer, or the customer holds another. */
export class PhoneNumberTaken extends Schema.TaggedError<PhoneNumberTaken>()(
  "PhoneNumberTaken", { phoneNumber: Schema.String, detail: Schema.String }) {
  readonly status = 409 as const
  override get message() {
    return `phone_number ${this.phoneNumber} already belongs to another customer: ${this.detail}`
  }
}

/** 422: document step without images. */
export class DocumentImageRequired extends Schema.TaggedError<DocumentImageRequired>()(
  "DocumentImageRequired", {}) {
  readonly status = 422 as const
  override get message() { return "At least one document image is required" }
}

/** 422: face step without `livenessTransactionId`. */
export class LivenessTransactionIdRequired extends Schema.TaggedError<LivenessTransactionIdRequired>()(
  "LivenessTransactionIdRequired", {}) {
  readonly status = 422 as const
  override get message() { return "A liveness transaction id is required" }
}

/** 422: a KYC call without `customer_id`. */
export class CustomerIdRequired extends Schema.TaggedError<CustomerIdRequired>()("CustomerIdRequired", {}) {
  readonly status = 422 as const
  override get message() { return "customer_id is required" }
}

/** 422: `/kyc/verifications` without `phone_number`. */
export class PhoneNumberRequired extends Schema.TaggedError<PhoneNumberRequired>()("PhoneNumberRequired", {}) {
  readonly status = 422 as const
  override get message() { return "phone_number is required" }
}

/** Why a phone number or customer e-mail was refused. */
export const InvalidIdentifierReason = Schema.Literal(
  "no_country_code", "wrong_digit_count", "unused_range", "email_without_tld", "unsafe_characters")

/** 422: a phone number or e-mail identifier in a wrong format. */
export class InvalidIdentifierFormat extends Schema.TaggedError<InvalidIdentifierFormat>()(
  "InvalidIdentifierFormat", { value: Schema.String, reason: InvalidIdentifierReason }) {
  readonly status = 422 as const
  override get message() {
    switch (this.reason) {
      case "no_country_code": return `phone_number ${this.value} must include a country code (e.g. +254...)`
      case "wrong_digit_count": return `phone_number ${this.value} has the wrong number of digits for its country`
      case "unused_range": return `phone_number ${this.value} is not in a number range in use`
      case "email_without_tld": return `customer_id ${this.value} is an e-mail address without a top-level domain`
      // `value` is already made visible (\u{…}) by the caller: the refused characters must not act in the message either.
      case "unsafe_characters": return `customer_id ${this.value} contains control, bidirectional, invisible or compatibility (e.g. fullwidth) characters`
    }
  }
}

// ---------------------------------------------------------------- decided by the engine (docs/errors.md)

/** 400: a required field is missing or has the wrong format; `detail` names it. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest", { detail: Schema.String }) {
  readonly status = 400 as const
  override get message() { return this.detail }
}

/** 400: the body is not parseable JSON. */
export class MalformedJson extends Schema.TaggedError<MalformedJson>()("MalformedJson", { detail: Schema.String }) {
  readonly status = 400 as const
  override get message() { return `Malformed JSON body: ${this.detail}` }
}

/** 415: a body with a content type the endpoint does not take. */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType", { expected: Schema.String }) {
  readonly status = 415 as const
  override get message() { return `Unsupported content type; expected ${this.expected}` }
}

/** 413: a body above the endpoint's limit (base64 expansion included). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", { limit: Schema.Number }) {
  readonly status = 413 as const
  override get message() { return `Request body too large; the limit is ${this.limit} bytes` }
}

/** 408: the server's processing deadline passed; the operation's state tells whether it took effect. */
export class ProcessingDeadlineExceeded extends Schema.TaggedError<ProcessingDeadlineExceeded>()(
  "ProcessingDeadlineExceeded", {}) {
  readonly status = 408 as const
  override get message() { return "Processing deadline exceeded; read the operation state before retrying" }
}

/** 404: no route, or a resource the caller may not see. */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>()("ResourceNotFound", { what: Schema.String }) {
  readonly status = 404 as const
  override get message() { return `${this.what} not found` }
}

/** 503: a feature whose adapter this server was started without (production KYC, currency conversion). */
export class NotConfigured extends Schema.TaggedError<NotConfigured>()("NotConfigured", { feature: Schema.String }) {
  readonly status = 503 as const
  override get message() { return `${this.feature} is not configured on this server` }
}

/** 405: the path exists but not with this method. */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", { method: Schema.String }) {
  readonly status = 405 as const
  override get message() { return `Method ${this.method} not allowed` }
}

/** 409: a unique identifier (e-mail, client id, key id) is already taken. */
export class AlreadyExists extends Schema.TaggedError<AlreadyExists>()("AlreadyExists", { what: Schema.String }) {
  readonly status = 409 as const
  override get message() { return `${this.what} already exists` }
}

/** 403: adding a passkey to an account that has one needs that account's bearer token. */
export class EnrolmentRequiresSignIn extends Schema.TaggedError<EnrolmentRequiresSignIn>()(
  "EnrolmentRequiresSignIn", {}) {
  readonly status = 403 as const
  override get message() { return "Sign in to add a passkey to an existing account" }
}

/** 403: the registration response did not verify (attestation, algorithm or format). */
export class RegistrationRejected extends Schema.TaggedError<RegistrationRejected>()(
  "RegistrationRejected", { detail: Schema.String }) {
  readonly status = 403 as const
  override get message() { return `Passkey registration failed: ${this.detail}` }
}

/** 409: an RP status move the approval rules do not allow (e.g. suspending a pending RP). */
export class RpTransitionNotAllowed extends Schema.TaggedError<RpTransitionNotAllowed>()(
  "RpTransitionNotAllowed", { from: Schema.String, command: Schema.String }) {
  readonly status = 409 as const
  override get message() { return `RP in status ${this.from} cannot be ${this.command}` }
}

/** 403: `/ssc/challenge` or `/ssc/finalize` for another document than the token or operation was made for. */
export class DocumentHashMismatch extends Schema.TaggedError<DocumentHashMismatch>()("DocumentHashMismatch", {}) {
  readonly status = 403 as const
  override get message() { return "documentHash does not match the signing token" }
}

/** 403: KYC is not enabled for the authenticated RP (an administrator enables it; docs/kyc.md). */
export class KycNotEnabled extends Schema.TaggedError<KycNotEnabled>()("KycNotEnabled", {}) {
  readonly status = 403 as const
  override get message() { return "KYC is not enabled for this RP" }
}

/** 403: an `rp_urn` in another RP's namespace (`urn:<service>:<client_id>:<id>` with another client id). */
export class KycUrnForeign extends Schema.TaggedError<KycUrnForeign>()("KycUrnForeign", { urn: Schema.String }) {
  readonly status = 403 as const
  override get message() { return `rp_urn ${this.urn} belongs to another RP` }
}

/** 409: compare against a customer whose verification is not `verified`. */
export class KycIdentityNotVerified extends Schema.TaggedError<KycIdentityNotVerified>()(
  "KycIdentityNotVerified", { customerId: Schema.String }) {
  readonly status = 409 as const
  override get message() {
    return `No verified identity on file for customer_id ${this.customerId}; complete document and live face capture first`
  }
}

/** 409: a reviewer decision on a verification that is not in `needs_review`. */
export class KycReviewNotPending extends Schema.TaggedError<KycReviewNotPending>()(
  "KycReviewNotPending", { current: Schema.String }) {
  readonly status = 409 as const
  override get message() { return `Only a verification in needs_review can be reviewed; this one is ${this.current}` }
}

/** 409: the verification changed while this request ran; read its current state. */
export class KycStateConflict extends Schema.TaggedError<KycStateConflict>()("KycStateConflict", {}) {
  readonly status = 409 as const
  override get message() { return "The verification changed meanwhile; read its current state and retry" }
}

/** 403: webhook and usage operations need the access token of the RP's contact account. */
export class NotRpContactAccount extends Schema.TaggedError<NotRpContactAccount>()("NotRpContactAccount", {}) {
  readonly status = 403 as const
  override get message() { return "Only the RP contact account can manage webhooks" }
}

/** 403: a certificate can be revoked by its holder (or an administrator), no one else. */
export class NotCertificateHolder extends Schema.TaggedError<NotCertificateHolder>()("NotCertificateHolder", {}) {
  readonly status = 403 as const
  override get message() { return "Only the certificate's holder can revoke it" }
}

// ---- RP platform: self-service registration, administration, organisation KYC ----

/** 401: the administrator API and console need the administrator token (none configured refuses all). */
export class AdminTokenRequired extends Schema.TaggedError<AdminTokenRequired>()("AdminTokenRequired", {}) {
  readonly status = 401 as const
  override get message() { return "Administrator token required" }
}

/** 409: a setting the contact may only change before approval (WebAuthn RP id, requested plan). */
export class RpSettingLocked extends Schema.TaggedError<RpSettingLocked>()("RpSettingLocked", { setting: Schema.String }) {
  readonly status = 409 as const
  override get message() { return `${this.setting} can only be changed while the registration is pending` }
}

// ---------------------------------------------------------------- external identity providers (docs/identity-providers.md)

/** 502: the external provider could not be reached, or answered something that is not OpenID Connect. */
export class IdentityProviderUnavailable extends Schema.TaggedError<IdentityProviderUnavailable>()(
  "IdentityProviderUnavailable", { detail: Schema.String }) {
  readonly status = 502 as const
  override get message() { return `Identity provider unavailable: ${this.detail}` }
}

/** 422: the discovery document does not describe the issuer that was registered. */
export class IdentityProviderIssuerMismatch extends Schema.TaggedError<IdentityProviderIssuerMismatch>()(
  "IdentityProviderIssuerMismatch", { expected: Schema.String, actual: Schema.String }) {
  readonly status = 422 as const
  override get message() { return `Identity provider issuer mismatch: discovery names ${this.actual}, not ${this.expected}` }
}

/** 403: an RP's identity providers are managed by its contact account only. */
export class NotRpContactForProviders extends Schema.TaggedError<NotRpContactForProviders>()("NotRpContactForProviders", {}) {
  readonly status = 403 as const
  override get message() { return "Only the RP contact account can manage its identity providers" }
}

/** 400: the callback's state is unknown, used, expired, or was started in another browser. */
export class ExternalSignInStateInvalid extends Schema.TaggedError<ExternalSignInStateInvalid>()("ExternalSignInStateInvalid", {}) {
  readonly status = 400 as const
  override get message() { return "External sign-in state mismatch or already used" }
}

/** 401: the provider refused, or its code exchange or ID token did not hold. */
export class ExternalSignInFailed extends Schema.TaggedError<ExternalSignInFailed>()(
  "ExternalSignInFailed", { detail: Schema.String }) {
  readonly status = 401 as const
  override get message() { return `External sign-in failed: ${this.detail}` }
}

/** 409: the external identity belongs to another Signet account. */
export class ExternalIdentityLinkedElsewhere extends Schema.TaggedError<ExternalIdentityLinkedElsewhere>()(
  "ExternalIdentityLinkedElsewhere", {}) {
  readonly status = 409 as const
  override get message() { return "This external identity is already linked to another account" }
}

/** 403: a new account needs an e-mail address the provider has verified. */
export class ExternalEmailNotVerified extends Schema.TaggedError<ExternalEmailNotVerified>()("ExternalEmailNotVerified", {}) {
  readonly status = 403 as const
  override get message() { return "The identity provider did not give a verified e-mail address; sign in with a passkey and link it from your account" }
}

// Documents: encrypted files, decryption and signature images (docs/documents.md).

/** 403: an EnvelopedData given to `/decrypt/asymmetric` names none of the user's encryption certificates. */
export class NotAnEnvelopeRecipient extends Schema.TaggedError<NotAnEnvelopeRecipient>()("NotAnEnvelopeRecipient", {}) {
  readonly status = 403 as const
  override get message() { return "The EnvelopedData is not addressed to your encryption certificate" }
}

/** 409: the image of a signature exists only once the signing request is completed. */
export class SigningRequestNotCompleted extends Schema.TaggedError<SigningRequestNotCompleted>()("SigningRequestNotCompleted", {}) {
  readonly status = 409 as const
  override get message() { return "Signing request is not completed" }
}

// ---- Timestamps (RFC 3161 TSA, -T signature levels) ----

/** 503: the timestamp authority did not answer (an external TSA unreachable or refusing); nothing was signed. */
export class TimestampUnavailable extends Schema.TaggedError<TimestampUnavailable>()("TimestampUnavailable", { detail: Schema.String }) {
  readonly status = 503 as const
  override get message() { return "Timestamp authority unavailable" }
}

// ---------------------------------------------------------------- OpenID provider (OAuth 2.0 / OpenID Connect)

/**
 * An OAuth 2.0 error (RFC 6749 §4.1.2.1 and §5.2, RFC 7009, OpenID Connect Core §3.1.2.6): the
 * `error` code and a human `error_description`. The OAuth endpoints answer it as
 * `{ "error": <code>, "error_description": <description> }` (or in the redirect); elsewhere the
 * generic `{ "error": "<code>: <description>" }` applies. 401 for `invalid_client`, else 400.
 */
export class OAuthError extends Schema.TaggedError<OAuthError>()("OAuthError", { code: Schema.String, description: Schema.String }) {
  get status(): 400 | 401 { return this.code === "invalid_client" ? 401 : 400 }
  override get message() { return `${this.code}: ${this.description}` }
}

/** Every catalogued error; the HTTP adapter maps exactly these. */
export type CataloguedError =
  | MissingAuthorizationHeader | InvalidOrExpiredToken | TokenMissingSubject | CsrfValidationFailed
  | InvalidClient | InsufficientScope | UnknownRpClientId | RpNotApproved | InvalidClientCredentials
  | LoaExceedsMaximum | Loa4RequiresKycVerifiedRp | UserNotFoundForEmail | NoCredentialForUser
  | RpOriginNotAuthorized | PasskeySignatureInvalid | ChallengeMismatch | OriginMismatch
  | UserVerificationRequired | RpIdMismatch | CredentialNotRegistered | SignatureCounterRegressed
  | OperationExpired | DocumentHashAndCredentialRequired | NoSigningCredential | SigningRequestNotFound
  | DailySigningLimitExceeded | RateLimitExceeded | BatchSizeExceeded | KycVerificationNotFound
  | AlreadyVerified | SubmitDocumentFirst | ResubmitDocumentFirst | RpUrnNotOwned | PhoneNumberTaken
  | DocumentImageRequired | LivenessTransactionIdRequired | CustomerIdRequired | PhoneNumberRequired
  | InvalidIdentifierFormat | InvalidRequest | MalformedJson | UnsupportedMediaType | PayloadTooLarge
  | ProcessingDeadlineExceeded | ResourceNotFound | MethodNotAllowed | AlreadyExists | NotConfigured
  | EnrolmentRequiresSignIn | RegistrationRejected | RpTransitionNotAllowed | DocumentHashMismatch | NotRpContactAccount | NotCertificateHolder
  | KycNotEnabled | KycUrnForeign | KycIdentityNotVerified | KycReviewNotPending | KycStateConflict
  | AdminTokenRequired | RpSettingLocked
  | BillingError
  | AccountError
  | IdentityProviderUnavailable | IdentityProviderIssuerMismatch | NotRpContactForProviders | ExternalSignInStateInvalid
  | ExternalSignInFailed | ExternalIdentityLinkedElsewhere | ExternalEmailNotVerified
  | NotAnEnvelopeRecipient | SigningRequestNotCompleted
  | TimestampUnavailable
  | OAuthError
  | PdfUnreadable | PdfTooComplex | PdfTooLarge | SignatureTooLargeForPlaceholder | PdfDocumentNotFound | PdfNotYetSigned | SignatureImageInvalid
  | AuthorizationError

/** True for any error of the catalogue (they all carry a numeric `status`). */
export const isCatalogued = (u: unknown): u is CataloguedError =>
  typeof u === "object" && u !== null && "_tag" in u && "status" in u && typeof (u as { status: unknown }).status === "number"

// ---------------------------------------------------------------- plans, checkout and payments

/** 409: a checkout command that its current status does not allow (or a confirmation for another payment). */
export class CheckoutTransitionNotAllowed extends Schema.TaggedError<CheckoutTransitionNotAllowed>()(
  "CheckoutTransitionNotAllowed", { current: Schema.String, verb: Schema.String }) {
  readonly status = 409 as const
  override get message() { return `Checkout in status ${this.current} cannot be ${this.verb}` }
}

/** 401: a payment callback whose signature does not verify with the provider's shared secret. */
export class PaymentCallbackSignatureInvalid extends Schema.TaggedError<PaymentCallbackSignatureInvalid>()(
  "PaymentCallbackSignatureInvalid", {}) {
  readonly status = 401 as const
  override get message() { return "Invalid payment callback signature" }
}

/** Errors of plans, checkout and payments (part of `CataloguedError`). */
export type BillingError = CheckoutTransitionNotAllowed | PaymentCallbackSignatureInvalid
// ---------------------------------------------------------------- PAdES (PDF signing)

/** 422: the uploaded bytes are not a PDF the engine can read and append a signature to. */
export class PdfUnreadable extends Schema.TaggedError<PdfUnreadable>()("PdfUnreadable", { detail: Schema.String }) {
  readonly status = 422 as const
  override get message() { return `Not a PDF that can be signed: ${this.detail}` }
}

/**
 * 422: reading the PDF would go past one of the reader's fixed budgets (objects, inflated bytes,
 * nesting depth, cross-reference entries) or past the PDF worker's time or memory (docs/security/pdf.md).
 */
export class PdfTooComplex extends Schema.TaggedError<PdfTooComplex>()("PdfTooComplex", { detail: Schema.String }) {
  readonly status = 422 as const
  override get message() { return `PDF exceeds a processing limit: ${this.detail}` }
}

/** 413: a PDF upload above the documented limit. */
export class PdfTooLarge extends Schema.TaggedError<PdfTooLarge>()("PdfTooLarge", { limit: Schema.Number }) {
  readonly status = 413 as const
  override get message() { return `PDF too large; the limit is ${this.limit} bytes (sign larger files with the library API)` }
}

/** 409: the signature is larger than the placeholder prepared for it. */
export class SignatureTooLargeForPlaceholder extends Schema.TaggedError<SignatureTooLargeForPlaceholder>()(
  "SignatureTooLargeForPlaceholder", { size: Schema.Number, room: Schema.Number }) {
  readonly status = 409 as const
  override get message() { return `Signature of ${this.size} bytes does not fit the ${this.room}-byte placeholder` }
}

/** 404: no prepared or signed PDF under this id (or it belongs to another relying party). */
export class PdfDocumentNotFound extends Schema.TaggedError<PdfDocumentNotFound>()("PdfDocumentNotFound", {}) {
  readonly status = 404 as const
  override get message() { return "PDF signing request not found" }
}

/** 409: the signed PDF was asked for before the signer approved it. */
export class PdfNotYetSigned extends Schema.TaggedError<PdfNotYetSigned>()("PdfNotYetSigned", { requestStatus: Schema.String }) {
  readonly status = 409 as const
  override get message() { return `PDF not signed yet. Status: ${this.requestStatus}` }
}

/** 422: a signature image (set for the user, or given for a visible PDF signature) is not a PNG the engine can read. */
export class SignatureImageInvalid extends Schema.TaggedError<SignatureImageInvalid>()("SignatureImageInvalid", { detail: Schema.String }) {
  readonly status = 422 as const
  override get message() { return `Signature image is not a usable PNG: ${this.detail}` }
}

// ---------------------------------------------------------------- authorization (docs/authorization.md)

/** 403: an account-wide administration call with a token that was not issued to Signet's console. */
export class ConsoleClientRequired extends Schema.TaggedError<ConsoleClientRequired>()("ConsoleClientRequired", {}) {
  readonly status = 403 as const
  override get message() { return "This operation needs a token issued to the Signet console" }
}

/** 403: decryption, revocation or secret rotation without a fresh, unused passkey approval for it. */
export class StepUpRequired extends Schema.TaggedError<StepUpRequired>()("StepUpRequired", { action: Schema.String }) {
  readonly status = 403 as const
  override get message() { return `Fresh passkey approval required: ${this.action}` }
}

/** 403: an RP contact may revoke only a certificate that signed for its RP alone. */
export class CertificateSharedWithOtherRps extends Schema.TaggedError<CertificateSharedWithOtherRps>()("CertificateSharedWithOtherRps", {}) {
  readonly status = 403 as const
  override get message() { return "Certificate also signed for other relying parties; only its holder or an administrator can revoke it" }
}

/** Errors of the authorization model (part of `CataloguedError`). */
export type AuthorizationError = ConsoleClientRequired | StepUpRequired | CertificateSharedWithOtherRps
// ---------------------------------------------------------------- accounts and e-mail ownership (docs/identity.md)

/** 403: a passkey for an account (new or existing) without that account's proof: its token or session, or a verified e-mail. */
export class EmailVerificationRequired extends Schema.TaggedError<EmailVerificationRequired>()("EmailVerificationRequired", {}) {
  readonly status = 403 as const
  override get message() { return "Verify this e-mail address first (POST /enrolment/email), or sign in to add a passkey to your own account" }
}

/** 400: an e-mail verification code that is wrong, or a verification that is unknown, used up, expired or out of attempts. */
export class EmailVerificationFailed extends Schema.TaggedError<EmailVerificationFailed>()("EmailVerificationFailed", {}) {
  readonly status = 400 as const
  override get message() { return "E-mail verification code is wrong, used or expired" }
}

/** 429: too many verification e-mails for one address within the hour. */
export class EmailVerificationLimit extends Schema.TaggedError<EmailVerificationLimit>()("EmailVerificationLimit", { perHour: Schema.Number }) {
  readonly status = 429 as const
  override get message() { return `Too many verification e-mails for this address: at most ${this.perHour} per hour` }
}

/** 502: the mail system refused the message or could not be reached. */
export class MailUndeliverable extends Schema.TaggedError<MailUndeliverable>()("MailUndeliverable", { detail: Schema.String }) {
  readonly status = 502 as const
  override get message() { return `E-mail could not be sent: ${this.detail}` }
}

/** 403: an RP's own identity provider may sign in accounts linked to it, never create one (no pre-account hijack). */
export class ExternalAccountCreationRefused extends Schema.TaggedError<ExternalAccountCreationRefused>()("ExternalAccountCreationRefused", {}) {
  readonly status = 403 as const
  override get message() {
    return "This identity provider belongs to one relying party and cannot create Signet accounts; enrol with a passkey, then link it from your account"
  }
}

/** Errors of accounts and e-mail ownership (part of `CataloguedError`). */
export type AccountError = EmailVerificationRequired | EmailVerificationFailed | EmailVerificationLimit | MailUndeliverable | ExternalAccountCreationRefused
