/** Signing aggregates: hash signing requests, batches, and the events they record. */
import { Schema } from "effect"
import { Loa } from "../rp/model.ts"

/** Lifecycle of a hash signing request. `expired` and `failed` are final, like `completed`. */
export const SigningRequestStatus = Schema.Literal("pending_auth", "completed", "failed", "expired")
/** Lifecycle of a hash signing request. */
export type SigningRequestStatus = typeof SigningRequestStatus.Type

/** The `signatureFormat` values the engine accepts (docs/signing.md). */
export const SignatureFormat = Schema.Literal("CAdES-BASELINE-B", "CAdES-BASELINE-T", "CMS", "PAdES-BASELINE-B", "PAdES-BASELINE-T", "PAdES")
/** The `signatureFormat` values the engine accepts. */
export type SignatureFormat = typeof SignatureFormat.Type

/** The PAdES family: ETSI EN 319 142 forbids the signing-time attribute (the time goes in the PDF). */
export const isPadesFormat = (format: SignatureFormat): boolean => format === "PAdES" || format === "PAdES-BASELINE-B" || format === "PAdES-BASELINE-T"

/** Level -T: the signature carries an RFC 3161 timestamp over its value (ETSI EN 319 122-1 §5.3, EN 319 142-1 §5.4). */
export const isTimestampedFormat = (format: SignatureFormat): boolean => format === "CAdES-BASELINE-T" || format === "PAdES-BASELINE-T"

/** A single hash signing request. */
export const SigningRequest = Schema.Struct({
  id: Schema.String,
  userId: Schema.String,
  clientId: Schema.String,
  credentialId: Schema.String,
  /** lower-case hex SHA-256 */
  documentHash: Schema.String,
  documentName: Schema.NullOr(Schema.String),
  signatureFormat: SignatureFormat,
  loa: Loa,
  callbackUrl: Schema.NullOr(Schema.String),
  rpOrigin: Schema.NullOr(Schema.String),
  status: SigningRequestStatus,
  /** base64url random nonce the challenge is derived from */
  nonce: Schema.String,
  failedAttempts: Schema.Int,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  completedAt: Schema.NullOr(Schema.Number),
  /** base64 DER of the CMS SignedData */
  signature: Schema.NullOr(Schema.String),
  certificateSerial: Schema.NullOr(Schema.String),
  errorMessage: Schema.NullOr(Schema.String),
})
/** A single hash signing request. */
export type SigningRequest = typeof SigningRequest.Type

/** A document of a batch, as submitted (the hash is checked only when signing, so a bad one fails only itself). */
export const BatchDocument = Schema.Struct({ id: Schema.String, hash: Schema.String, hash_algo: Schema.String })
/** A document of a batch. */
export type BatchDocument = typeof BatchDocument.Type

/** The outcome for one document of a batch. */
export const BatchResult = Schema.Struct({
  documentId: Schema.String,
  status: Schema.Literal("signed", "failed"),
  signature: Schema.optional(Schema.String),
  error: Schema.optional(Schema.String),
})
/** The outcome for one document of a batch. */
export type BatchResult = typeof BatchResult.Type

/** Lifecycle of a batch; the three final outcomes of a completion are `completed`, `partial` and `failed`. */
export const BatchStatus = Schema.Literal("pending_auth", "completed", "partial", "failed", "expired")
/** Lifecycle of a batch. */
export type BatchStatus = typeof BatchStatus.Type

/** A batch of documents approved by one assertion. */
export const Batch = Schema.Struct({
  id: Schema.String,
  userId: Schema.String,
  clientId: Schema.String,
  credentialId: Schema.String,
  documents: Schema.Array(BatchDocument),
  callbackUrl: Schema.NullOr(Schema.String),
  status: BatchStatus,
  nonce: Schema.String,
  failedAttempts: Schema.Int,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  completedAt: Schema.NullOr(Schema.Number),
  results: Schema.NullOr(Schema.Array(BatchResult)),
  errorMessage: Schema.NullOr(Schema.String),
})
/** A batch of documents approved by one assertion. */
export type Batch = typeof Batch.Type

/** Event names of the live stream. */
export const SigningEventType = Schema.Literal("signing_request_created", "signing_request_completed", "signing_request_failed")
/** Event names of the live stream. */
export type SigningEventType = typeof SigningEventType.Type

/** A recorded event: what the event stream and webhooks will report, written with the state change. */
export const SigningEvent = Schema.Struct({
  /** position in the log (assigned by storage); the stream's event id */
  seq: Schema.Int,
  type: SigningEventType,
  /** request or batch id (the record's `id`) */
  subjectId: Schema.String,
  subjectKind: Schema.Literal("request", "batch"),
  userId: Schema.String,
  clientId: Schema.String,
  /** the record's `status`: pending_auth, signed, failed, expired; for batches also partial */
  status: Schema.String,
  documentHash: Schema.String,
  createdAt: Schema.Number,
  signedAt: Schema.NullOr(Schema.Number),
  errorMessage: Schema.NullOr(Schema.String),
  recordedAt: Schema.Number,
})
/** A recorded event. */
export type SigningEvent = typeof SigningEvent.Type
/** An event before storage gives it its position. */
export type NewSigningEvent = Omit<SigningEvent, "seq">
