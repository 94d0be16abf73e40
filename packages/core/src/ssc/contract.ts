/**
 * The ssc contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"
import { Assertion } from "../identity/contract.ts"
import { Loa } from "../rp/model.ts"
import { SscMode } from "./model.ts"

// ssc endpoints
/** Body of `POST /ssc/token`. */
export const SscTokenRequest = Schema.Struct({
  clientId: Schema.String,
  clientSecret: Schema.String.annotations({ description: "the RP's SSC secret" }),
  documentHash: Schema.String,
  loa: Loa,
  signerEmail: Schema.optional(Schema.String).annotations({ description: "the signer's e-mail: binds the token to that signer (required for LOA-4)" }),
})
/** Answer of `POST /ssc/token`. */
export const SscTokenResponse = Schema.Struct({
  token: Schema.String,
  expiresAt: Schema.Int.annotations({ description: "Unix seconds" }),
  loa: Loa,
  credentialBound: Schema.Boolean,
})
/** Body of `POST /ssc/challenge`. */
export const SscChallengeRequest = Schema.Struct({
  documentHash: Schema.String,
  documentName: Schema.String,
  rpOrigin: Schema.String,
  mode: SscMode,
  token: Schema.String,
})
/** Answer of `POST /ssc/challenge`. */
export const SscChallengeResponse = Schema.Struct({
  operationId: Schema.String,
  challenge: Schema.String,
  credentialID: Schema.NullOr(Schema.String),
  expiresAt: Schema.String.annotations({ description: "ISO 8601 UTC" }),
  rpId: Schema.String,
  mode: SscMode,
})
/** Body of `POST /ssc/finalize`. */
export const SscFinalizeRequest = Schema.Struct({ operationId: Schema.String, documentHash: Schema.String, assertion: Assertion })
/** Answer of `POST /ssc/finalize`. */
export const SscFinalizeResponse = Schema.Struct({
  signatureId: Schema.String,
  signatureBase64: Schema.String,
  documentHash: Schema.String,
  userVerified: Schema.Boolean,
  credentialId: Schema.String,
  timestamp: Schema.Int.annotations({ description: "Unix seconds" }),
  mode: SscMode,
  levelOfAssurance: Loa,
})
