/** The hash-signing interface: `/v2/sign/*`, and the CA certificates that verify its signatures. */
import {
  Assertion, BatchDocument, certificateAuthority, completeBatch, completeSigningRequest, createBatch, createSigningRequest,
  EngineConfig, fromBase64, SigningRequestNotFound, toPem, viewPendingBatch, viewPendingRequest,
} from "@signet/core"
import { Effect, Schema } from "effect"
import { endpoint } from "../http/endpoint.ts"

const AssertionBody = Schema.Struct({ assertion: Assertion })
const ASSERTION_ERRORS = [
  { status: 403, description: "`Passkey signature verification failed`, `Challenge mismatch — dynamic linking failed`, `Origin mismatch — possible phishing attack`, `User verification required — biometric or PIN not confirmed`, `Passkey was created for a different site (RP ID mismatch)`, `Credential not registered`, `Passkey signature counter did not increase — possible cloned authenticator`" },
  { status: 404, description: "`Signing request not found or already processed`" },
  { status: 410, description: "`Operation expired or not found`: the request passed its five-minute lifetime" },
]
const QUOTA_ERRORS = [
  { status: 429, description: "`Daily signing limit exceeded (…)`, `Rate limit exceeded. Please try again later.`" },
]
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

// Ids in paths are uuids; anything else is an unknown request, not a malformed one.
const knownId = (id: string) => (UUID.test(id) ? Effect.succeed(id) : Effect.fail(new SigningRequestNotFound()))

/** `POST /v2/sign/single`. */
export const signSingle = endpoint({
  method: "POST", path: "/v2/sign/single", tag: "Hash signing", auth: "bearer",
  summary: "Create a signing request for a document hash, to be approved with the user's passkey",
  body: Schema.Struct({
    documentHash: Schema.optional(Schema.String).annotations({ description: "hex SHA-256 of the document (required)" }),
    credentialId: Schema.optional(Schema.String).annotations({ description: "the user's own passkey id (required)" }),
    documentName: Schema.optional(Schema.String),
    signatureFormat: Schema.optional(Schema.String).annotations({ description: "CAdES-BASELINE-B (default), CMS, PAdES-BASELINE-B or PAdES" }),
    loa: Schema.optional(Schema.String).annotations({ description: "LOA-2 (default) or LOA-4" }),
    callbackUrl: Schema.optional(Schema.String),
    rpOrigin: Schema.optional(Schema.String),
  }),
  response: Schema.Struct({
    requestId: Schema.String, status: Schema.Literal("pending_auth"),
    authUrl: Schema.String.annotations({ description: "/api/v2/sign/auth/<requestId>" }),
    challenge: Schema.String.annotations({ description: "base64url WebAuthn challenge, linked to the document hash" }),
  }),
  errors: [
    { status: 400, description: "`documentHash and credentialId required`, or a field in a wrong format" },
    { status: 403, description: "`Requested LOA <loa> exceeds RP maximum <loa>`, `LOA-4 requires KYC-verified RP`, `RP origin not authorized: <origin>`, `RP registration not approved. Status: <status>`" },
    { status: 404, description: "`No signing credential found for user`" },
    ...QUOTA_ERRORS,
  ],
  handle: ({ body, user }) => createSigningRequest(user!, body),
})

/** `POST /v2/sign/auth/{requestId}`. */
export const signAuth = endpoint({
  method: "POST", path: "/v2/sign/auth/{requestId}", tag: "Hash signing", auth: "none",
  summary: "Approve a signing request with a passkey assertion; answers the CMS signature",
  body: AssertionBody,
  response: Schema.Struct({
    status: Schema.Literal("completed"),
    signature: Schema.String.annotations({ description: "base64 DER of a detached CMS SignedData" }),
    timestamp: Schema.String.annotations({ description: "ISO 8601 with offset" }),
    loa: Schema.String,
  }),
  errors: ASSERTION_ERRORS,
  handle: ({ body, params }) => Effect.flatMap(knownId(params["requestId"]!), (id) => completeSigningRequest(id, body.assertion)),
})

