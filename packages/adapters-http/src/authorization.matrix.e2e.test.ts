/**
 * THE AUTHORIZATION MATRIX (docs/authorization.md), generated from the endpoint table: every
 * endpoint × every kind of caller × own/foreign resource. Allowed calls succeed; every other
 * answers 401/403/404 and changes no row of the database (a snapshot of every table is compared
 * before and after). An endpoint without a row fails the test. Also the regressions of issue 13
 * item 3 (a token RP Y obtained for a user reached RP X and the user's files) over HTTP.
 */
import { administerRelyingParty, configureKyc, Deliveries, issueClientToken, KycImages, KycVerifications, registerRelyingParty } from "@signet/core"
import { SqlDatabase } from "@signet/adapters-sql"
import { StoragePostgres } from "@signet/adapters-postgres"
import { enrol, ok, signIn, signInAtConsole, SoftwarePasskey, stepUp, type TokenAnswer } from "@signet/testkit"
import { samplePdf } from "@signet/testkit/pdf"
import { dropSchema, findPostgres, freshSchemaName } from "@signet/testkit/storage"
import { passport } from "@signet/testkit/kyc"
import { Effect, type Layer, Option } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageServices } from "./engine.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const ADMIN_TOKEN = "adm_matrix_0123456789abcdefghijklmnopqrstuvwxyz"

/** The kinds of caller: the issue's seven, plus RP X's contact through Signet's console. */
const PRINCIPALS = ["anonymous", "userX", "userY", "ccX", "contactX", "contactY", "consoleX", "admin"] as const
type Principal = (typeof PRINCIPALS)[number]
type Side = "own" | "foreign"
type Case = `${Principal}:${Side}`
type StepUpAction = "decrypt" | "revoke-certificate" | "rotate-secrets"

/** The resources of one owner: an RP and what one of its users made there. */
interface Resources {
  readonly rp: string
  readonly userId: string
  readonly file: string
  readonly serial: string
  readonly signRequest: string
  readonly pdfRequest: string
  readonly webhook: number
  readonly checkout: string
  /** a KYC verification of the owner's RP with its document image, and a failed webhook delivery (the console's resources) */
  readonly verification: string
  readonly image: string
  readonly delivery: number
}
interface Built {
  readonly path: string
  readonly body?: unknown
}
type Row =
  /** anyone may call it: the body or the path carries the proof, or it is public (hosted pages, discovery, CA) */
  | { readonly public: string }
  | {
      /** the cases that must succeed; every other case is refused with 401/403/404 and changes nothing */
      readonly allow: ReadonlyArray<Case>
      readonly build: (r: Resources) => Built
      /** the call changes or consumes its resource: allowed cases run last */
      readonly destructive?: boolean
      /** callers bring a fresh passkey approval for this action, so a refusal is the model's own */
      readonly stepUp?: StepUpAction
      /** the endpoint names no resource: only the "own" column is run */
      readonly noResource?: boolean
      /** credentials as HTTP Basic instead of a bearer token (the KYC API) */
      readonly basic?: boolean
      /** what counts as success (default 2xx) */
      readonly success?: (status: number) => boolean
      /** a refusal the spec defines as a 200 answer (webhook DELETE answers `deleted: false`) */
      readonly refusal?: (status: number, body: unknown) => boolean
    }

const both = (p: Principal): ReadonlyArray<Case> => [`${p}:own`, `${p}:foreign`]
const ADMIN: ReadonlyArray<Case> = both("admin")
const RP_ADMIN: ReadonlyArray<Case> = ["contactX:own", "contactY:own", "consoleX:own"]
const USER_BASIC: ReadonlyArray<Case> = ["userX:own", "userY:own", "contactX:own", "contactY:own", "consoleX:own"]
const CONSOLE_ONLY: ReadonlyArray<Case> = ["consoleX:own"]
const hash = () => createHash("sha256").update(randomBytes(16)).digest("hex")

