/**
 * The KYC contract: request and response Schemas of `/kyc/*`. The HTTP adapter decodes every
 * body and encodes every answer with them, and its OpenAPI document is generated from them.
 *
 * A missing, blank or null required field answers the spec's 422 (`customer_id is required`, …):
 * each body names those errors (`fieldErrors`). The adapter checks the RP's credentials
 * before it reads the body, so a caller without them still gets 401 `invalid_client` first.
 */
import { Schema } from "effect"
import { CustomerIdRequired, DocumentImageRequired, LivenessTransactionIdRequired, PhoneNumberRequired } from "./errors.ts"
import { InvalidRequest } from "../kernel/errors.ts"
import { fieldErrors } from "../kernel/contract.ts"

/** A field the engine reads as text: a string, or a number read as its decimal digits. */
const Text = Schema.Union(Schema.String, Schema.Number)
/** A string field that must be sent: not blank. */
const RequiredString = Schema.String.pipe(Schema.filter((v) => v.trim() !== "", { message: () => "is blank" }))
/** An optional field; `null` counts as not sent. */
const maybe = <S extends Schema.Schema.All>(schema: S) => Schema.optional(Schema.NullOr(schema))
/** A required field with its description (on the property, where the OpenAPI document shows it). */
const required = (description: string) => Schema.propertySignature(RequiredString).annotations({ description })

/** `rp_urn`: the RP's own reference for the customer. */
export const KycRpUrn = Text.annotations({ description: "the RP's own reference, plain or urn:signet:<client_id>:<id>" })
/** `return_selfie`: `true` or `1` (also as strings) include the selfie of a verified customer. */
export const KycReturnSelfie = Schema.Union(Schema.Boolean, Schema.Number, Schema.String).annotations({
  description: 'true or 1 (also "true", "1"): include the selfie when verified; anything else: not',
})
/** A base64 JPEG, with or without a `data:` prefix. */
export const KycImageData = Schema.String.annotations({ description: "base64 JPEG (a data: prefix is ignored)" })

const customerFields = {
  customer_id: required("E.164 phone number (+254…) or e-mail address; missing: 422 `customer_id is required`"),
  rp_urn: maybe(KycRpUrn),
}
const CUSTOMER_ERRORS = { customer_id: () => new CustomerIdRequired() }

/** `POST /kyc/customers/liveness-session`, `/kyc/customers/erase`, `/kyc/handoff`. */
export const KycCustomerBody = Schema.Struct(customerFields).annotations({ identifier: "KycCustomer", ...fieldErrors(CUSTOMER_ERRORS) })
/** A body that names a customer. */
export type KycCustomerBody = typeof KycCustomerBody.Type

/** `POST /kyc/verifications`. */
export const KycStartBody = Schema.Struct({
  ...customerFields,
  phone_number: required("E.164 phone number with country code; missing: 422 `phone_number is required`"),
}).annotations({ identifier: "KycStart", ...fieldErrors({ ...CUSTOMER_ERRORS, phone_number: () => new PhoneNumberRequired() }) })
/** The body of `POST /kyc/verifications`. */
export type KycStartBody = typeof KycStartBody.Type

const documentFields = {
  images: maybe(
    Schema.Array(KycImageData).annotations({
      description:
        "ID card front then back, or the passport photo page (~1600 px long edge, quality 0.85); none (and no image): 422 `At least one document image is required`",
    }),
  ),
  image: maybe(KycImageData.annotations({ description: "a single base64 JPEG (instead of images)" })),
}
const hasImage = (b: { readonly images?: ReadonlyArray<string> | null | undefined; readonly image?: string | null | undefined }): boolean =>
  (b.images ?? []).length > 0 || (b.image ?? "") !== ""
const DOCUMENT_ERRORS = { "": () => new DocumentImageRequired() }

/** `POST /kyc/customers/document`. */
export const KycDocumentBody = Schema.Struct({ ...customerFields, ...documentFields })
  .pipe(Schema.filter(hasImage, { message: () => "At least one document image is required" }))
  .annotations({ identifier: "KycDocument", ...fieldErrors({ ...CUSTOMER_ERRORS, ...DOCUMENT_ERRORS }) })
/** The body of a document submission. */
export type KycDocumentBody = typeof KycDocumentBody.Type

