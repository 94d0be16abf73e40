/** The signing-token flow: `/ssc/token`, `/ssc/challenge`, `/ssc/finalize`. */
import { Assertion, finalizeOperation, issueSigningToken, Loa, openOperation, SscMode } from "@signet/core"
import { Schema } from "effect"
import { endpoint } from "../http/endpoint.ts"

const ASSERTION_403 = "`Passkey signature verification failed`, `Challenge mismatch — dynamic linking failed`, `Origin mismatch — possible phishing attack`, `User verification required — biometric or PIN not confirmed`, `Passkey was created for a different site (RP ID mismatch)`, `Credential not registered`"

/** `POST /ssc/token`. */
export const sscToken = endpoint({
  method: "POST", path: "/ssc/token", tag: "Signing-token flow", auth: "none",
  summary: "Issue a signing token for one document hash and LOA (RP server only: carries the SSC secret)",
  body: Schema.Struct({
    clientId: Schema.String,
    clientSecret: Schema.String.annotations({ description: "the RP's SSC secret" }),
    documentHash: Schema.String,
    loa: Loa,
    signerEmail: Schema.optional(Schema.String).annotations({ description: "the signer's e-mail: binds the token to that signer (required for LOA-4)" }),
  }),
  response: Schema.Struct({
    token: Schema.String, expiresAt: Schema.Int.annotations({ description: "Unix seconds" }), loa: Loa, credentialBound: Schema.Boolean,
  }),
  errors: [
    { status: 403, description: "`Unknown RP client_id`, `Invalid client credentials`, `RP registration not approved. Status: <status>`, `Requested LOA <loa> exceeds RP maximum <loa>`, `LOA-4 requires KYC-verified RP`" },
    { status: 404, description: "`User not found for email: <email>`, `No credential found for user`" },
    { status: 429, description: "`Daily signing limit exceeded (…)`, `Rate limit exceeded. Please try again later.`" },
  ],
  handle: ({ body }) => issueSigningToken(body),
})

/** `POST /ssc/challenge`. */
export const sscChallenge = endpoint({
  method: "POST", path: "/ssc/challenge", tag: "Signing-token flow", auth: "none",
  summary: "Open a signing operation (five minutes) with a challenge linked to the document hash",
  body: Schema.Struct({ documentHash: Schema.String, documentName: Schema.String, rpOrigin: Schema.String, mode: SscMode, token: Schema.String }),
  response: Schema.Struct({
    operationId: Schema.String, challenge: Schema.String, credentialID: Schema.NullOr(Schema.String),
    expiresAt: Schema.String.annotations({ description: "ISO 8601 UTC" }), rpId: Schema.String, mode: SscMode,
  }),
  errors: [
    { status: 401, description: "`Invalid or expired token`" },
    { status: 403, description: "`RP origin not authorized: <origin>`, `documentHash does not match the signing token`, `RP registration not approved. Status: <status>`" },
    { status: 429, description: "`Rate limit exceeded. Please try again later.`" },
  ],
  handle: ({ body, clientIp }) => openOperation(body, clientIp),
})

/** `POST /ssc/finalize`. */
export const sscFinalize = endpoint({
  method: "POST", path: "/ssc/finalize", tag: "Signing-token flow", auth: "none",
  summary: "Verify the passkey assertion against the operation and sign (once)",
  body: Schema.Struct({ operationId: Schema.String, documentHash: Schema.String, assertion: Assertion }),
  response: Schema.Struct({
    signatureId: Schema.String, signatureBase64: Schema.String, documentHash: Schema.String, userVerified: Schema.Boolean,
    credentialId: Schema.String, timestamp: Schema.Int.annotations({ description: "Unix seconds" }), mode: SscMode, levelOfAssurance: Loa,
  }),
  errors: [
    { status: 403, description: `${ASSERTION_403}, \`documentHash does not match the signing token\`` },
    { status: 410, description: "`Operation expired or not found`" },
    { status: 429, description: "`Rate limit exceeded. Please try again later.` (5 per minute per operation and IP)" },
  ],
  handle: ({ body, clientIp }) => finalizeOperation(body, clientIp),
})

/** Signing-token endpoints in document order. */
export const sscEndpoints = [sscToken, sscChallenge, sscFinalize] as const
