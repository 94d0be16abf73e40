/** Public surface of the signing-token (SSC) capability: tokens, challenges and finalization. */
export { SscChallengeRequest, SscChallengeResponse, SscFinalizeRequest, SscFinalizeResponse, SscTokenRequest, SscTokenResponse } from "./contract.ts"
export { DocumentHashMismatch, NoCredentialForUser, UserNotFoundForEmail, sscErrors } from "./errors.ts"
export type { SscError } from "./errors.ts"
export { SscMode, SscOperation, SscOperationStatus } from "./model.ts"
export {
  ANONYMOUS_CHALLENGES_PER_MINUTE,
  CHALLENGES_PER_TOKEN_PER_MINUTE,
  FINALIZE_ATTEMPTS_PER_MINUTE,
  finalizeOperation,
  openOperation,
} from "./operation.ts"
export type { ChallengeRequest, FinalizeRequest } from "./operation.ts"
export { SscOperations } from "./ports.ts"
export { SIGNING_TOKEN_LIFETIME_SECONDS, issueSigningToken, verifySigningToken } from "./token.ts"
export type { SigningTokenClaims, SigningTokenRequest } from "./token.ts"
