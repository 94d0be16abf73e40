/** The signing-token flow's operation: created by `/ssc/challenge`, finalized once by `/ssc/finalize`. */
import { Schema } from "effect"
import { Loa } from "../rp/model.ts"

/** `registered`: the token names the signer; `anonymous`: any enrolled signer may approve (LOA-2 only). */
export const SscMode = Schema.Literal("registered", "anonymous")
/** The two modes of the signing frame. */
export type SscMode = typeof SscMode.Type

/** Operation states: pending until finalized, refused five times (failed) or past five minutes (expired). */
export const SscOperationStatus = Schema.Literal("pending_auth", "finalized", "failed", "expired")

/** A signing operation of the signing-token flow. */
export const SscOperation = Schema.Struct({
  id: Schema.String,
  clientId: Schema.String,
  /** the signing token's `jti` */
  tokenId: Schema.String,
  documentHash: Schema.String,
  documentName: Schema.String,
  loa: Loa,
  mode: SscMode,
  rpOrigin: Schema.String,
  /** the named signer (registered mode); set from the passkey on finalize in anonymous mode */
  userId: Schema.NullOr(Schema.String),
  /** the bound passkey (LOA-4); the approving passkey after finalize */
  credentialId: Schema.NullOr(Schema.String),
  status: SscOperationStatus,
  nonce: Schema.String,
  failedAttempts: Schema.Int,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  completedAt: Schema.NullOr(Schema.Number),
  signatureId: Schema.NullOr(Schema.String),
  /** base64 DER of the CMS SignedData */
  signature: Schema.NullOr(Schema.String),
  certificateSerial: Schema.NullOr(Schema.String),
  errorMessage: Schema.NullOr(Schema.String),
})
/** A signing operation of the signing-token flow. */
export type SscOperation = typeof SscOperation.Type
