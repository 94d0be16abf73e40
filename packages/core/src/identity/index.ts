/** Public surface of the identity capability: accounts, passkeys (enrolment, sign-in, assertions), e-mail proof, access tokens, hosted sessions. */
export { authenticateBearer, issueAccessToken, jwks, verifyAccessToken } from "./access-token.ts"
export type { AccessClaims, BearerUser } from "./access-token.ts"
export { CLIENT_SCOPES, describeAccount, issueClientToken } from "./account.ts"
export { EmailAddress, OpenSessionResponse, PasskeyCreationOptions, PasskeyRequestOptions, SignInTokenResponse } from "./contract.ts"
export {
  EMAIL_CODES_PER_HOUR,
  EMAIL_CODE_DIGITS,
  EMAIL_CODE_MAX_ATTEMPTS,
  EMAIL_CODE_TTL_SECONDS,
  confirmEmailVerification,
  startEmailVerification,
} from "./email-verification.ts"
export { completeEnrolment, requestEnrolment } from "./enrolment.ts"
export type { EnrolmentRequest } from "./enrolment.ts"
export {
  ChallengeMismatch,
  CredentialNotRegistered,
  CsrfValidationFailed,
  EmailVerificationFailed,
  EmailVerificationLimit,
  EmailVerificationRequired,
  EnrolmentRequiresSignIn,
  InsufficientScope,
  InvalidOrExpiredToken,
  MailUndeliverable,
  MissingAuthorizationHeader,
  OriginMismatch,
  PasskeySignatureInvalid,
  RegistrationRejected,
  RpIdMismatch,
  SignatureCounterRegressed,
  TokenMissingSubject,
  UserVerificationRequired,
  identityErrors,
} from "./errors.ts"
export type { AccountError, IdentityError } from "./errors.ts"
export {
  checkCsrf,
  hostedSessionUser,
  openHostedSession,
  openSignedInSession,
  signInHostedSession,
  signOutHostedSession,
  signedInUserOf,
} from "./hosted-session.ts"
export { Mailer } from "./mailer.ts"
export type { MailMessage } from "./mailer.ts"
export { Ceremony, CeremonyKind, EmailVerification, HostedSession, Passkey, User } from "./model.ts"
export { Ceremonies, EmailVerifications, HostedSessions, Passkeys, Users } from "./ports.ts"
export { SIGN_IN_SCOPE, completeSignIn, completeSignInWithPasskey, requestSignIn } from "./sign-in.ts"
export { probeSigningKey, rotateSigningKey } from "./signing-keys.ts"
export type { Expectation } from "./webauthn/checks.ts"
export { Assertion, RegistrationCredential } from "./webauthn/schemas.ts"
export { verifyAssertion } from "./webauthn/verify-assertion.ts"
export { Es256Verifier } from "./webauthn/es256-verifier.ts"
export type { Es256Key, Es256VerifierService } from "./webauthn/es256-verifier.ts"
export type { VerifiedAssertion } from "./webauthn/verify-assertion.ts"
export { SUPPORTED_ALGORITHMS, verifyRegistration } from "./webauthn/verify-registration.ts"
export type { VerifiedRegistration } from "./webauthn/verify-registration.ts"
