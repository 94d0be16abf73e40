/** Public surface of the signing capability: single and batch hash signing with dynamic linking, completion and events. */
export { completeBatch, createBatch } from "./batch.ts"
export type { CreateBatch } from "./batch.ts"
export type { SigningServices } from "./completion.ts"
export {
  AssertionRequest,
  CaCertificate,
  CaCertificatesResponse,
  PendingApprovalView,
  SignAuthResponse,
  SignBatchAuthResponse,
  SignBatchRequest,
  SignBatchResponse,
  SignSingleRequest,
  SignSingleResponse,
  SigningRequestId,
} from "./contract.ts"
export { linkedChallenge } from "./dynamic-link.ts"
export type { LinkedOperation } from "./dynamic-link.ts"
export { DocumentHashAndCredentialRequired, NoSigningCredential, SigningRequestNotFound, signingErrors } from "./errors.ts"
export type { SigningError } from "./errors.ts"
export { step } from "./machine.ts"
export type { MachineError, MachineEvent, PendingCommand, PendingState } from "./machine.ts"
export {
  Batch,
  BatchDocument,
  BatchResult,
  BatchStatus,
  SignatureFormat,
  SigningEvent,
  SigningEventType,
  SigningRequest,
  SigningRequestStatus,
  isPadesFormat,
  isTimestampedFormat,
} from "./model.ts"
export type { NewSigningEvent } from "./model.ts"
export { viewPendingBatch, viewPendingRequest } from "./pending-view.ts"
export { Batches, SigningEvents, SigningRequests } from "./ports.ts"
export { HASH_ALGORITHMS, MAX_FAILED_ASSERTIONS, PENDING_LIFETIME_MS } from "./rules.ts"
export { completeSigningRequest, createSigningRequest } from "./single.ts"
export type { CreateSigningRequest } from "./single.ts"
