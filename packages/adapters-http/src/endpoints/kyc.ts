/**
 * Identity verification (`/kyc/*`, HTTP Basic with the RP's client id and client secret) and
 * the liveness capture pass-through behind the session `url` (`/kyc/faceapi`, session token).
 */
import {
  authenticateClient, compareIdentity, DEFAULT_KYC_SETTINGS, EngineConfig, eraseCustomer, InvalidClient, KycProvidersSandbox,
  KycSettings, KycVault, openLivenessSession, readVerdict, relayCapture, requireKycEnabled, reviewVerification, startVerification,
  submitDocument, submitFace, Vault, NotConfigured, type DocumentReader, type FaceMatcher, type LivenessProvider,
} from "@signet/core"
import { Effect, Layer, Schema } from "effect"
import { basicCredentials } from "../http/basic-auth.ts"
import { endpoint } from "../http/endpoint.ts"
import { CompareBody, CustomerBody, DocumentBody, FaceBody, RelayBody, ReviewBody, StartBody, VerdictBody } from "./kyc-bodies.ts"

/** Body limit of endpoints that carry images: 15 MiB of JSON (base64 expansion included); above it 413. */
export const KYC_IMAGE_BODY_BYTES = 15 * 1024 * 1024


/** KYC images are sealed in the engine's Vault under their own purpose, bound to their record. */
export const KycVaultFromVault: Layer.Layer<KycVault, never, Vault> = Layer.effect(KycVault, Effect.map(Vault, (vault) => KycVault.of({
  seal: (plain, aad) => vault.seal(plain, "kyc-images", aad),
  open: (sealed, aad) => vault.open(sealed, "kyc-images", aad),
})))

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

const Verdict = Schema.Struct({
  customer_id: Schema.String, status: Schema.String, verified_name: Schema.String, doc_type: Schema.String, doc_number: Schema.String,
  personal_number: Schema.String, doc_expiry: Schema.NullOr(Schema.String), nationality: Schema.String,
  face_match_score: Schema.NullOr(Schema.Number), liveness_score: Schema.NullOr(Schema.Number), reasons: Schema.Array(Schema.String),
  selfie: Schema.NullOr(Schema.Struct({ content_type: Schema.String, data: Schema.String })),
})

const AUTH_ERRORS = [
  { status: 401, description: "`invalid_client`" },
  { status: 403, description: "`KYC is not enabled for this RP`, `rp_urn <urn> belongs to another RP`" },
  { status: 422, description: "`customer_id is required`" },
  { status: 429, description: "`Rate limit exceeded. Please try again later.` (20 per minute per IP, one counter for all KYC operations; the face step also 60 selfie/video)" },
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
  const providers = options.providers === null
    ? Layer.fail(new NotConfigured({ feature: "Identity verification" })) as Layer.Layer<DocumentReader | LivenessProvider | FaceMatcher, NotConfigured>
    : options.providers ?? KycProvidersSandbox
  const layer = Layer.mergeAll(
    providers,
    Layer.succeed(KycSettings, options.settings ?? DEFAULT_KYC_SETTINGS),
    KycVaultFromVault)
  return <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, layer)
}