// One row per `METHOD path` of the endpoint table (adapters-http/src/endpoints/*.ts and the pages).
const MATRIX: Readonly<Record<string, Row>> = {
  "GET /health": { public: "health probe" },
  "GET /health/live": { public: "liveness probe (no data)" },
  "GET /health/ready": { public: "readiness probe (which checks pass, no data)" },
  "GET /openapi.json": { public: "the interface document" },
  "GET /session": { public: "opens a hosted-page session (cookie + CSRF token)" },
  "POST /enrolment/request": {
    public: "enrolment needs the account's proof: a proven e-mail, the hosted session, or a console token (an RP's token is 403: identity.e2e)",
  },
  "POST /enrolment/email": { public: "sends a one-time code to the address; the code is the proof (mailer.e2e)" },
  "POST /enrolment/email/verify": { public: "the code from the e-mail is the proof (identity.e2e, mailer.e2e)" },
  "POST /enrolment/verify": { public: "the attestation is the proof" },
  "POST /signin/request": { public: "starts a passkey sign-in" },
  "POST /signin/verify": { public: "the assertion is the proof" },
  "GET /.well-known/jwks.json": { public: "public keys" },
  "GET /v2/me": { allow: USER_BASIC, noResource: true, build: () => ({ path: "/v2/me" }) },
  "POST /v2/step-up/challenge": { allow: USER_BASIC, noResource: true, build: () => ({ path: "/v2/step-up/challenge", body: { action: "decrypt" } }) },
  "POST /v2/step-up/verify": {
    public: "bearer, but the step-up ceremony is the proof; tested in authorization.e2e (another user's or client's ceremony is 410)",
  },
  "GET /.well-known/openid-configuration": { public: "OIDC discovery" },
  "GET /authorize": { public: "OIDC: the hosted session and the consent page decide" },
  "POST /authorize/consent": { public: "OIDC: hosted session + CSRF token" },
  "POST /oauth/token": { public: "OAuth: client authentication in the request" },
  "POST /oauth/revoke": { public: "OAuth: client authentication in the request" },
  "GET /userinfo": { public: "OIDC: checks its own bearer token (scope openid)" },
  "POST /userinfo": { public: "OIDC: checks its own bearer token (scope openid)" },
  "GET /logout": { public: "OIDC RP-initiated logout" },
  "POST /logout/confirm": { public: "OIDC logout: hosted session + CSRF token" },
  "POST /v2/sign/single": {
    allow: ["userX:own", "userY:own", "contactX:own", "contactY:own"],
    noResource: true,
    build: () => ({ path: "/v2/sign/single", body: { documentHash: hash(), credentialId: "__credential__" } }),
  },
  "POST /v2/sign/auth/{requestId}": { public: "the passkey assertion over the dynamic-linking challenge is the proof" },
  "POST /v2/sign/batch": {
    allow: ["userX:own", "userY:own", "contactX:own", "contactY:own"],
    noResource: true,
    build: () => ({
      path: "/v2/sign/batch",
      body: { credentialId: "__credential__", documents: [{ id: "a", hash: hash(), hash_algo: "2.16.840.1.101.3.4.2.1" }] },
    }),
  },
  "POST /v2/sign/batch/{batchId}/auth": { public: "the passkey assertion is the proof" },
  "GET /v2/sign/requests/{requestId}": { public: "the signing frame reads a pending request by its unguessable id (spec)" },
  "GET /v2/sign/batch/{batchId}": { public: "the signing frame reads a pending batch by its unguessable id (spec)" },
  "GET /v2/ca": { public: "the CA certificates" },
  "POST /v2/validate": { public: "validation of anyone's signature" },
  "GET /v2/certificates": { allow: CONSOLE_ONLY, noResource: true, build: () => ({ path: "/v2/certificates" }) },
  "POST /v2/certificates/renew": { allow: CONSOLE_ONLY, noResource: true, build: () => ({ path: "/v2/certificates/renew" }) },
  "GET /v2/certificates/{serial}": { allow: CONSOLE_ONLY, build: (r) => ({ path: `/v2/certificates/${r.serial}` }) },
  "POST /v2/certificates/{serial}/revoke": {
    allow: CONSOLE_ONLY,
    destructive: true,
    stepUp: "revoke-certificate",
    build: (r) => ({ path: `/v2/certificates/${r.serial}/revoke`, body: { reason: "superseded" } }),
  },
  "POST /v2/relying-parties/{clientId}/certificates/{serial}/revoke": {
    allow: RP_ADMIN,
    destructive: true,
    stepUp: "revoke-certificate",
    build: (r) => ({ path: `/v2/relying-parties/${r.rp}/certificates/${r.serial}/revoke`, body: { reason: "affiliationChanged" } }),
  },
  "GET /v2/ca/issuing.crl": { public: "the CRL" },
  "POST /v2/ocsp": { public: "OCSP" },
  "GET /v2/ocsp/{request}": { public: "OCSP" },
  "GET /v2/encryption-certificate": { allow: CONSOLE_ONLY, noResource: true, build: () => ({ path: "/v2/encryption-certificate" }) },
  "GET /v2/users/{userId}/encryption-certificate": { allow: both("consoleX"), build: (r) => ({ path: `/v2/users/${r.userId}/encryption-certificate` }) },
  "POST /v2/files": { allow: CONSOLE_ONLY, noResource: true, build: () => ({ path: "/v2/files", body: { name: "m.txt", content: "aGk=" } }) },
  "GET /v2/files": { allow: CONSOLE_ONLY, noResource: true, build: () => ({ path: "/v2/files" }) },
  "GET /v2/files/{id}": { allow: CONSOLE_ONLY, build: (r) => ({ path: `/v2/files/${r.file}` }) },
  "DELETE /v2/files/{id}": { allow: CONSOLE_ONLY, destructive: true, build: (r) => ({ path: `/v2/files/${r.file}` }) },
  "POST /decrypt": { allow: CONSOLE_ONLY, stepUp: "decrypt", build: (r) => ({ path: "/decrypt", body: { fileId: r.file } }) },
  "POST /decrypt/asymmetric": {
    // not an EnvelopedData: the authorized caller gets past the model (and spends its proof) to the content's 400
    allow: CONSOLE_ONLY,
    noResource: true,
    stepUp: "decrypt",
    build: () => ({ path: "/decrypt/asymmetric", body: { envelopedData: "MAA=" } }),
    success: (s) => s === 400,
  },
  "PUT /v2/signature-image": { allow: CONSOLE_ONLY, noResource: true, build: () => ({ path: "/v2/signature-image", body: { image: PNG } }) },
  "GET /v2/signature-image": {
    allow: CONSOLE_ONLY,
    noResource: true,
    build: () => ({ path: "/v2/signature-image" }),
    success: (s) => s === 200 || s === 404,
  },
  "DELETE /v2/signature-image": {
    allow: CONSOLE_ONLY,
    noResource: true,
    destructive: true,
    build: () => ({ path: "/v2/signature-image" }),
    success: (s) => s === 200 || s === 404,
  },
  "GET /v2/sign/{requestId}/image": {
    allow: ["userX:own", "userY:own", "contactX:own", "contactY:own", "consoleX:own"],
    build: (r) => ({ path: `/v2/sign/${r.signRequest}/image` }),
  },
  "POST /v2/tsa": { public: "RFC 3161 timestamp authority" },
  "GET /v2/tsa": { public: "the TSA's certificate" },
  "POST /v2/sign/pdf": {
    allow: ["userX:own", "userY:own", "contactX:own", "contactY:own"],
    noResource: true,
    build: () => ({ path: "/v2/sign/pdf", body: { pdf: PDF, credentialId: "__credential__" } }),
  },
  "GET /v2/sign/pdf/{requestId}/document": {
    allow: ["userX:own", "userY:own", "contactX:own", "contactY:own"],
    build: (r) => ({ path: `/v2/sign/pdf/${r.pdfRequest}/document` }),
  },
  "POST /ssc/token": { public: "the SSC secret in the body is the RP's proof" },
  "POST /ssc/challenge": { public: "the signing token in the body is the proof" },
  "POST /ssc/finalize": { public: "the passkey assertion is the proof" },
  ...Object.fromEntries(
    [
      "POST /kyc/verifications",
      "POST /kyc/customers/document",
      "POST /kyc/customers/liveness-session",
      "POST /kyc/customers/face",
      "POST /kyc/customers/verification",
      "POST /kyc/customers/compare",
      "POST /kyc/customers/review",
      "POST /kyc/customers/erase",
    ].map((key) => [
      key,
      {
        allow: ["ccX:own"],
        noResource: true,
        basic: true,
        build: () => ({ path: key.split(" ")[1]!, body: { customer_id: "matrix-customer", phone_number: "+254712345678" } }),
        // authenticated, the KYC API answers its own domain outcome (a missing verification, a missing image …)
        success: (s: number) => s !== 401 && s !== 403 && s < 500,
      } satisfies Row,
    ]),
  ),
  "POST /kyc/faceapi": { public: "the capture relay: the liveness session token in the body is the proof" },
  "GET /kyc/capture/status": { public: "hosted capture: the session token is the proof" },
  "POST /kyc/capture/finish": { public: "hosted capture: the session token is the proof" },
  "POST /kyc/handoff": { public: "hosted capture: the session token is the proof" },
  "GET /kyc/handoff/{id}/status": { public: "phone handoff: the unguessable handoff id is the capability" },
  "POST /kyc/handoff/{id}/document": { public: "phone handoff: the unguessable handoff id is the capability" },
  // the user's own signing events, only those of the RP the token was issued to (all of them through the console)
  "GET /v2/events": { allow: USER_BASIC, noResource: true, build: () => ({ path: "/v2/events" }) },
  "POST /v2/webhooks/register": {
    allow: ["contactX:own", "contactY:own"],
    noResource: true,
    build: () => ({
      path: "/v2/webhooks/register",
      body: { url: "https://hooks.rp.example/matrix", events: ["sign.complete"], secret: `whsec_${randomBytes(32).toString("base64")}` },
    }),
  },
  "GET /v2/webhooks": { allow: ["contactX:own", "contactY:own"], noResource: true, build: () => ({ path: "/v2/webhooks" }) },
  "DELETE /v2/webhooks/{id}": {
    allow: ["contactX:own", "contactY:own"],
    destructive: true,
    build: (r) => ({ path: `/v2/webhooks/${r.webhook}` }),
    refusal: (status, body) => status === 200 && (body as { deleted?: boolean }).deleted === false,
  },
  "GET /v2/deliveries": { allow: ["contactX:own", "contactY:own"], noResource: true, build: () => ({ path: "/v2/deliveries" }) },
  "POST /v2/relying-parties": { allow: CONSOLE_ONLY, noResource: true, build: () => ({ path: "/v2/relying-parties", body: { name: "Matrix Co" } }) },
  "GET /v2/relying-parties": { allow: CONSOLE_ONLY, noResource: true, build: () => ({ path: "/v2/relying-parties" }) },
  "GET /v2/relying-parties/{clientId}": { allow: RP_ADMIN, build: (r) => ({ path: `/v2/relying-parties/${r.rp}` }) },
  "PATCH /v2/relying-parties/{clientId}": {
    allow: RP_ADMIN,
    build: (r) => ({ path: `/v2/relying-parties/${r.rp}`, body: { redirectUris: ["https://attacker.example/cb"] } }),
  },
  "POST /v2/relying-parties/{clientId}/rotate-secrets": {
    allow: RP_ADMIN,
    destructive: true,
    stepUp: "rotate-secrets",
    build: (r) => ({ path: `/v2/relying-parties/${r.rp}/rotate-secrets`, body: { which: "both" } }),
  },
  "POST /v2/relying-parties/{clientId}/organisation": {
    allow: RP_ADMIN,
    build: (r) => ({
      path: `/v2/relying-parties/${r.rp}/organisation`,
      body: { legalName: "M Ltd", registrationNumber: "1", country: "KE", documents: [{ kind: "registration", reference: "r" }] },
    }),
  },
  "GET /v2/relying-parties/{clientId}/organisation": { allow: RP_ADMIN, build: (r) => ({ path: `/v2/relying-parties/${r.rp}/organisation` }) },
  "GET /admin/api/relying-parties": { allow: ["admin:own"], noResource: true, build: () => ({ path: "/admin/api/relying-parties" }) },
  "GET /metrics": { allow: ["admin:own"], noResource: true, build: () => ({ path: "/metrics" }) },
  "GET /admin/api/relying-parties/{clientId}": { allow: ADMIN, build: (r) => ({ path: `/admin/api/relying-parties/${r.rp}` }) },
  "POST /admin/api/relying-parties/{clientId}/commands": {
    allow: ADMIN,
    build: (r) => ({ path: `/admin/api/relying-parties/${r.rp}/commands`, body: { _tag: "SetMaxLoa", loa: "LOA-4" } }),
  },
  "POST /admin/api/relying-parties/{clientId}/rotate-secrets": {
    allow: ADMIN,
    destructive: true,
    build: (r) => ({ path: `/admin/api/relying-parties/${r.rp}/rotate-secrets`, body: { which: "ssc" } }),
  },
  "POST /admin/api/relying-parties/{clientId}/organisation-checks": {
    allow: ADMIN,
    build: (r) => ({
      path: `/admin/api/relying-parties/${r.rp}/organisation-checks`,
      body: {
        outcome: "rejected",
        legalName: "M Ltd",
        registrationNumber: "1",
        country: "KE",
        documents: [{ kind: "registration", reference: "r" }],
        checkedBy: "matrix",
      },
    }),
  },
  "GET /admin/api/session": { allow: ["admin:own"], noResource: true, build: () => ({ path: "/admin/api/session" }) },
  "GET /admin/api/kyc/verifications": { allow: ["admin:own"], noResource: true, build: () => ({ path: "/admin/api/kyc/verifications?status=all" }) },
  "GET /admin/api/kyc/verifications/{id}": { allow: ADMIN, build: (r) => ({ path: `/admin/api/kyc/verifications/${r.verification}` }) },
  "GET /admin/api/kyc/verifications/{id}/images/{imageId}": {
    allow: ADMIN,
    build: (r) => ({ path: `/admin/api/kyc/verifications/${r.verification}/images/${r.image}` }),
  },
  // the verification waits for its face step, not for review: the administrator's decision is the state's 409
  "POST /admin/api/kyc/verifications/{id}/decision": {
    allow: ADMIN,
    build: (r) => ({ path: `/admin/api/kyc/verifications/${r.verification}/decision`, body: { decision: "approve", reason: "matrix", reviewer: "matrix" } }),
    success: (s) => s === 409,
  },
  "POST /admin/api/kyc/verifications/{id}/erase": {
    allow: ADMIN,
    destructive: true,
    build: (r) => ({ path: `/admin/api/kyc/verifications/${r.verification}/erase`, body: { reason: "matrix", reviewer: "matrix" } }),
  },
  "GET /admin/api/relying-parties/{clientId}/webhooks": { allow: ADMIN, build: (r) => ({ path: `/admin/api/relying-parties/${r.rp}/webhooks` }) },
  "POST /admin/api/relying-parties/{clientId}/deliveries/{deliveryId}/retry": {
    allow: ADMIN,
    destructive: true,
    build: (r) => ({ path: `/admin/api/relying-parties/${r.rp}/deliveries/${r.delivery}/retry` }),
  },
  "GET /admin/api/relying-parties/{clientId}/kyc": { allow: ADMIN, build: (r) => ({ path: `/admin/api/relying-parties/${r.rp}/kyc` }) },
  "POST /admin/api/relying-parties/{clientId}/kyc": {
    allow: ADMIN,
    build: (r) => ({ path: `/admin/api/relying-parties/${r.rp}/kyc`, body: { enabled: true } }),
  },
  "GET /admin/api/relying-parties/{clientId}/usage": { allow: ADMIN, build: (r) => ({ path: `/admin/api/relying-parties/${r.rp}/usage` }) },
  "GET /admin/api/certificates": { allow: ADMIN, build: (r) => ({ path: `/admin/api/certificates?serial=${r.serial}` }) },
  "POST /admin/api/certificates/{serial}/revoke": {
    allow: ADMIN,
    destructive: true,
    build: (r) => ({ path: `/admin/api/certificates/${r.serial}/revoke`, body: { reason: "keyCompromise" } }),
  },
  "GET /admin/api/audit": { allow: ["admin:own"], noResource: true, build: () => ({ path: "/admin/api/audit?format=csv" }) },
  "GET /v2/plans": { public: "the plan catalogue" },
  "POST /v2/relying-parties/{clientId}/checkout": {
    allow: RP_ADMIN,
    build: (r) => ({
      path: `/v2/relying-parties/${r.rp}/checkout`,
      body: { plan: "starter", period: "monthly", method: "card", cardToken: "tok_4000000000000002" },
    }),
    success: (s) => s < 300 || s === 400,
  },
  "GET /v2/relying-parties/{clientId}/checkout/{checkoutId}": {
    allow: RP_ADMIN,
    build: (r) => ({ path: `/v2/relying-parties/${r.rp}/checkout/${r.checkout}` }),
  },
  "POST /payments/callback/{provider}": { public: "the payment provider's signature is the proof" },
  "GET /rp/usage/{clientId}": { allow: RP_ADMIN, build: (r) => ({ path: `/rp/usage/${r.rp}` }) },
  "GET /rp/rate-limits/{clientId}": { allow: RP_ADMIN, build: (r) => ({ path: `/rp/rate-limits/${r.rp}` }) },
  "POST /v2/identity-providers": {
    public: "bound to the token's own RP and its contact (identity-providers.e2e); provider discovery needs a live issuer (accounts area: item 5)",
  },
  "GET /v2/identity-providers": { allow: ["contactX:own", "contactY:own"], noResource: true, build: () => ({ path: "/v2/identity-providers" }) },
  "DELETE /v2/identity-providers/{id}": { public: "bound to the token's own RP and its contact (identity-providers.e2e)" },
  "GET /idp/providers": { public: "the sign-in page's list of providers" },
  "GET /idp/{id}/start": { public: "starts an external sign-in" },
  "GET /idp/callback": { public: "the provider's answer (state, PKCE) is the proof" },
  "GET /idp/link": { public: "hosted page" },
  "POST /idp/link/request": { public: "the link offer in the body is the proof" },
  "POST /idp/link/confirm": { public: "the passkey assertion is the proof" },
  // Only the console may unlink; it then finds no such identity (404). Every other caller is refused before the lookup.
  "DELETE /v2/me/identities/{id}": {
    allow: [],
    noResource: true,
    build: () => ({ path: "/v2/me/identities/none" }),
    refusal: (s) => s === 401 || s === 403 || s === 404,
  },
  "GET /": { public: "hosted page" },
  "GET /enrol": { public: "hosted page" },
  "GET /signin": { public: "hosted page" },
  "GET /pages/webauthn.js": { public: "hosted script" },
  "GET /admin": { public: "the console page; its API needs the administrator token" },
  "GET /admin/console.js": { public: "hosted script" },
  "GET /admin/rp": { public: "a console page; its API needs the administrator token" },
  "GET /admin/kyc": { public: "a console page; its API needs the administrator token" },
  "GET /admin/kyc/review": { public: "a console page; its API needs the administrator token" },
  "GET /admin/usage": { public: "a console page; its API needs the administrator token" },
  "GET /admin/certificates": { public: "a console page; its API needs the administrator token" },
  "GET /admin/audit": { public: "a console page; its API needs the administrator token" },
  "GET /ssc/frame": { public: "the signing frame" },
  "GET /ssc/frame.js": { public: "hosted script" },
  "GET /kyc/capture": { public: "hosted page" },
  "GET /kyc/handoff/{id}": { public: "hosted page of a handoff capability" },
  "GET /kyc/capture.js": { public: "hosted script" },
}

