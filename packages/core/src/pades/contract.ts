/**
 * The pades contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"

// pades endpoints
/** Body of `POST /v2/sign/pdf`. */
export const SignPdfRequest = Schema.Struct({
  pdf: Schema.String.annotations({ description: "base64 of the PDF (at most 10 MiB decoded)" }),
  credentialId: Schema.optional(Schema.String).annotations({ description: "the user's own passkey id (required)" }),
  documentName: Schema.optional(Schema.String),
  loa: Schema.optional(Schema.String).annotations({ description: "LOA-2 (default) or LOA-4" }),
  callbackUrl: Schema.optional(Schema.String),
  rpOrigin: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String).annotations({ description: "/Reason of the signature dictionary" }),
  location: Schema.optional(Schema.String).annotations({ description: "/Location of the signature dictionary" }),
  visible: Schema.optional(
    Schema.Struct({
      page: Schema.Int.annotations({ description: "1-based page number" }),
      rect: Schema.Tuple(Schema.Number, Schema.Number, Schema.Number, Schema.Number).annotations({
        description: "[x1, y1, x2, y2] in PDF points from the lower-left corner",
      }),
      image: Schema.optional(Schema.String).annotations({ description: "base64 PNG drawn left of the signer's name and time" }),
    }),
  ).annotations({ description: "absent: an invisible signature; without image, the signer's stored signature image when they set one" }),
  level: Schema.optional(Schema.String).annotations({
    description:
      "PAdES-BASELINE-B (default), PAdES-BASELINE-T (an RFC 3161 timestamp in the CMS), PAdES-BASELINE-LT (plus a DSS update with certificates, OCSP responses and CRL when the signed PDF is fetched) or PAdES-BASELINE-LTA (plus a document timestamp over it all); docs/pades.md",
  }),
  certify: Schema.optional(
    Schema.Struct({
      permissions: Schema.Int.annotations({ description: "DocMDP /P: 1 no changes, 2 form filling and signing, 3 also annotations" }),
    }),
  ).annotations({ description: "sign as certifier (DocMDP); refused (409) when the document already has signatures" }),
  field: Schema.optional(Schema.String).annotations({
    description:
      "fill this existing empty signature field (fully qualified name); absent: the only empty one when there is exactly one and no visible placement, else a new field; docs/pades.md",
  }),
})
/** Answer of `POST /v2/sign/pdf`. */
export const SignPdfResponse = Schema.Struct({
  requestId: Schema.String,
  status: Schema.Literal("pending_auth"),
  authUrl: Schema.String.annotations({ description: "/api/v2/sign/auth/<requestId> (the hash-signing approval)" }),
  challenge: Schema.String.annotations({ description: "base64url WebAuthn challenge, linked to documentHash" }),
  documentHash: Schema.String.annotations({ description: "hex SHA-256 of the PDF's two byte ranges" }),
  byteRange: Schema.Array(Schema.Int).annotations({ description: "[0, a, b, c] of the prepared PDF" }),
  fieldName: Schema.String,
  documentUrl: Schema.String.annotations({ description: "/api/v2/sign/pdf/<requestId>/document" }),
})
