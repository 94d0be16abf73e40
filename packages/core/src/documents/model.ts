/** Documents: encrypted files and signature images as stored. */
import { Schema } from "effect"

/** A document stored encrypted (CMS AuthEnvelopedData) for one or more users. */
export const EncryptedFile = Schema.Struct({
  id: Schema.String,
  ownerUserId: Schema.String,
  name: Schema.String,
  /** plaintext size in bytes */
  size: Schema.Int,
  /** user ids the envelope is addressed to (the owner first) */
  recipients: Schema.Array(Schema.String),
  /** base64 DER of the ContentInfo holding the AuthEnvelopedData */
  envelope: Schema.String,
  createdAt: Schema.Number,
})
/** A document stored encrypted for one or more users. */
export type EncryptedFile = typeof EncryptedFile.Type

/** A signer's own signature image (PNG), sealed in the Vault. */
export const SignatureImage = Schema.Struct({
  userId: Schema.String,
  /** base64 of the Vault-sealed PNG bytes */
  sealed: Schema.String,
  width: Schema.Int,
  height: Schema.Int,
  /** PNG size in bytes */
  size: Schema.Int,
  updatedAt: Schema.Number,
})
/** A signer's own signature image. */
export type SignatureImage = typeof SignatureImage.Type