/** The KYC endpoints, with the given providers (sandbox by default); images are sealed in the engine's Vault. */
export const kycEndpointsFor = (options: KycEndpointOptions) => {
  const withKyc = withKycFor(options)
  const tag = "Identity verification"

  const start = endpoint({
    method: "POST", path: "/kyc/verifications", tag, auth: "basic", body: StartBody,
    summary: "Start (or return) a customer's verification: customer_id (E.164 phone or e-mail), phone_number, rp_urn",
    response: Schema.Struct({ customer_id: Schema.String, phone_number: Schema.String, status: Schema.String, created: Schema.Boolean, enrolled: Schema.Boolean }),
    errors: [...AUTH_ERRORS,
      { status: 409, description: "`phone_number <value> already belongs to another customer: ...`" },
      { status: 422, description: "`phone_number is required`, invalid phone number or e-mail formats" }],
    handle: ({ body, request, clientIp }) => withKyc(Effect.flatMap(basicClient(request), (rp) => startVerification(rp.clientId, body, clientIp))),
  })

  const document = endpoint({
    method: "POST", path: "/kyc/customers/document", tag, auth: "basic", body: DocumentBody, maxBodyBytes: KYC_IMAGE_BODY_BYTES,
    summary: "Submit the document: `images` (base64 JPEG; ID front then back, or the passport photo page) or a single `image`",
    response: Verdict,
    errors: [...CUSTOMER_ERRORS, { status: 409, description: "`This verification is already verified`" },
      { status: 413, description: "body above 15 MiB" }, { status: 422, description: "`At least one document image is required`" }],
    handle: ({ body, request, clientIp }) => withKyc(Effect.flatMap(basicClient(request), (rp) => submitDocument(rp.clientId, body, clientIp))),
  })

  const session = endpoint({
    method: "POST", path: "/kyc/customers/liveness-session", tag, auth: "basic", body: CustomerBody,
    summary: "Open a liveness-capture session: `url`, `token` (600 s; a new session invalidates the previous token)",
    response: Schema.Struct({ url: Schema.String, token: Schema.String, expiresIn: Schema.Int, customer_id: Schema.String, rp_urn: Schema.optional(Schema.String) }),
    errors: CUSTOMER_ERRORS,
    handle: ({ body, request, clientIp }) => withKyc(Effect.gen(function* () {
      const rp = yield* basicClient(request)
      const { basePath } = yield* EngineConfig
      return yield* openLivenessSession(rp.clientId, body, clientIp, basePath)
    })),
  })

  const relay = endpoint({
    method: "POST", path: "/kyc/faceapi", tag, auth: "capture-token", body: RelayBody, maxBodyBytes: KYC_IMAGE_BODY_BYTES,
    summary: "Capture pass-through behind the session url: `frames` (base64 JPEG) with the session token (`Authorization: Bearer` or `token`)",
    response: Schema.Struct({ status: Schema.Literal("confirmed", "retry"), transactionId: Schema.optional(Schema.String), reason: Schema.optional(Schema.String) }),
    errors: [{ status: 404, description: "`KYC verification not found` (unknown, superseded or expired session token)" },
      { status: 413, description: "body above 15 MiB" },
      { status: 429, description: "`Rate limit exceeded. Please try again later.` (120 per minute per IP shared with the phone handoff; 60 selfie/video uploads)" }],
    handle: ({ body, request, clientIp }) => {
      const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization")?.trim() ?? "")?.[1]
      const sessionToken = bearer ?? (typeof body["token"] === "string" ? body["token"] : undefined)
      const frames = Array.isArray(body["frames"]) ? body["frames"] : body["image"] !== undefined ? [body["image"]] : []
      return withKyc(relayCapture(sessionToken, frames, clientIp))
    },
  })

  const face = endpoint({
    method: "POST", path: "/kyc/customers/face", tag, auth: "basic", body: FaceBody,
    summary: "Submit the live face: `livenessTransactionId` from a confirmed capture; `return_selfie` true or 1",
    response: Verdict,
    errors: [...CUSTOMER_ERRORS,
      { status: 409, description: "`This verification is already verified`, `Submit the document before the liveness step`, `Resubmit the document before the liveness step`" },
      { status: 422, description: "`A liveness transaction id is required`" }],
    handle: ({ body, request, clientIp }) => withKyc(Effect.flatMap(basicClient(request), (rp) => submitFace(rp.clientId, body, clientIp))),
  })

  const verdict = endpoint({
    method: "POST", path: "/kyc/customers/verification", tag, auth: "basic", body: VerdictBody,
    summary: "Read the verdict (polled during hosted capture); `return_selfie` true or 1",
    response: Verdict, errors: CUSTOMER_ERRORS,
    handle: ({ body, request }) => withKyc(Effect.flatMap(basicClient(request), (rp) => readVerdict(rp.clientId, body))),
  })

  const compare = endpoint({
    method: "POST", path: "/kyc/customers/compare", tag, auth: "basic", body: CompareBody, maxBodyBytes: KYC_IMAGE_BODY_BYTES,
    summary: "Compare details (personal_number, date_of_birth dd/mm/yyyy, full_name `SURNAME, Given Names`) and a photo with the verified identity",
    response: Schema.Struct({
      customer_id: Schema.String, enrolled: Schema.Boolean, matches: Schema.Record({ key: Schema.String, value: Schema.Boolean }),
      face: Schema.Struct({
        match: Schema.Boolean,
        similarity: Schema.Number.annotations({ description: "0..1; 0 when no image was compared (checked false)" }),
        checked: Schema.Boolean,
      }),
    }),
    errors: [...CUSTOMER_ERRORS, { status: 409, description: "`No verified identity on file for customer_id <id>; complete document and live face capture first`" }],
    handle: ({ body, request, clientIp }) => withKyc(Effect.flatMap(basicClient(request), (rp) => compareIdentity(rp.clientId, body, clientIp))),
  })

  const review = endpoint({
    method: "POST", path: "/kyc/customers/review", tag, auth: "basic", body: ReviewBody,
    summary: "A reviewer's decision on a needs_review verification: `decision` approve or reject",
    response: Verdict,
    errors: [...CUSTOMER_ERRORS, { status: 409, description: "`Only a verification in needs_review can be reviewed; this one is <status>`" }],
    handle: ({ body, request }) => withKyc(Effect.flatMap(basicClient(request), (rp) => reviewVerification(rp.clientId, body))),
  })

  const erase = endpoint({
    method: "POST", path: "/kyc/customers/erase", tag, auth: "basic", body: CustomerBody,
    summary: "Erase a customer: the verification, its captures and every image (the audit log keeps an `erased` line)",
    response: Schema.Struct({ customer_id: Schema.String, erased: Schema.Boolean }), errors: CUSTOMER_ERRORS,
    handle: ({ body, request }) => withKyc(Effect.flatMap(basicClient(request), (rp) => eraseCustomer(rp.clientId, body))),
  })

  return [start, document, session, relay, face, verdict, compare, review, erase] as const
}
