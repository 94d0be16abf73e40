/**
 * Request bodies of the KYC endpoints. Decoding accepts any JSON object: core checks the
 * fields itself so that a missing or malformed one gets the spec's 422 message, not a
 * generic 400. The `jsonSchema` annotation documents the fields in the OpenAPI document.
 */
import { Schema } from "effect"

type JsonProperty = Record<string, unknown>

const str = (description: string): JsonProperty => ({ type: "string", description })
const CUSTOMER_ID = str("E.164 phone number (+254…) or e-mail address")
const RP_URN: JsonProperty = { type: ["string", "integer"], description: "the RP's own reference, plain or urn:signet:<client_id>:<id>" }
const IMAGES: JsonProperty = { type: "array", items: str("base64 JPEG, no data: prefix"), description: "ID card front then back, or the passport photo page (~1600 px long edge, quality 0.85)" }
const RETURN_SELFIE: JsonProperty = { type: ["boolean", "integer", "string"], description: "true or 1: include the selfie when verified" }

/** A KYC body: any JSON object at run time, documented with `properties` and `required`. */
export const kycBody = (properties: Readonly<Record<string, JsonProperty>>, required: ReadonlyArray<string>, title: string) =>
  Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    identifier: title,
    jsonSchema: { type: "object", properties, required: [...required] },
  })

/** `POST /kyc/verifications`. */
export const StartBody = kycBody({ customer_id: CUSTOMER_ID, phone_number: str("E.164 phone number with country code"), rp_urn: RP_URN }, ["customer_id", "phone_number"], "KycStart")
/** `POST /kyc/customers/document` and the phone handoff's document. */
export const DocumentBody = kycBody({ customer_id: CUSTOMER_ID, images: IMAGES, image: str("a single base64 JPEG (instead of images)"), rp_urn: RP_URN }, ["customer_id"], "KycDocument")
/** `POST /kyc/customers/liveness-session`, `/kyc/customers/erase`, `/kyc/handoff`. */
export const CustomerBody = kycBody({ customer_id: CUSTOMER_ID, rp_urn: RP_URN }, ["customer_id"], "KycCustomer")
/** `POST /kyc/customers/face`. */
export const FaceBody = kycBody({ customer_id: CUSTOMER_ID, livenessTransactionId: str("the transactionId of a confirmed capture"), return_selfie: RETURN_SELFIE, rp_urn: RP_URN }, ["customer_id", "livenessTransactionId"], "KycFace")
/** `POST /kyc/customers/verification`. */
export const VerdictBody = kycBody({ customer_id: CUSTOMER_ID, return_selfie: RETURN_SELFIE, rp_urn: RP_URN }, ["customer_id"], "KycVerdictRead")
/** `POST /kyc/customers/compare`. */
export const CompareBody = kycBody({
  customer_id: CUSTOMER_ID, rp_urn: RP_URN,
  checks: {
    type: "object", properties: {
      personal_number: str("personal number"), date_of_birth: str("dd/mm/yyyy"), full_name: str("SURNAME, Given Names"),
      image: str("base64 photo to compare with the verified face"), rp_urn: RP_URN,
    },
  },
}, ["customer_id"], "KycCompare")
/** `POST /kyc/customers/review`. */
export const ReviewBody = kycBody({ customer_id: CUSTOMER_ID, decision: { type: "string", enum: ["approve", "reject"] }, rp_urn: RP_URN }, ["customer_id", "decision"], "KycReview")
/** `POST /kyc/capture/finish`. */
export const FinishBody = kycBody({ transactionId: str("the transactionId the capture relay confirmed") }, ["transactionId"], "KycCaptureFinish")
/** `POST /kyc/faceapi`: the capture relay's frames (see docs/kyc.md). */
export const RelayBody = kycBody({}, [], "KycCaptureRelay")
