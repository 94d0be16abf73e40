/** The hash-signing interface: `/v2/sign/*`, and the CA certificates that verify its signatures. */
import {
  AssertionRequest,
  CaCertificatesResponse,
  certificateAuthority,
  completeBatch,
  completeSigningRequest,
  createBatch,
  createSigningRequest,
  EngineConfig,
  fromBase64,
  PendingApprovalView,
  SignAuthResponse,
  SignBatchAuthResponse,
  SignBatchRequest,
  SignBatchResponse,
  SigningRequestId,
  SigningRequestNotFound,
  SignSingleRequest,
  SignSingleResponse,
  toPem,
  viewPendingBatch,
  viewPendingRequest,
} from "@signet/core"
import { Effect } from "effect"
import { endpoint } from "../http/endpoint.ts"

const ASSERTION_ERRORS = [
  {
    status: 403,
    description:
      "`Passkey signature verification failed`, `Challenge mismatch — dynamic linking failed`, `Origin mismatch — possible phishing attack`, `User verification required — biometric or PIN not confirmed`, `Passkey was created for a different site (RP ID mismatch)`, `Credential not registered`, `Passkey signature counter did not increase — possible cloned authenticator`",
  },
  { status: 404, description: "`Signing request not found or already processed`" },
  { status: 410, description: "`Operation expired or not found`: the request passed its five-minute lifetime" },
]
const QUOTA_ERRORS = [{ status: 429, description: "`Daily signing limit exceeded (…)`, `Rate limit exceeded. Please try again later.`" }]
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

// Ids in paths are uuids; anything else is an unknown request, not a malformed one.
const knownId = (id: string) => (UUID.test(id) ? Effect.succeed(id) : Effect.fail(new SigningRequestNotFound()))

/** `POST /v2/sign/single`. */
export const signSingle = endpoint({
  method: "POST",
  path: "/v2/sign/single",
  tag: "Hash signing",
  auth: "bearer",
  summary: "Create a signing request for a document hash, to be approved with the user's passkey",
  body: SignSingleRequest,
  response: SignSingleResponse,
  errors: [
    { status: 400, description: "`documentHash and credentialId required`, or a field in a wrong format" },
    {
      status: 403,
      description:
        "`Requested LOA <loa> exceeds RP maximum <loa>`, `LOA-4 requires KYC-verified RP`, `RP origin not authorized: <origin>`, `RP registration not approved. Status: <status>`",
    },
    { status: 404, description: "`No signing credential found for user`" },
    ...QUOTA_ERRORS,
  ],
  handle: ({ body, user }) => createSigningRequest(user!, body),
})

/** `POST /v2/sign/auth/{requestId}`. */
export const signAuth = endpoint({
  method: "POST",
  path: "/v2/sign/auth/{requestId}",
  tag: "Hash signing",
  auth: "none",
  params: { requestId: SigningRequestId },
  summary: "Approve a signing request with a passkey assertion; answers the CMS signature",
  body: AssertionRequest,
  response: SignAuthResponse,
  errors: ASSERTION_ERRORS,
  handle: ({ body, params }) => Effect.flatMap(knownId(params["requestId"]!), (id) => completeSigningRequest(id, body.assertion)),
})

/** `POST /v2/sign/batch`. */
export const signBatch = endpoint({
  method: "POST",
  path: "/v2/sign/batch",
  tag: "Hash signing",
  auth: "bearer",
  summary: "Create a batch of document hashes approved by one passkey assertion",
  body: SignBatchRequest,
  response: SignBatchResponse,
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
  method: "POST",
  path: "/v2/sign/batch/{batchId}/auth",
  tag: "Hash signing",
  auth: "none",
  params: { batchId: SigningRequestId },
  summary: "Approve a batch with one passkey assertion; answers a result per document",
  body: AssertionRequest,
  response: SignBatchAuthResponse,
  errors: ASSERTION_ERRORS,
  handle: ({ body, params }) => Effect.flatMap(knownId(params["batchId"]!), (id) => completeBatch(id, body.assertion)),
})

const PENDING_ERRORS = [{ status: 404, description: "`Signing request not found or already processed`" }]

/** `GET /v2/sign/requests/{requestId}`: a pending request as the signing frame shows it. */
export const viewRequest = endpoint({
  method: "GET",
  path: "/v2/sign/requests/{requestId}",
  tag: "Hash signing",
  auth: "none",
  params: { requestId: SigningRequestId },
  summary: "A pending signing request for approval in the signing frame (the id is the capability)",
  response: PendingApprovalView,
  errors: PENDING_ERRORS,
  handle: ({ params }) => Effect.flatMap(knownId(params["requestId"]!), viewPendingRequest),
})

/** `GET /v2/sign/batch/{batchId}`: a pending batch with every document, as the signing frame shows it. */
export const viewBatch = endpoint({
  method: "GET",
  path: "/v2/sign/batch/{batchId}",
  tag: "Hash signing",
  auth: "none",
  params: { batchId: SigningRequestId },
  summary: "A pending batch with all its documents, for approval in the signing frame (the id is the capability)",
  response: PendingApprovalView,
  errors: PENDING_ERRORS,
  handle: ({ params }) => Effect.flatMap(knownId(params["batchId"]!), viewPendingBatch),
})

/** `GET /v2/ca`: the root and issuing certificates that verify every signature of this environment. */
export const caCertificates = endpoint({
  method: "GET",
  path: "/v2/ca",
  tag: "Certificates",
  auth: "none",
  summary: "The engine's root and issuing CA certificates (PEM), to verify signatures",
  response: CaCertificatesResponse,
  handle: () =>
    Effect.gen(function* () {
      const settings = yield* EngineConfig
      const ca = yield* certificateAuthority
      const view = (c: typeof ca.root) => ({
        serial: c.serial,
        subject: c.subject,
        notAfter: new Date(c.notAfter).toISOString(),
        pem: toPem(fromBase64(c.der)!),
      })
      return { environment: settings.environment, root: view(ca.root), issuing: view(ca.issuing) }
    }),
})

/** Signing endpoints in document order. */
export const signingEndpoints = [signSingle, signAuth, signBatch, signBatchAuth, viewRequest, viewBatch, caCertificates] as const
