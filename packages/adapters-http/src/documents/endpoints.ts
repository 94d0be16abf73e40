/** Documents: encryption certificates, encrypted files, decryption, signature images and rendered signatures (docs/documents.md). */
import {
  decryptEnvelope,
  DecryptEnvelopeRequest,
  DecryptEnvelopeResponse,
  decryptFile,
  DecryptFileRequest,
  DecryptFileResponse,
  deleteFile,
  DeleteFileResponse,
  deleteSignatureImage,
  DeleteSignatureImageResponse,
  EncryptionCertificate,
  FileMetadata,
  fromBase64,
  getFile,
  GetFileResponse,
  getSignatureImage,
  listFiles,
  ListFilesResponse,
  MAX_ENVELOPE_BYTES,
  MAX_FILE_BYTES,
  ownEncryptionCertificate,
  PutSignatureImageRequest,
  PutSignatureImageResponse,
  recipientEncryptionCertificate,
  renderSignatureImage,
  ResourceNotFound,
  setSignatureImage,
  SIGNATURE_IMAGE_LIMITS,
  SigningRequestId,
  STEP_UP_HEADER,
  storeFile,
  StoreFileRequest,
} from "@signet/core"
import { Effect } from "effect"
import { endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const knownId = (id: string, what: string) => (UUID.test(id) ? Effect.succeed(id) : Effect.fail(new ResourceNotFound({ what })))

const LIMIT_429 = { status: 429, description: "`Rate limit exceeded. Please try again later.`" }
const FILE_404 = { status: 404, description: "`File not found` (also for a file the caller may not see)" }
/** base64 grows 4/3, plus room for the JSON around it. */
const base64Body = (bytes: number) => Math.ceil(bytes / 3) * 4 + 64 * 1024

/** `GET /v2/encryption-certificate`. */
export const ownEncryptionCertificateEndpoint = endpoint({
  method: "GET",
  path: "/v2/encryption-certificate",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  summary: "The caller's encryption certificate (issued on first use): encrypt to it with CMS, e.g. openssl cms -encrypt",
  response: EncryptionCertificate,
  handle: ({ user }) => ownEncryptionCertificate(user!),
})

/** `GET /v2/users/{userId}/encryption-certificate`. */
export const recipientEncryptionCertificateEndpoint = endpoint({
  method: "GET",
  path: "/v2/users/{userId}/encryption-certificate",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  summary: "Another user's encryption certificate, by user id, to encrypt documents for them",
  response: EncryptionCertificate,
  errors: [{ status: 404, description: "`User not found`" }],
  handle: ({ params }) => recipientEncryptionCertificate(params["userId"]!),
})

/** `POST /v2/files`. */
export const storeFileEndpoint = endpoint({
  method: "POST",
  path: "/v2/files",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  maxBodyBytes: base64Body(MAX_FILE_BYTES),
  summary: `Store a document encrypted (CMS AuthEnvelopedData, AES-256-GCM, RSAES-OAEP per recipient) for the caller and other users; at most ${MAX_FILE_BYTES} bytes`,
  body: StoreFileRequest,
  response: FileMetadata,
  errors: [
    { status: 400, description: "bad `name`, `content` not base64, an unknown recipient, too many recipients" },
    { status: 413, description: "document above the limit" },
  ],
  handle: ({ user, body }) => storeFile(user!, body),
})

/** `GET /v2/files`. */
export const listFilesEndpoint = endpoint({
  method: "GET",
  path: "/v2/files",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  summary: "Files the caller owns or is a recipient of, newest first (500 at most)",
  response: ListFilesResponse,
  handle: ({ user }) => listFiles(user!),
})

const PKCS7_MIME = "application/pkcs7-mime"

/** `GET /v2/files/{id}`. */
export const getFileEndpoint = endpoint({
  method: "GET",
  path: "/v2/files/{id}",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  summary:
    "A file's metadata and its EnvelopedData (base64 DER ContentInfo; openssl cms -decrypt -inform DER reads it); with `Accept: application/pkcs7-mime` the DER itself",
  response: GetFileResponse,
  errors: [FILE_404],
  handle: ({ user, params, request, requestId }) =>
    Effect.flatMap(knownId(params["id"]!, "File"), (id) =>
      Effect.map(getFile(user!, id), (file) =>
        (request.headers.get("accept") ?? "").toLowerCase().includes(PKCS7_MIME)
          ? new Response(new Uint8Array(fromBase64(file.envelopedData)!), {
              headers: {
                "content-type": `${PKCS7_MIME}; smime-type=authEnveloped-data; name=smime.p7m`,
                "content-disposition": "attachment; filename=smime.p7m",
                "cache-control": "private, no-store",
                ...baseHeaders(requestId),
              },
            })
          : file,
      ),
    ),
})

/** `DELETE /v2/files/{id}`. */
export const deleteFileEndpoint = endpoint({
  method: "DELETE",
  path: "/v2/files/{id}",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  summary: "Delete a file (owner only)",
  response: DeleteFileResponse,
  errors: [FILE_404],
  handle: ({ user, params }) => Effect.flatMap(knownId(params["id"]!, "File"), (id) => deleteFile(user!, id)),
})

/** `POST /decrypt` (30 per minute per user). */
export const decryptFileEndpoint = endpoint({
  method: "POST",
  path: "/decrypt",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  summary: "The plaintext of a stored file, for one of its recipients (30 per minute per user)",
  body: DecryptFileRequest,
  response: DecryptFileResponse,
  errors: [FILE_404, LIMIT_429, { status: 403, description: "`Fresh passkey approval required: decrypt` (no, a used or a foreign `Signet-Step-Up` proof)" }],
  handle: ({ user, body, request }) => decryptFile(user!, body.fileId, request.headers.get(STEP_UP_HEADER)),
})

/** `POST /decrypt/asymmetric` (20 per minute per user). */
export const decryptEnvelopeEndpoint = endpoint({
  method: "POST",
  path: "/decrypt/asymmetric",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  maxBodyBytes: base64Body(MAX_ENVELOPE_BYTES),
  summary:
    "Decrypt a CMS EnvelopedData/AuthEnvelopedData addressed to the caller's encryption certificate (RSAES-OAEP; AES-GCM or AES-CBC); 20 per minute per user",
  body: DecryptEnvelopeRequest,
  response: DecryptEnvelopeResponse,
  errors: [
    { status: 400, description: "not an EnvelopedData, an unsupported algorithm (RSAES-PKCS1-v1_5 is refused), or it does not decrypt" },
    { status: 403, description: "`The EnvelopedData is not addressed to your encryption certificate`, `Fresh passkey approval required: decrypt`" },
    { status: 413, description: "envelope above the limit" },
    LIMIT_429,
  ],
  handle: ({ user, body, request }) => decryptEnvelope(user!, body.envelopedData, request.headers.get(STEP_UP_HEADER)),
})

const png = (bytes: Uint8Array, requestId: string) =>
  new Response(new Uint8Array(bytes), {
    headers: { "content-type": "image/png", "cache-control": "private, no-store", ...baseHeaders(requestId) },
  })

/** `PUT /v2/signature-image`. */
export const putSignatureImageEndpoint = endpoint({
  method: "PUT",
  path: "/v2/signature-image",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  maxBodyBytes: base64Body(SIGNATURE_IMAGE_LIMITS.maxBytes),
  summary: `Set the caller's own signature image: a PNG of at most ${SIGNATURE_IMAGE_LIMITS.maxBytes} bytes and ${SIGNATURE_IMAGE_LIMITS.maxWidth}×${SIGNATURE_IMAGE_LIMITS.maxHeight} pixels`,
  body: PutSignatureImageRequest,
  response: PutSignatureImageResponse,
  errors: [
    { status: 400, description: "`image must be base64 of a PNG file`" },
    { status: 422, description: "`Signature image is not a usable PNG: <why>`" },
  ],
  handle: ({ user, body }) => setSignatureImage(user!.userId, body.image),
})

/** `GET /v2/signature-image`. */
export const getSignatureImageEndpoint = endpoint({
  method: "GET",
  path: "/v2/signature-image",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  summary: "The caller's signature image (image/png)",
  response: { mediaType: "image/png" },
  errors: [{ status: 404, description: "`Signature image not found`" }],
  handle: ({ user, requestId }) => Effect.map(getSignatureImage(user!.userId), (bytes) => png(bytes, requestId)),
})

/** `DELETE /v2/signature-image`. */
export const deleteSignatureImageEndpoint = endpoint({
  method: "DELETE",
  path: "/v2/signature-image",
  tag: "Documents",
  auth: "bearer",
  scope: "files",
  summary: "Remove the caller's signature image",
  response: DeleteSignatureImageResponse,
  errors: [{ status: 404, description: "`Signature image not found`" }],
  handle: ({ user }) => deleteSignatureImage(user!.userId),
})

/** `GET /v2/sign/{requestId}/image`. */
export const signatureRenderingEndpoint = endpoint({
  method: "GET",
  path: "/v2/sign/{requestId}/image",
  tag: "Documents",
  auth: "bearer",
  params: { requestId: SigningRequestId },
  summary:
    "A rendered image (PNG) of a completed signature: signer, time, certificate serial, request id, document hash, where to verify, the signer's image; for the signer or the RP's contact account",
  response: { mediaType: "image/png" },
  errors: [
    { status: 404, description: "`Signing request not found` (also for callers who are neither the signer nor the RP's contact account)" },
    { status: 409, description: "`Signing request is not completed`" },
  ],
  handle: ({ user, params, requestId }) =>
    Effect.flatMap(knownId(params["requestId"]!, "Signing request"), (id) => Effect.map(renderSignatureImage(user!, id), (bytes) => png(bytes, requestId))),
})

/** Documents endpoints in document order. */
export const documentEndpoints = [
  ownEncryptionCertificateEndpoint,
  recipientEncryptionCertificateEndpoint,
  storeFileEndpoint,
  listFilesEndpoint,
  getFileEndpoint,
  deleteFileEndpoint,
  decryptFileEndpoint,
  decryptEnvelopeEndpoint,
  putSignatureImageEndpoint,
  getSignatureImageEndpoint,
  deleteSignatureImageEndpoint,
  signatureRenderingEndpoint,
] as const
