/** Public surface of the KYC capability: verifications, documents and MRZ, liveness and face steps, the phone handoff, sandbox providers. */
export {
  KycCaptureFinishBody,
  KycCaptureRelayBody,
  KycCaptureResult,
  KycCaptureStatusView,
  KycCompareBody,
  KycComparison,
  KycCustomerBody,
  KycDocumentBody,
  KycErasure,
  KycFaceBody,
  KycHandoff,
  KycHandoffDocumentBody,
  KycHandoffStatus,
  KycImageData,
  KycLivenessSession,
  KycReturnSelfie,
  KycReviewBody,
  KycRpUrn,
  KycStartBody,
  KycVerdict,
  KycVerdictBody,
  KycVerificationHandle,
} from "./contract.ts"
export { judgeDocument } from "./document.ts"
export {
  AlreadyVerified,
  CustomerIdRequired,
  DocumentImageRequired,
  InvalidIdentifierFormat,
  InvalidIdentifierReason,
  KycIdentityNotVerified,
  KycNotEnabled,
  KycReviewNotPending,
  KycStateConflict,
  KycUrnForeign,
  KycVerificationNotFound,
  LivenessTransactionIdRequired,
  PhoneNumberRequired,
  PhoneNumberTaken,
  ResubmitDocumentFirst,
  RpUrnNotOwned,
  SubmitDocumentFirst,
  kycErrors,
} from "./errors.ts"
export type { KycError } from "./errors.ts"
export {
  KYC_HANDOFF_PHONE_PER_MINUTE,
  captureStatus,
  finishHostedCapture,
  handoffContext,
  handoffStatus,
  openHandoff,
  submitHandoffDocument,
} from "./handoff.ts"
export type { KycCaptureStatus } from "./handoff.ts"
export { KYC_REASONS, faceProblemReason, faceVerdict, initialKycState, kycStep } from "./machine.ts"
export type { DocumentOutcome, KycCommand, KycMachineError, KycMachineEvent, KycMachineState } from "./machine.ts"
export { DEFAULT_KYC_SETTINGS, KycAuditEntry, KycCapture, KycDocument, KycImage, KycImageKind, KycRpSettings, KycStatus, KycVerification } from "./model.ts"
export type { DocumentReading, FaceComparison, FaceProblem, KycSettingsShape, KycThresholds, LivenessResult } from "./model.ts"
export { checkDigit, composeTd3, mrzDate, parseMrz } from "./mrz.ts"
export type { Mrz, MrzCheck, MrzField, MrzFormat, MrzFormatError } from "./mrz.ts"
export { DocumentReader, FaceMatcher, KycAudit, KycCaptures, KycImages, KycSettings, KycVault, KycVerifications, LivenessProvider } from "./ports.ts"
export {
  DocumentReaderSandbox,
  FaceMatcherSandbox,
  KycProvidersSandbox,
  LivenessProviderSandbox,
  SANDBOX_MARKER,
  readSandboxMarker,
  withSandboxMarker,
} from "./sandbox.ts"
export type { SandboxMarker } from "./sandbox.ts"
export {
  KYC_RELAY_PER_MINUTE,
  KYC_REQUESTS_PER_MINUTE,
  KYC_SELFIE_VIDEO_PER_MINUTE,
  compareIdentity,
  configureKyc,
  kycSettingsOf,
  eraseCustomer,
  openLivenessSession,
  readVerdict,
  relayCapture,
  requireKycEnabled,
  reviewVerification,
  startVerification,
  submitDocument,
  submitFace,
} from "./verify.ts"
export { decideReview, eraseVerification, queueEntry, reviewFile, reviewImage, reviewQueue } from "./review.ts"
