/**
 * Identity verification (`/kyc/*`, HTTP Basic with the RP's client id and client secret) and
 * the liveness capture pass-through behind the session `url` (`/kyc/faceapi`, session token).
 */
import {
  authenticateClient,
  compareIdentity,
  DEFAULT_KYC_SETTINGS,
  EngineConfig,
  eraseCustomer,
  InvalidClient,
  KycProvidersSandbox,
  KycSettings,
  KycVault,
  openLivenessSession,
  readVerdict,
  relayCapture,
  requireKycEnabled,
  reviewVerification,
  startVerification,
  submitDocument,
  submitFace,
  Vault,
  NotConfigured,
  KycCaptureRelayBody,
  KycCompareBody,
  KycCustomerBody,
  KycDocumentBody,
  KycFaceBody,
  KycReviewBody,
  KycStartBody,
  KycVerdictBody,
  KycCaptureResult,
  KycComparison,
  KycErasure,
  KycLivenessSession,
  KycVerdict,
  KycVerificationHandle,
  type DocumentReader,
  type FaceMatcher,
  type LivenessProvider,
} from "@signet/core"
import { Effect, Layer } from "effect"
import { basicCredentials } from "../http/basic-auth.ts"
import { endpoint } from "../http/endpoint.ts"

/** Body limit of endpoints that carry images: 15 MiB of JSON (base64 expansion included); above it 413. */
export const KYC_IMAGE_BODY_BYTES = 15 * 1024 * 1024

/** KYC images are sealed in the engine's Vault under their own purpose, bound to their record. */
export const KycVaultFromVault: Layer.Layer<KycVault, never, Vault> = Layer.effect(
  KycVault,
  Effect.map(Vault, (vault) =>
    KycVault.of({
      seal: (plain, aad) => vault.seal(plain, "kyc-images", aad),
      open: (sealed, aad) => vault.open(sealed, "kyc-images", aad),
    }),
  ),
)

/** What the KYC endpoints are built with. */
export interface KycEndpointOptions {
  /** document reader, liveness provider and face matcher; the sandbox adapters unless given; null: KYC is disabled (503) */
  readonly providers?: Layer.Layer<DocumentReader | LivenessProvider | FaceMatcher, never, EngineConfig> | null
  readonly settings?: typeof DEFAULT_KYC_SETTINGS
}

/** `Authorization: Basic base64(client_id:client_secret)` of an RP with KYC enabled; any credential failure is 401 `invalid_client`. */
export const basicClient = (request: Request) => {
  const credentials = basicCredentials(request)
  if (credentials === undefined) return Effect.fail(new InvalidClient())
  return authenticateClient(credentials.id, credentials.secret).pipe(Effect.tap((rp) => requireKycEnabled(rp.clientId)))
}

const AUTH_ERRORS = [
  { status: 401, description: "`invalid_client`" },
  { status: 403, description: "`KYC is not enabled for this RP`, `rp_urn <urn> belongs to another RP`" },
  { status: 422, description: "`customer_id is required`" },
  {
    status: 429,
    description:
      "`Rate limit exceeded. Please try again later.` (20 per minute per IP, one counter for all KYC operations; the face step also 60 selfie/video)",
  },
]
const CUSTOMER_ERRORS = [
  ...AUTH_ERRORS,
  { status: 404, description: "`KYC verification not found`" },
  { status: 409, description: "`rp_urn <urn> does not belong to this customer_id: ...`" },
]

/** Provides what the KYC use cases need: the providers (sandbox by default), the settings and the image vault. */
export const withKycFor = (options: KycEndpointOptions) => {
  // A server without KYC adapters (production unless configured) answers every KYC call 503:
  // building the providers fails, so no use case runs.
  const providers =
    options.providers === null
      ? (Layer.fail(new NotConfigured({ feature: "Identity verification" })) as Layer.Layer<DocumentReader | LivenessProvider | FaceMatcher, NotConfigured>)
      : (options.providers ?? KycProvidersSandbox)
  const layer = Layer.mergeAll(providers, Layer.succeed(KycSettings, options.settings ?? DEFAULT_KYC_SETTINGS), KycVaultFromVault)
  return <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, layer)
}

