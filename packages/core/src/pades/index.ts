/** Public surface of the PAdES capability: preparing, signing, validating and extending PDFs. */
export { PdfBudget } from "./budget.ts"
export { bytesSource } from "./byte-source.ts"
export type { ByteSource } from "./byte-source.ts"
export { SignPdfRequest, SignPdfResponse } from "./contract.ts"
export { openPdf } from "./document.ts"
export type { PdfDocument, PdfReadError, XrefEntry } from "./document.ts"
export type { ValidationMaterial } from "./dss.ts"
export {
  PdfDocumentNotFound,
  PdfNotYetSigned,
  PdfSignatureNotPermitted,
  PdfTooComplex,
  PdfTooLarge,
  PdfUnreadable,
  SignatureFieldNotFound,
  SignatureTooLargeForPlaceholder,
  padesErrors,
} from "./errors.ts"
export type { PadesError } from "./errors.ts"
export { PDF_UPLOAD_LIMIT, PREPARED_PDF_RETENTION_MS, preparePdfSigning, signedPdf } from "./flow.ts"
export type { PreparePdfSigning } from "./flow.ts"
export { Sha256Streams, Sha2Streams } from "./hashing.ts"
export type { RangeDigestAlgorithm, Sha256Stream } from "./hashing.ts"
export { approvalAllowed, certificationOf, fieldLocks, lockCovers, modificationRules, signatureFieldsOf } from "./modification-rules.ts"
export type {
  ApprovalTarget,
  ApprovalVerdict,
  Certification,
  FieldLock,
  LockAction,
  MdpPermissions,
  ModificationRules,
  SignatureField,
} from "./modification-rules.ts"
export { PdfDict, PdfName, PdfRaw, PdfRef, PdfStream, PdfString } from "./objects.ts"
export type { PdfValue } from "./objects.ts"
export { PreparedPdfs } from "./ports.ts"
export type { PadesLevel, PreparedPdf } from "./ports.ts"
export { DEFAULT_PLACEHOLDER_BYTES, byteRangeDigest, embedSignature, prepareDocumentTimestamp, prepareSignature, signPdf } from "./prepare.ts"
export type { PreparedSignature, SignatureOptions, SignatureRefusal, VisibleSignature } from "./prepare.ts"
export { DOCUMENT_TIMESTAMP_PLACEHOLDER_BYTES, addDocumentTimestamp, renewArchive, stampPreparedTimestamp } from "./archive.ts"
export { appendDss, dssContents } from "./dss.ts"
export { longTermMaterial, vriKeyOf } from "./long-term.ts"
export { PdfProcessor, pdfJobsInProcess } from "./processor.ts"
export type { PdfJobs, PreparedUpload } from "./processor.ts"
export { scanPdfSignatures } from "./scan-signatures.ts"
export type { PdfSignatureScan, ScannedSignature } from "./scan-signatures.ts"
export { validatePdf, validatePdfUpload, validatePdfUploadDetailed, validateScannedSignatures, validateScannedSignaturesDetailed } from "./validate-pdf.ts"
export type { ModificationStatus, PdfSignatureReport, PdfSignatureValidation } from "./validate-pdf.ts"
export type { ModificationFacts } from "./read-modifications.ts"
export * as PdfObjects from "./objects.ts"
