/**
 * The documents contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"

// documents endpoints
/** A user's encryption certificate, to encrypt files for them. */
export const EncryptionCertificate = Schema.Struct({
  userId: Schema.String,
  serial: Schema.String,
  subject: Schema.String,
  notBefore: Schema.String,
  notAfter: Schema.String,
  pem: Schema.String.annotations({ description: "RSA 2048 key, keyUsage keyEncipherment, issued by the engine's issuing CA" }),
  chainPem: Schema.Array(Schema.String).annotations({ description: "the issuing CA's certificate (the root is at GET /v2/ca)" }),
}).annotations({ identifier: "EncryptionCertificate" })
/** A stored file without its content. */
export const FileMetadata = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  size: Schema.Int.annotations({ description: "plaintext bytes" }),
  owner: Schema.String.annotations({ description: "owner's user id" }),
  recipients: Schema.Array(Schema.String).annotations({ description: "user ids the file is encrypted for, the owner first" }),
  createdAt: Schema.String,
}).annotations({ identifier: "EncryptedFile" })
/** Body of `POST /v2/files`. */
export const StoreFileRequest = Schema.Struct({
  name: Schema.String.annotations({ description: "file name, 1 to 255 characters" }),
  content: Schema.String.annotations({ description: "base64 of the document bytes" }),
  recipients: Schema.optional(Schema.Array(Schema.String).annotations({ description: "user ids to encrypt for besides the caller (at most 19)" })),
})
/** Answer of `GET /v2/files`. */
export const ListFilesResponse = Schema.Array(FileMetadata)
/** Answer of `GET /v2/files/{id}`. */
export const GetFileResponse = Schema.Struct({ ...FileMetadata.fields, envelopedData: Schema.String })
/** Answer of `DELETE /v2/files/{id}`. */
export const DeleteFileResponse = Schema.Struct({ deleted: Schema.Literal(true) })
/** Body of `POST /decrypt`. */
export const DecryptFileRequest = Schema.Struct({ fileId: Schema.String })
/** Answer of `POST /decrypt`. */
export const DecryptFileResponse = Schema.Struct({
  fileId: Schema.String,
  name: Schema.String,
  size: Schema.Int,
  content: Schema.String.annotations({ description: "base64 plaintext" }),
})
/** Body of `POST /decrypt/asymmetric`. */
export const DecryptEnvelopeRequest = Schema.Struct({ envelopedData: Schema.String.annotations({ description: "base64 of the DER (or BER) CMS ContentInfo" }) })
/** Answer of `POST /decrypt/asymmetric`. */
export const DecryptEnvelopeResponse = Schema.Struct({ size: Schema.Int, content: Schema.String.annotations({ description: "base64 plaintext" }) })
/** Body of `PUT /v2/signature-image`. */
export const PutSignatureImageRequest = Schema.Struct({
  image: Schema.String.annotations({ description: "base64 PNG (a data:image/png;base64, prefix is allowed)" }),
})
/** Answer of `PUT /v2/signature-image`. */
export const PutSignatureImageResponse = Schema.Struct({ width: Schema.Int, height: Schema.Int, size: Schema.Int, updatedAt: Schema.String })
/** Answer of `DELETE /v2/signature-image`. */
export const DeleteSignatureImageResponse = Schema.Struct({ deleted: Schema.Literal(true) })