/** `POST /kyc/handoff/{id}/document`: the phone's document (the handoff id names the customer). */
export const KycHandoffDocumentBody = Schema.Struct(documentFields)
  .pipe(Schema.filter(hasImage, { message: () => "At least one document image is required" }))
  .annotations({ identifier: "KycHandoffDocument", ...fieldErrors(DOCUMENT_ERRORS) })
/** The body of the phone's document upload. */
export type KycHandoffDocumentBody = typeof KycHandoffDocumentBody.Type

/** `POST /kyc/customers/face`. */
export const KycFaceBody = Schema.Struct({
  ...customerFields,
  livenessTransactionId: required("the transactionId of a confirmed capture; missing: 422 `A liveness transaction id is required`"),
  return_selfie: maybe(KycReturnSelfie),
}).annotations({ identifier: "KycFace", ...fieldErrors({ ...CUSTOMER_ERRORS, livenessTransactionId: () => new LivenessTransactionIdRequired() }) })
/** The body of `POST /kyc/customers/face`. */
export type KycFaceBody = typeof KycFaceBody.Type

/** `POST /kyc/customers/verification`. */
export const KycVerdictBody = Schema.Struct({
  ...customerFields,
  return_selfie: maybe(KycReturnSelfie),
}).annotations({ identifier: "KycVerdictRead", ...fieldErrors(CUSTOMER_ERRORS) })
/** The body of `POST /kyc/customers/verification`. */
export type KycVerdictBody = typeof KycVerdictBody.Type

/** `POST /kyc/customers/compare`: the details and photo to compare with the verified identity. */
export const KycCompareBody = Schema.Struct({
  ...customerFields,
  checks: maybe(
    Schema.Struct({
      personal_number: maybe(Schema.String.annotations({ description: "personal number" })),
      date_of_birth: maybe(Schema.String.annotations({ description: "dd/mm/yyyy" })),
      full_name: maybe(Schema.String.annotations({ description: "SURNAME, Given Names" })),
      image: maybe(KycImageData.annotations({ description: "base64 photo to compare with the verified face" })),
      rp_urn: maybe(KycRpUrn.annotations({ description: "read when the body has no rp_urn" })),
    }),
  ),
}).annotations({ identifier: "KycCompare", ...fieldErrors(CUSTOMER_ERRORS) })
/** The body of `POST /kyc/customers/compare`. */
export type KycCompareBody = typeof KycCompareBody.Type

/** `POST /kyc/customers/review`: a reviewer's decision. */
export const KycReviewBody = Schema.Struct({
  ...customerFields,
  decision: Schema.Literal("approve", "reject"),
}).annotations({
  identifier: "KycReview",
  ...fieldErrors({
    ...CUSTOMER_ERRORS,
    decision: () => new InvalidRequest({ detail: "decision must be approve or reject" }),
  }),
})
/** The body of `POST /kyc/customers/review`. */
export type KycReviewBody = typeof KycReviewBody.Type

/** `POST /kyc/capture/finish`. */
export const KycCaptureFinishBody = Schema.Struct({
  transactionId: required("the transactionId the capture relay confirmed; missing: 422 `A liveness transaction id is required`"),
}).annotations({ identifier: "KycCaptureFinish", ...fieldErrors({ transactionId: () => new LivenessTransactionIdRequired() }) })

/** `POST /kyc/faceapi`: the capture relay's frames (docs/kyc.md); the session token as bearer or `token`. */
export const KycCaptureRelayBody = Schema.Struct({
  token: maybe(Schema.String.annotations({ description: "the liveness-session token, when not sent as `Authorization: Bearer`" })),
  frames: maybe(Schema.Array(KycImageData).annotations({ description: "base64 JPEG frames of the live capture" })),
  image: maybe(KycImageData.annotations({ description: "a single frame (instead of frames)" })),
}).annotations({ identifier: "KycCaptureRelay" })
/** The body of `POST /kyc/faceapi`. */
export type KycCaptureRelayBody = typeof KycCaptureRelayBody.Type

/** The verification handle: the answer of `POST /kyc/verifications`. */
export const KycVerificationHandle = Schema.Struct({
  customer_id: Schema.String,
  phone_number: Schema.String,
  status: Schema.String,
  created: Schema.Boolean.annotations({ description: "false: the customer's existing verification, with its current status" }),
  enrolled: Schema.Boolean.annotations({ description: "status is verified" }),
  rp_urn: Schema.optional(Schema.String).annotations({ description: "present when a reference is recorded" }),
}).annotations({ identifier: "KycVerificationHandle" })

