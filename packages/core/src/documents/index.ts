/** Public surface of the documents capability: encrypted files, decryption, encryption certificates and signature images. */
export {
  DecryptEnvelopeRequest,
  DecryptEnvelopeResponse,
  DecryptFileRequest,
  DecryptFileResponse,
  DeleteFileResponse,
  DeleteSignatureImageResponse,
  EncryptionCertificate,
  FileMetadata,
  GetFileResponse,
  ListFilesResponse,
  PutSignatureImageRequest,
  PutSignatureImageResponse,
  StoreFileRequest,
} from "./contract.ts"
export { openEnvelope, sealEnvelope } from "./enveloped-data.ts"
export type { EnvelopeKey } from "./enveloped-data.ts"
export { NotAnEnvelopeRecipient, SignatureImageInvalid, SigningRequestNotCompleted, documentsErrors } from "./errors.ts"
export type { DocumentsError } from "./errors.ts"
export {
  DECRYPT_ASYMMETRIC_PER_MINUTE,
  DECRYPT_PER_MINUTE,
  MAX_ENVELOPE_BYTES,
  MAX_FILE_BYTES,
  MAX_FILE_RECIPIENTS,
  decryptEnvelope,
  decryptFile,
  deleteFile,
  getFile,
  listFiles,
  ownEncryptionCertificate,
  recipientEncryptionCertificate,
  storeFile,
} from "./files.ts"
export { FONT_CHARACTERS, FONT_COLS, FONT_ROWS, glyphOf } from "./font.ts"
export { EncryptedFile, SignatureImage } from "./model.ts"
export { EncryptedFiles, SignatureImages } from "./ports.ts"
export { renderSignatureImage } from "./render-signature.ts"
export { SIGNATURE_IMAGE_LIMITS, deleteSignatureImage, getSignatureImage, setSignatureImage, signatureImageOf } from "./signature-image.ts"