// A 1×1 RGB PNG and a small PDF, made once.
let PNG = ""
let PDF = ""

const postgres = await findPostgres()

/** The matrix on one storage adapter: `storage` gives the engine's storage (undefined: a temp SQLite file) and its cleanup. */
const matrixOn = (adapter: string, storage: () => { readonly layer?: Layer.Layer<StorageServices, unknown>; readonly drop: () => Promise<void> }) =>
  describe(`the authorization matrix (${adapter})`, () => {
    let dropStorage: () => Promise<void> = async () => {}
    let env: RunningEngine
    const passkeys: Record<"u" | "cx" | "cy", SoftwarePasskey> = {} as never
    const tokens: Partial<Record<Principal, string>> = {}
    const owners: Record<"uX" | "uY" | "cx" | "cy", Resources> = {} as never
    let rpY = ""
    let xSecret = ""

    const headersOf = (p: Principal, basic: boolean): Record<string, string> => {
      if (p === "anonymous") return {}
      if (p === "admin") return { authorization: `Bearer ${ADMIN_TOKEN}` }
      if (p === "ccX" && basic) return { authorization: `Basic ${Buffer.from(`${env.rp.clientId}:${xSecret}`).toString("base64")}` }
      return { authorization: `Bearer ${tokens[p]}` }
    }
    const passkeyOf = (p: Principal) =>
      p === "userX" || p === "userY" ? passkeys.u : p === "contactX" || p === "consoleX" ? passkeys.cx : p === "contactY" ? passkeys.cy : undefined
    const ownerOf = (p: Principal, side: Side): Resources => {
      const ySide = p === "userY" || p === "contactY"
      if (side === "foreign") return ySide ? owners.cx : owners.cy
      return p === "userX" ? owners.uX : p === "userY" ? owners.uY : ySide ? owners.cy : owners.cx
    }

    /** Every row of every table, as one comparable text (migration bookkeeping and rate-limit counters aside). */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    type AnyDb = { introspection: { getTables: () => Promise<Array<{ name: string }>> }; selectFrom: (t: string) => any }
    const snapshot = () =>
      env.engine.run(
        Effect.flatMap(SqlDatabase as never as Effect.Effect<{ db: AnyDb }>, (s) =>
          Effect.promise(async () => {
            const tables = (await s.db.introspection.getTables())
              .map((t) => t.name)
              .filter((n) => !n.startsWith("kysely_") && n !== "quota_counters" && !n.startsWith("sqlite_"))
              .sort()
            // the engine's own tables, whichever adapter (PostgreSQL: only the engine's schema)
            expect(tables).toEqual(expect.arrayContaining(["users", "passkeys", "signing_requests", "audit_events"]))
            const parts: Array<string> = []
            for (const table of tables) {
              const rows: Array<Record<string, unknown>> = await s.db.selectFrom(table).selectAll().execute()
              parts.push(
                `${table}:${rows
                  .map((r) => JSON.stringify(r, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString("base64") : v)))
                  .sort()
                  .join("\n")}`,
              )
            }
            return parts.join("\n--\n")
          }),
        ) as never as Effect.Effect<string>,
      )

    const call = async (p: Principal, method: string, row: Extract<Row, { allow: unknown }>, r: Resources, given?: string) => {
      const built = row.build(r)
      const stepUpProof =
        given ?? (row.stepUp !== undefined && passkeyOf(p) !== undefined ? await stepUp(env.client, passkeyOf(p)!, tokens[p]!, row.stepUp) : undefined)
      const proof = stepUpProof === undefined ? {} : { "signet-step-up": stepUpProof }
      const body =
        built.body === undefined ? undefined : JSON.parse(JSON.stringify(built.body).replaceAll("__credential__", passkeyOf(p)?.credentialId ?? "none"))
      const abort = new AbortController()
      const response = await fetch(`${env.client.baseUrl}${built.path}`, {
        method,
        signal: abort.signal,
        headers: { ...headersOf(p, row.basic === true), ...proof, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      // an event stream never ends: its status is the answer
      const text = response.headers.get("content-type")?.startsWith("text/event-stream") ? "" : await response.text()
      abort.abort()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {
        /* not JSON (PDF, PNG, HTML) */
      }
      return { status: response.status, body: parsed }
    }

    beforeAll(async () => {
      const given = storage()
      dropStorage = given.drop
      env = await startEngine({ adminToken: ADMIN_TOKEN, ...(given.layer === undefined ? {} : { storage: given.layer }) })
      PDF = Buffer.from(await samplePdf({ xrefStream: true })).toString("base64")
      PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
      xSecret = env.rp.clientSecret
      const registeredY = await env.engine.run(
        registerRelyingParty({ name: "RP Y", status: "approved", signingOrigins: [env.origin], maxLoa: "LOA-4", plan: "business" }),
      )
      rpY = registeredY.rp.clientId
      const secretOf: Record<string, string> = { [env.rp.clientId]: xSecret, [rpY]: registeredY.clientSecret }
      const ids: Record<string, string> = {}
      for (const [who, email] of [
        ["u", "user@example.com"],
        ["cx", "contact.x@example.com"],
        ["cy", "contact.y@example.com"],
      ] as const) {
        passkeys[who] = SoftwarePasskey.create({ origin: env.origin })
        ids[who] = (await enrol(env.client, passkeys[who], { email, displayName: who })).userId
      }
      await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId: ids["cx"]! }))
      await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
      await env.engine.run(administerRelyingParty(rpY, { _tag: "SetContact", userId: ids["cy"]! }))
      const at = async (who: "u" | "cx" | "cy", clientId: string) => (ok(await signIn(env.client, passkeys[who], { clientId })) as TokenAnswer).access_token
      tokens.userX = await at("u", env.rp.clientId)
      tokens.userY = await at("u", rpY)
      tokens.contactX = await at("cx", env.rp.clientId)
      tokens.contactY = await at("cy", rpY)
      tokens.consoleX = await signInAtConsole(env.client, passkeys.cx)
      tokens.ccX = (await env.engine.run(issueClientToken(env.rp.clientId, xSecret, ["basic"]))).access_token
      const consoleOf = { u: await signInAtConsole(env.client, passkeys.u), cx: tokens.consoleX, cy: await signInAtConsole(env.client, passkeys.cy) }

      // The console's resources of an RP: a verification with its document image and a failed delivery.
      const consoleResources = async (rp: string, who: string) => {
        const raw = `${who}-${rp}@example.com`
        const basic = { authorization: `Basic ${Buffer.from(`${rp}:${secretOf[rp]}`).toString("base64")}` }
        await env.engine.run(configureKyc(rp, { enabled: true }))
        // the engine's normal form of the id (an e-mail address in lower case) is the one on file
        const customer = ok(
          await env.client.raw<{ customer_id: string }>("POST", "/kyc/verifications", {
            headers: basic,
            body: { customer_id: raw, phone_number: `+2547${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}` },
          }),
        ).customer_id
        ok(await env.client.raw("POST", "/kyc/customers/document", { headers: basic, body: { customer_id: customer, images: [passport("alice")] } }))
        return env.engine.run(
          Effect.gen(function* () {
            const v = Option.getOrThrow(yield* Effect.flatMap(KycVerifications, (r) => r.findByCustomer(rp, customer)))
            const [image] = yield* Effect.flatMap(KycImages, (r) => r.listFor(v.id, "document"))
            const outbox = yield* Deliveries
            const d = yield* outbox.enqueue({
              kind: "callback",
              subscriptionId: null,
              clientId: rp,
              url: "https://hooks.rp.example/failed",
              eventType: "sign.complete",
              messageId: `msg_matrix_${who}_${rp}`,
              orderingKey: `matrix-${who}`,
              payload: "{}",
              status: "pending",
              attempts: 0,
              nextAttemptAt: Number.MAX_SAFE_INTEGER,
              lastStatus: null,
              lastError: null,
              createdAt: 0,
              deliveredAt: null,
            })
            yield* outbox.recordAttempt(
              { deliveryId: d.id, attempt: 1, at: 0, statusCode: 500, error: "receiver answered 500", durationMs: 1 },
              { status: "failed", nextAttemptAt: 0, lastStatus: 500, lastError: "receiver answered 500", deliveredAt: null },
            )
            return { verification: v.id, image: image!.id, delivery: d.id }
          }),
        )
      }
      const make = async (who: "u" | "cx" | "cy", rpToken: string, rp: string): Promise<Resources> => {
        const bearer = (t: string) => ({ authorization: `Bearer ${t}` })
        const file = ok(
          await env.client.raw<{ id: string }>("POST", "/v2/files", { headers: bearer(consoleOf[who]), body: { name: `${who}.txt`, content: "c2VjcmV0" } }),
        ).id
        const pending = ok(
          await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
            headers: bearer(rpToken),
            body: { documentHash: hash(), credentialId: passkeys[who].credentialId },
          }),
        )
        ok(
          await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
            body: { assertion: passkeys[who].assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
          }),
        )
        const pdf = ok(
          await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/pdf", {
            headers: bearer(rpToken),
            body: { pdf: PDF, credentialId: passkeys[who].credentialId },
          }),
        )
        ok(
          await env.client.raw("POST", `/v2/sign/auth/${pdf.requestId}`, {
            body: { assertion: passkeys[who].assert({ challenge: pdf.challenge }, { includeUserHandle: false }) },
          }),
        )
        const [cert] = ok(await env.client.raw<Array<{ serial: string }>>("GET", "/v2/certificates", { headers: bearer(consoleOf[who]) }))
        return {
          rp,
          userId: ids[who]!,
          file,
          serial: cert!.serial,
          signRequest: pending.requestId,
          pdfRequest: pdf.requestId,
          webhook: 0,
          checkout: "",
          ...(await consoleResources(rp, who)),
        }
      }
      owners.cx = await make("cx", tokens.contactX, env.rp.clientId)
      owners.cy = await make("cy", tokens.contactY, rpY)
      owners.uX = await make("u", tokens.userX, env.rp.clientId)
      owners.uY = { ...(await make("u", tokens.userY, rpY)), file: owners.uX.file, serial: owners.uX.serial }
      for (const [owner, token] of [
        [owners.cx, tokens.contactX],
        [owners.cy, tokens.contactY],
      ] as const) {
        const hook = ok(
          await env.client.raw<{ subscriptionId: number }>("POST", "/v2/webhooks/register", {
            headers: { authorization: `Bearer ${token}` },
            body: { url: "https://hooks.rp.example/setup", events: ["sign.complete"], secret: `whsec_${randomBytes(32).toString("base64")}` },
          }),
        )
        const checkout = ok(
          await env.client.raw<{ checkoutId: string }>("POST", `/v2/relying-parties/${owner.rp}/checkout`, {
            headers: { authorization: `Bearer ${token}` },
            body: { plan: "starter", period: "monthly", method: "card", cardToken: "tok_4000000000000002" },
          }),
        )
        Object.assign(owner, { webhook: hook.subscriptionId, checkout: checkout.checkoutId })
      }
      Object.assign(owners.uX, { webhook: owners.cx.webhook, checkout: owners.cx.checkout })
      Object.assign(owners.uY, { webhook: owners.cy.webhook, checkout: owners.cy.checkout })
    }, 120_000)
    afterAll(async () => {
      await env?.stop()
      await dropStorage()
    })

    it("has exactly one row per endpoint of the endpoint table (a new endpoint without rows fails here)", () => {
      const endpoints = env.engine.endpoints.map((e) => `${e.method} ${e.path}`)
      expect(new Set(endpoints).size).toBe(endpoints.length)
      expect([...endpoints].sort()).toEqual(Object.keys(MATRIX).sort())
    })

    it("every protected endpoint × every kind of caller × own/foreign: allowed calls succeed, all others are refused with 401/403/404 and change nothing", async () => {
      const checked = Object.entries(MATRIX).filter((e): e is [string, Extract<Row, { allow: unknown }>] => "allow" in e[1])
      const failures: Array<string> = []
      const allowed: Array<[string, Extract<Row, { allow: unknown }>, Principal, Side]> = []
      // Refusals first. Per endpoint: the step-up proofs of every refused caller are taken first
      // (they write their own rows), then a snapshot of every table, the refused calls, and a
      // snapshot again: a refused call may change nothing, not even spend its proof.
      for (const [key, row] of checked) {
        const method = key.split(" ")[0]!
        const denied: Array<[Principal, Side]> = []
        for (const p of PRINCIPALS) {
          for (const side of row.noResource ? (["own"] as const) : (["own", "foreign"] as const)) {
            if (row.allow.includes(`${p}:${side}`)) allowed.push([key, row, p, side])
            else denied.push([p, side])
          }
        }
        const proofs = new Map<string, string>()
        for (const [p, side] of denied) {
          if (row.stepUp !== undefined && passkeyOf(p) !== undefined)
            proofs.set(`${p}:${side}`, await stepUp(env.client, passkeyOf(p)!, tokens[p]!, row.stepUp))
        }
        const before = await snapshot()
        for (const [p, side] of denied) {
          const answer = await call(p, method, row, ownerOf(p, side), proofs.get(`${p}:${side}`))
          const expected = [401, 403, 404].includes(answer.status) || (row.refusal?.(answer.status, answer.body) ?? false)
          if (!expected) failures.push(`${key} as ${p} (${side}): ${answer.status} ${JSON.stringify(answer.body).slice(0, 160)}`)
        }
        if ((await snapshot()) !== before) failures.push(`${key}: a refused call changed stored state`)
      }
      // Then the allowed calls, destructive ones last.
      allowed.sort((a, b) => Number(a[1].destructive ?? false) - Number(b[1].destructive ?? false))
      for (const [key, row, p, side] of allowed) {
        const answer = await call(p, key.split(" ")[0]!, row, ownerOf(p, side))
        const success = row.success?.(answer.status) ?? (answer.status >= 200 && answer.status < 300)
        if (!success) failures.push(`${key} as ${p} (${side}) should be allowed: ${answer.status} ${JSON.stringify(answer.body).slice(0, 160)}`)
      }
      expect(failures).toEqual([])
    }, 300_000)
  })

matrixOn("SQLite", () => ({ drop: async () => {} }))

// CI sets SIGNET_REQUIRE_POSTGRES: there a missing database fails findPostgres instead of skipping.
if (postgres !== undefined) {
  matrixOn("PostgreSQL", () => {
    const schema = freshSchemaName()
    return { layer: StoragePostgres({ connectionString: postgres, schema }), drop: () => dropSchema(postgres, schema) }
  })
}