/** `POST /v2/sign/batch`. */
export const signBatch = endpoint({
  method: "POST", path: "/v2/sign/batch", tag: "Hash signing", auth: "bearer",
  summary: "Create a batch of document hashes approved by one passkey assertion",
  body: Schema.Struct({
    documents: Schema.optional(Schema.Array(BatchDocument)),
    credentialId: Schema.optional(Schema.String),
    callbackUrl: Schema.optional(Schema.String),
  }),
  response: Schema.Struct({
    batchId: Schema.String, status: Schema.Literal("pending_auth"), documentCount: Schema.Int,
    authUrl: Schema.String.annotations({ description: "/api/v2/sign/batch/<batchId>/auth" }), challenge: Schema.String,
  }),
  errors: [
    { status: 400, description: "`documents (at least one) and credentialId required`, a duplicate or empty document id" },
    { status: 403, description: "`RP registration not approved. Status: <status>`" },
    { status: 404, description: "`No signing credential found for user`" },
    { status: 429, description: "`Batch size <n> exceeds maximum <max>`, `Daily signing limit exceeded (…)`, `Rate limit exceeded. Please try again later.`" },
  ],
  handle: ({ body, user }) => createBatch(user!, body),
})

/** `POST /v2/sign/batch/{batchId}/auth`. */
export const signBatchAuth = endpoint({
  method: "POST", path: "/v2/sign/batch/{batchId}/auth", tag: "Hash signing", auth: "none",
  summary: "Approve a batch with one passkey assertion; answers a result per document",
  body: AssertionBody,
  response: Schema.Struct({
    status: Schema.Literal("completed", "partial", "failed"),
    results: Schema.Array(Schema.Struct({
      documentId: Schema.String, status: Schema.Literal("signed", "failed"),
      signature: Schema.optional(Schema.String), error: Schema.optional(Schema.String),
    })),
  }),
  errors: ASSERTION_ERRORS,
  handle: ({ body, params }) => Effect.flatMap(knownId(params["batchId"]!), (id) => completeBatch(id, body.assertion)),
})

const PendingView = Schema.Struct({
  kind: Schema.Literal("request", "batch"), id: Schema.String, clientId: Schema.String, rpName: Schema.String, rpId: Schema.String,
  credentialId: Schema.String, challenge: Schema.String, expiresAt: Schema.String, authUrl: Schema.String, loa: Schema.String,
  documents: Schema.Array(Schema.Struct({
    id: Schema.String, name: Schema.NullOr(Schema.String), hash: Schema.String, hash_algo: Schema.String,
  })),
}).annotations({ identifier: "PendingApproval" })
const PENDING_ERRORS = [{ status: 404, description: "`Signing request not found or already processed`" }]

/** `GET /v2/sign/requests/{requestId}`: a pending request as the signing frame shows it. */
export const viewRequest = endpoint({
  method: "GET", path: "/v2/sign/requests/{requestId}", tag: "Hash signing", auth: "none",
  summary: "A pending signing request for approval in the signing frame (the id is the capability)",
  response: PendingView, errors: PENDING_ERRORS,
  handle: ({ params }) => Effect.flatMap(knownId(params["requestId"]!), viewPendingRequest),
})

/** `GET /v2/sign/batch/{batchId}`: a pending batch with every document, as the signing frame shows it. */
export const viewBatch = endpoint({
  method: "GET", path: "/v2/sign/batch/{batchId}", tag: "Hash signing", auth: "none",
  summary: "A pending batch with all its documents, for approval in the signing frame (the id is the capability)",
  response: PendingView, errors: PENDING_ERRORS,
  handle: ({ params }) => Effect.flatMap(knownId(params["batchId"]!), viewPendingBatch),
})

const CaCertificate = Schema.Struct({ serial: Schema.String, subject: Schema.String, notAfter: Schema.String, pem: Schema.String })

/** `GET /v2/ca`: the root and issuing certificates that verify every signature of this environment. */
export const caCertificates = endpoint({
  method: "GET", path: "/v2/ca", tag: "Certificates", auth: "none",
  summary: "The engine's root and issuing CA certificates (PEM), to verify signatures",
  response: Schema.Struct({ environment: Schema.String, root: CaCertificate, issuing: CaCertificate }),
  handle: () => Effect.gen(function* () {
    const settings = yield* EngineConfig
    const ca = yield* certificateAuthority
    const view = (c: typeof ca.root) => ({
      serial: c.serial, subject: c.subject, notAfter: new Date(c.notAfter).toISOString(), pem: toPem(fromBase64(c.der)!),
    })
    return { environment: settings.environment, root: view(ca.root), issuing: view(ca.issuing) }
  }),
})

/** Signing endpoints in document order. */
export const signingEndpoints = [signSingle, signAuth, signBatch, signBatchAuth, viewRequest, viewBatch, caCertificates] as const