/** The KYC endpoints, with the given providers (sandbox by default); images are sealed in the engine's Vault. */
export const kycEndpointsFor = (options: KycEndpointOptions) => {
  const withKyc = withKycFor(options)
  const tag = "Identity verification"
  // Inside withKyc: a server without KYC adapters answers 503 before it looks at credentials or body.
  const client = (request: Request) => withKyc(basicClient(request))

  const start = endpoint({
    method: "POST",
    path: "/kyc/verifications",
    tag,
    auth: "basic",
    client,
    body: KycStartBody,
    summary: "Start (or return) a customer's verification: customer_id (E.164 phone or e-mail), phone_number, rp_urn",
    response: KycVerificationHandle,
    errors: [
      ...AUTH_ERRORS,
      { status: 409, description: "`phone_number <value> already belongs to another customer: ...`" },
      { status: 422, description: "`phone_number is required`, invalid phone number or e-mail formats" },
    ],
    handle: ({ body, client, clientIp }) => withKyc(startVerification(client!.clientId, body, clientIp)),
  })

  const document = endpoint({
    method: "POST",
    path: "/kyc/customers/document",
    tag,
    auth: "basic",
    client,
    body: KycDocumentBody,
    maxBodyBytes: KYC_IMAGE_BODY_BYTES,
    summary: "Submit the document: `images` (base64 JPEG; ID front then back, or the passport photo page) or a single `image`",
    response: KycVerdict,
    errors: [
      ...CUSTOMER_ERRORS,
      { status: 409, description: "`This verification is already verified`" },
      { status: 413, description: "body above 15 MiB" },
      { status: 422, description: "`At least one document image is required`" },
    ],
    handle: ({ body, client, clientIp }) => withKyc(submitDocument(client!.clientId, body, clientIp)),
  })

  const session = endpoint({
    method: "POST",
    path: "/kyc/customers/liveness-session",
    tag,
    auth: "basic",
    client,
    body: KycCustomerBody,
    summary: "Open a liveness-capture session: `url`, `token` (600 s; a new session invalidates the previous token)",
    response: KycLivenessSession,
    errors: CUSTOMER_ERRORS,
    handle: ({ body, client, clientIp }) =>
      withKyc(
        Effect.gen(function* () {
          const { basePath } = yield* EngineConfig
          return yield* openLivenessSession(client!.clientId, body, clientIp, basePath)
        }),
      ),
  })

  const relay = endpoint({
    method: "POST",
    path: "/kyc/faceapi",
    tag,
    auth: "capture-token",
    body: KycCaptureRelayBody,
    maxBodyBytes: KYC_IMAGE_BODY_BYTES,
    summary: "Capture pass-through behind the session url: `frames` (base64 JPEG) with the session token (`Authorization: Bearer` or `token`)",
    response: KycCaptureResult,
    errors: [
      { status: 404, description: "`KYC verification not found` (unknown, superseded or expired session token)" },
      { status: 413, description: "body above 15 MiB" },
      {
        status: 429,
        description: "`Rate limit exceeded. Please try again later.` (120 per minute per IP shared with the phone handoff; 60 selfie/video uploads)",
      },
    ],
    handle: ({ body, request, clientIp }) => {
      const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization")?.trim() ?? "")?.[1]
      const sessionToken = bearer ?? body.token ?? undefined
      const frames = body.frames ?? (body.image != null ? [body.image] : [])
      return withKyc(relayCapture(sessionToken, frames, clientIp))
    },
  })

  const face = endpoint({
    method: "POST",
    path: "/kyc/customers/face",
    tag,
    auth: "basic",
    client,
    body: KycFaceBody,
    summary: "Submit the live face: `livenessTransactionId` from a confirmed capture; `return_selfie` true or 1",
    response: KycVerdict,
    errors: [
      ...CUSTOMER_ERRORS,
      {
        status: 409,
        description:
          "`This verification is already verified`, `Submit the document before the liveness step`, `Resubmit the document before the liveness step`",
      },
      { status: 422, description: "`A liveness transaction id is required`" },
    ],
    handle: ({ body, client, clientIp }) => withKyc(submitFace(client!.clientId, body, clientIp)),
  })

  const verdict = endpoint({
    method: "POST",
    path: "/kyc/customers/verification",
    tag,
    auth: "basic",
    client,
    body: KycVerdictBody,
    summary: "Read the verdict (polled during hosted capture); `return_selfie` true or 1",
    response: KycVerdict,
    errors: CUSTOMER_ERRORS,
    handle: ({ body, client }) => withKyc(readVerdict(client!.clientId, body)),
  })

  const compare = endpoint({
    method: "POST",
    path: "/kyc/customers/compare",
    tag,
    auth: "basic",
    client,
    body: KycCompareBody,
    maxBodyBytes: KYC_IMAGE_BODY_BYTES,
    summary: "Compare details (personal_number, date_of_birth dd/mm/yyyy, full_name `SURNAME, Given Names`) and a photo with the verified identity",
    response: KycComparison,
    errors: [
      ...CUSTOMER_ERRORS,
      { status: 409, description: "`No verified identity on file for customer_id <id>; complete document and live face capture first`" },
    ],
    handle: ({ body, client, clientIp }) => withKyc(compareIdentity(client!.clientId, body, clientIp)),
  })

  const review = endpoint({
    method: "POST",
    path: "/kyc/customers/review",
    tag,
    auth: "basic",
    client,
    body: KycReviewBody,
    summary: "A reviewer's decision on a needs_review verification: `decision` approve or reject",
    response: KycVerdict,
    errors: [...CUSTOMER_ERRORS, { status: 409, description: "`Only a verification in needs_review can be reviewed; this one is <status>`" }],
    handle: ({ body, client }) => withKyc(reviewVerification(client!.clientId, body)),
  })

  const erase = endpoint({
    method: "POST",
    path: "/kyc/customers/erase",
    tag,
    auth: "basic",
    client,
    body: KycCustomerBody,
    summary: "Erase a customer: the verification, its captures and every image (the audit log keeps an `erased` line)",
    response: KycErasure,
    errors: CUSTOMER_ERRORS,
    handle: ({ body, client }) => withKyc(eraseCustomer(client!.clientId, body)),
  })

  return [start, document, session, relay, face, verdict, compare, review, erase] as const
}
