/**
 * The signing contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"
import { Assertion } from "../identity/contract.ts"
import { BatchDocument } from "./model.ts"

/** The id of a signing request or batch in a path (a uuid; any other value is an unknown id, 404). */
export const SigningRequestId = Schema.UUID.annotations({ description: "the id the creation answered" })
/** `{ assertion }`: the body of every approval with a passkey. */
export const AssertionRequest = Schema.Struct({ assertion: Assertion })
/** A pending request or batch as the signing frame shows it. */
export const PendingApprovalView = Schema.Struct({
  kind: Schema.Literal("request", "batch"),
  id: Schema.String,
  clientId: Schema.String,
  rpName: Schema.String,
  rpId: Schema.String,
  credentialId: Schema.String,
  challenge: Schema.String,
  expiresAt: Schema.String,
  authUrl: Schema.String,
  loa: Schema.String,
  documents: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      name: Schema.NullOr(Schema.String),
      hash: Schema.String,
      hash_algo: Schema.String,
    }),
  ),
}).annotations({ identifier: "PendingApproval" })
/** A CA certificate of this environment, with its PEM. */
export const CaCertificate = Schema.Struct({ serial: Schema.String, subject: Schema.String, notAfter: Schema.String, pem: Schema.String })
/** Body of `POST /v2/sign/single`. */
export const SignSingleRequest = Schema.Struct({
  documentHash: Schema.optional(Schema.String).annotations({ description: "hex SHA-256 of the document (required)" }),
  credentialId: Schema.optional(Schema.String).annotations({ description: "the user's own passkey id (required)" }),
  documentName: Schema.optional(Schema.String),
  signatureFormat: Schema.optional(Schema.String).annotations({ description: "CAdES-BASELINE-B (default), CMS, PAdES-BASELINE-B or PAdES" }),
  loa: Schema.optional(Schema.String).annotations({ description: "LOA-2 (default) or LOA-4" }),
  callbackUrl: Schema.optional(Schema.String),
  rpOrigin: Schema.optional(Schema.String),
})
/** Answer of `POST /v2/sign/single`. */
export const SignSingleResponse = Schema.Struct({
  requestId: Schema.String,
  status: Schema.Literal("pending_auth"),
  authUrl: Schema.String.annotations({ description: "/api/v2/sign/auth/<requestId>" }),
  challenge: Schema.String.annotations({ description: "base64url WebAuthn challenge, linked to the document hash" }),
})
/** Answer of `POST /v2/sign/auth/{requestId}`. */
export const SignAuthResponse = Schema.Struct({
  status: Schema.Literal("completed"),
  signature: Schema.String.annotations({ description: "base64 DER of a detached CMS SignedData" }),
  timestamp: Schema.String.annotations({ description: "ISO 8601 with offset" }),
  loa: Schema.String,
})
/** Body of `POST /v2/sign/batch`. */
export const SignBatchRequest = Schema.Struct({
  documents: Schema.optional(Schema.Array(BatchDocument)),
  credentialId: Schema.optional(Schema.String),
  callbackUrl: Schema.optional(Schema.String),
})
/** Answer of `POST /v2/sign/batch`. */
export const SignBatchResponse = Schema.Struct({
  batchId: Schema.String,
  status: Schema.Literal("pending_auth"),
  documentCount: Schema.Int,
  authUrl: Schema.String.annotations({ description: "/api/v2/sign/batch/<batchId>/auth" }),
  challenge: Schema.String,
})
/** Answer of `POST /v2/sign/batch/{batchId}/auth`. */
export const SignBatchAuthResponse = Schema.Struct({
  status: Schema.Literal("completed", "partial", "failed"),
  results: Schema.Array(
    Schema.Struct({
      documentId: Schema.String,
      status: Schema.Literal("signed", "failed"),
      signature: Schema.optional(Schema.String),
      error: Schema.optional(Schema.String),
    }),
  ),
})
/** Answer of `GET /v2/ca`. */
export const CaCertificatesResponse = Schema.Struct({ environment: Schema.String, root: CaCertificate, issuing: CaCertificate })