/** The verdict: the answer of the document, face, verification-read and review calls. */
export const KycVerdict = Schema.Struct({
  customer_id: Schema.String,
  status: Schema.String,
  verified_name: Schema.String,
  doc_type: Schema.String,
  doc_number: Schema.String,
  personal_number: Schema.String,
  doc_expiry: Schema.NullOr(Schema.String),
  nationality: Schema.String.annotations({ description: "three-letter country code" }),
  face_match_score: Schema.NullOr(Schema.Number).annotations({ description: "0 to 1" }),
  liveness_score: Schema.NullOr(Schema.Number).annotations({ description: "0 to 1" }),
  reasons: Schema.Array(Schema.String).annotations({ description: "e.g. document_not_authentic, face_match_borderline" }),
  selfie: Schema.NullOr(Schema.Struct({ content_type: Schema.String, data: Schema.String.annotations({ description: "base64" }) })).annotations({
    description: "only when return_selfie was sent and the status is verified",
  }),
}).annotations({ identifier: "KycVerdict" })

/** The liveness session: the answer of `POST /kyc/customers/liveness-session`. */
export const KycLivenessSession = Schema.Struct({
  url: Schema.String.annotations({ description: "the capture pass-through (`<base>/kyc/faceapi`)" }),
  token: Schema.String,
  expiresIn: Schema.Int,
  customer_id: Schema.String,
  rp_urn: Schema.optional(Schema.String).annotations({ description: "present when a reference is recorded" }),
}).annotations({ identifier: "KycLivenessSession" })

/** The capture relay's answer for a batch of frames. */
export const KycCaptureResult = Schema.Struct({
  status: Schema.Literal("confirmed", "retry"),
  transactionId: Schema.optional(Schema.String).annotations({ description: "when confirmed: send it as livenessTransactionId" }),
  reason: Schema.optional(Schema.String).annotations({ description: "when retry" }),
}).annotations({ identifier: "KycCaptureResult" })

/** The answer of `POST /kyc/customers/compare`. */
export const KycComparison = Schema.Struct({
  customer_id: Schema.String,
  enrolled: Schema.Boolean,
  matches: Schema.Record({ key: Schema.String, value: Schema.Boolean }).annotations({ description: "one entry per requested detail, and customer_id" }),
  face: Schema.Struct({
    match: Schema.Boolean,
    similarity: Schema.Number.annotations({ description: "0..1; 0 when no image was compared (checked false)" }),
    checked: Schema.Boolean,
    unusable: Schema.optional(
      Schema.Struct({
        side: Schema.Literal("reference", "probe"),
        reason: Schema.Literal("no_face", "several_faces", "face_too_small", "face_turned", "face_blurred", "face_too_dark"),
      }),
    ).annotations({ description: "when an image could not be compared (checked false): the one on file (reference) or the one sent (probe), and why" }),
  }),
}).annotations({ identifier: "KycComparison" })

/** The answer of `POST /kyc/customers/erase`. */
export const KycErasure = Schema.Struct({ customer_id: Schema.String, erased: Schema.Boolean }).annotations({ identifier: "KycErasure" })

/** Status and reasons as the browser side of a capture (session token or handoff id) sees them. */
export const KycCaptureStatusView = Schema.Struct({ status: Schema.String, reasons: Schema.Array(Schema.String), expiresIn: Schema.Int }).annotations({
  identifier: "KycCaptureStatusView",
})

/** The answer of `POST /kyc/handoff`. */
export const KycHandoff = Schema.Struct({
  handoffId: Schema.String,
  url: Schema.String.annotations({ description: "the phone page" }),
  statusUrl: Schema.String,
  code: Schema.String.annotations({ description: "shown on both screens, so the customer knows the phone is theirs" }),
  expiresIn: Schema.Int,
  customer_id: Schema.String,
  rp_urn: Schema.optional(Schema.String),
}).annotations({ identifier: "KycHandoff" })

/** The answer of `GET /kyc/handoff/{id}/status`. */
export const KycHandoffStatus = Schema.Struct({ ...KycCaptureStatusView.fields, code: Schema.String }).annotations({ identifier: "KycHandoffStatus" })
