/**
 * The identity-verification (KYC) domain: verification records, extracted document fields,
 * liveness captures, settings, and the ports the flow needs (document reader, liveness
 * provider, face matcher, image vault).
 */
import { Schema } from "effect"

/** States of a verification, as the spec names them. */
export const KycStatus = Schema.Literal("pending", "document_verified", "verified", "needs_review", "failed")
/** States of a verification, as the spec names them. */
export type KycStatus = typeof KycStatus.Type

/** Fields extracted from an accepted document (dates ISO `YYYY-MM-DD`). */
export const KycDocument = Schema.Struct({
  docType: Schema.String,
  docNumber: Schema.String,
  personalNumber: Schema.String,
  surname: Schema.String,
  givenNames: Schema.String,
  dateOfBirth: Schema.NullOr(Schema.String),
  docExpiry: Schema.NullOr(Schema.String),
  nationality: Schema.String,
})
/** Fields extracted from an accepted document (dates ISO `YYYY-MM-DD`). */
export type KycDocument = typeof KycDocument.Type

/** One customer's verification at one RP: identifiers, state, verdict data and the current liveness session. */
export const KycVerification = Schema.Struct({
  id: Schema.String,
  clientId: Schema.String,
  customerId: Schema.String,
  phoneNumber: Schema.String,
  rpUrn: Schema.NullOr(Schema.String),
  status: KycStatus,
  document: Schema.NullOr(KycDocument),
  livenessScore: Schema.NullOr(Schema.Number),
  faceMatchScore: Schema.NullOr(Schema.Number),
  reasons: Schema.Array(Schema.String),
  /** SHA-256 (hex) of the current liveness-session token; the token itself is never stored */
  sessionTokenHash: Schema.NullOr(Schema.String),
  sessionExpiresAt: Schema.NullOr(Schema.Number),
  /** id of the stored selfie of the capture that gave the current face verdict */
  selfieImageId: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
  /** bumped on every write: the compare-and-set guard */
  version: Schema.Int,
})
/** One customer's verification at one RP: identifiers, state, verdict data and the current liveness session. */
export type KycVerification = typeof KycVerification.Type

/** A confirmed liveness capture: the one-time transaction id the face step consumes. */
export const KycCapture = Schema.Struct({
  id: Schema.String,
  verificationId: Schema.String,
  livenessScore: Schema.Number,
  selfieImageId: Schema.String,
  createdAt: Schema.Number,
  consumedAt: Schema.NullOr(Schema.Number),
})
/** A confirmed liveness capture: the one-time transaction id the face step consumes. */
export type KycCapture = typeof KycCapture.Type

/** What an encrypted image is. */
export const KycImageKind = Schema.Literal("document", "selfie")
/** What an encrypted image is. */
export type KycImageKind = typeof KycImageKind.Type

/** An image at rest: only ciphertext (base64 of iv || AES-GCM output). */
export const KycImage = Schema.Struct({
  id: Schema.String,
  verificationId: Schema.String,
  kind: KycImageKind,
  /** order among the document's images (front 0, back 1) */
  position: Schema.Int,
  contentType: Schema.String,
  ciphertext: Schema.String,
  createdAt: Schema.Number,
})
/** An image at rest: only ciphertext (base64 of iv || AES-GCM output). */
export type KycImage = typeof KycImage.Type

/** One line of the KYC audit log. */
export const KycAuditEntry = Schema.Struct({
  verificationId: Schema.String,
  clientId: Schema.String,
  action: Schema.String,
  fromStatus: Schema.NullOr(Schema.String),
  toStatus: Schema.NullOr(Schema.String),
  reasons: Schema.Array(Schema.String),
  at: Schema.Number,
})
/** One line of the KYC audit log. */
export type KycAuditEntry = typeof KycAuditEntry.Type

/** Whether KYC is on for an RP, and how its identities are scoped. */
export const KycRpSettings = Schema.Struct({
  clientId: Schema.String,
  enabled: Schema.Boolean,
  /** `rp`: identities are the RP's own (default); `shared`: compare may use a customer's verified identity from any RP */
  identityScope: Schema.Literal("rp", "shared"),
  updatedAt: Schema.Number,
})
/** Whether KYC is on for an RP, and how its identities are scoped. */
export type KycRpSettings = typeof KycRpSettings.Type

/** Thresholds and lifetimes of the flow. */
export interface KycThresholds {
  /** liveness at or above passes (default 0.50) */
  readonly liveness: number
  /** face similarity at or above verifies (default 0.75) */
  readonly match: number
  /** face similarity at or above (and below `match`) goes to review (default 0.65) */
  readonly review: number
}

/** Settings of the KYC flow. */
export interface KycSettingsShape {
  readonly thresholds: KycThresholds
  /** liveness-session token lifetime (the spec's 600 s) */
  readonly sessionTtlSeconds: number
  /** raw images older than this are purged by `purgeKycImages` */
  readonly retentionDays: number
}

/** The spec's defaults. */
export const DEFAULT_KYC_SETTINGS: KycSettingsShape = {
  thresholds: { liveness: 0.5, match: 0.75, review: 0.65 },
  sessionTtlSeconds: 600,
  retentionDays: 30,
}

/** What a document reader makes of the images of one document. */
export interface DocumentReading {
  /** MRZ lines as read, or null when the document has none or it was not read */
  readonly mrz: ReadonlyArray<string> | null
  /** fields read from the visual zone (names, numbers, dates as ISO) */
  readonly visual: Partial<KycDocument> | null
  /** the reader's authenticity signals all pass */
  readonly authentic: boolean
  /** the reader's overall processing result (used when there is no MRZ) */
  readonly accepted: boolean
  /** the reader's own confidence in what it read, 0..1, when it gives one (logged and documented, not judged) */
  readonly confidence?: number
}

/** Why a face image cannot be compared: the person can take it again (no face, several, too small, turned, blurred, too dark). */
export type FaceProblem = "no_face" | "several_faces" | "face_too_small" | "face_turned" | "face_blurred" | "face_too_dark"

/** Two face images compared (`similarity` 0..1), or one of them (`side`) unusable and why. */
export type FaceComparison =
  | { readonly _tag: "Compared"; readonly similarity: number }
  | { readonly _tag: "Unusable"; readonly side: "reference" | "probe"; readonly reason: FaceProblem }

/** What a liveness provider makes of the frames of one capture. */
export type LivenessResult =
  | { readonly _tag: "Confirmed"; readonly score: number; readonly selfie: Uint8Array }
  | { readonly _tag: "Retry"; readonly reason: string }
