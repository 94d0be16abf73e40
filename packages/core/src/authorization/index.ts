/** Public surface of the authorization capability: principals and scopes, step-up approvals, the audit trail, RP self-service (docs/authorization.md). */
export { auditEvent } from "./audit.ts"
export type { AuditActor } from "./audit.ts"
export { StepUpActionName, StepUpChallengeRequest, StepUpChallengeResponse, StepUpVerifyRequest, StepUpVerifyResponse } from "./contract.ts"
export { AdminTokenRequired, CertificateSharedWithOtherRps, ConsoleClientRequired, StepUpRequired, authorizationErrors } from "./errors.ts"
export type { AuthorizationError } from "./errors.ts"
export { CONSOLE_CLIENT_ID, CONSOLE_SCOPE, SCOPE_BASIC, SCOPE_CERTIFICATES, SCOPE_FILES } from "./model.ts"
export { AuditLog, StepUpProofs } from "./ports.ts"
export type { AuditEvent, StepUpAction, StepUpProof } from "./ports.ts"
export { SCOPE_CONSENT_TEXT, isConsoleToken, requireConsole } from "./principals.ts"
export {
  listOwnRelyingParties,
  ownOrganisationChecks,
  ownRelyingParty,
  registerOwnRelyingParty,
  rotateOwnSecrets,
  submitOwnOrganisation,
  updateOwnRelyingParty,
} from "./self-service.ts"
export type { RelyingPartyRegistration, RelyingPartySettings } from "./self-service.ts"
export { STEP_UP_ACTIONS, STEP_UP_HEADER, STEP_UP_PROOF_TTL_SECONDS, requestStepUp, verifyStepUp } from "./step-up.ts"
