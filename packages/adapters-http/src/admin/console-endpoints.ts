/**
 * The back-office console's API (`/admin/api/*`, administrator token): the KYC review queue and
 * decisions, an RP's webhooks with their delivery log and retry, its KYC switch, per-day usage
 * with server-drawn charts, certificate search and revocation, and the audit log (JSON or CSV).
 * Every change goes through the core command the API uses and leaves an audit line.
 */
import {
  auditEvent,
  AuditLog,
  Certificates,
  configureKyc,
  decideReview,
  EngineConfig,
  Deliveries,
  eraseVerification,
  getRelyingParty,
  InvalidRequest,
  KycStatus,
  KycVerifications,
  kycSettingsOf,
  ResourceNotFound,
  retryFailedDelivery,
  reviewFile,
  reviewImage,
  reviewQueue,
  revokeCertificate,
  usageHistory,
  WebhookSubscriptions,
  type StoredCertificate,
} from "@signet/core"
import { Effect, Schema } from "effect"
import { endpoint, type Endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"
import { barChart } from "./charts.ts"
import {
  AuditLogResponse,
  CertificateSearchResponse,
  DecisionRequest,
  DecisionResponse,
  EraseRequest,
  KycQueueResponse,
  KycReviewFileResponse,
  KycSwitchRequest,
  KycSwitchResponse,
  RetryResponse,
  RevokeRequest,
  UsageHistoryResponse,
  WebhooksResponse,
} from "./console-contract.ts"
import { type KycEndpointOptions, withKycFor } from "../kyc/endpoints.ts"
import { ADMIN_TOKEN_REQUIRED, adminGuard } from "./guard.ts"

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" }

const certificateView = (c: StoredCertificate) => ({
  serial: c.serial,
  kind: c.kind,
  userId: c.userId,
  subject: c.subject,
  status: c.status,
  notBefore: iso(c.notBefore)!,
  notAfter: iso(c.notAfter)!,
  revokedAt: iso(c.revokedAt),
  revocationReason: c.revocationReason,
})

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v)
  // a leading =, +, - or @ would be a formula in a spreadsheet: quote it as text
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** The console's API for this engine's administrator token (undefined: refuse all). */
export const consoleEndpointsFor = (options: {
  readonly adminToken: string | undefined
  readonly kyc: KycEndpointOptions
}): ReadonlyArray<Endpoint<any, any>> => {
  const requireAdmin = adminGuard(options.adminToken)
  // the KYC commands run with the engine's KYC settings and image vault, exactly as the KYC API's do
  const withKyc = withKycFor(options.kyc)

  const session = endpoint({
    method: "GET",
    path: "/admin/api/session",
    tag: "Administration",
    auth: "admin",
    summary: "Whether the administrator token is accepted, and this engine's environment (the console's sign-in check)",
    response: Schema.Struct({ administrator: Schema.Literal(true), environment: Schema.String }),
    errors: [ADMIN_TOKEN_REQUIRED],
    handle: ({ request }) =>
      Effect.zipRight(
        requireAdmin(request),
        Effect.map(EngineConfig, (s) => ({ administrator: true as const, environment: s.environment })),
      ),
  })

  const queue = endpoint({
    method: "GET",
    path: "/admin/api/kyc/verifications",
    tag: "Administration",
    auth: "admin",
    summary: "The KYC review queue: verifications newest first; `?status=` (default needs_review, `all` for every status), `?clientId=`",
    response: KycQueueResponse,
    errors: [ADMIN_TOKEN_REQUIRED, { status: 400, description: "an unknown status" }],
    handle: ({ request, query }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const status = query.get("status") ?? "needs_review"
        if (status !== "all" && !Schema.is(KycStatus)(status))
          return yield* new InvalidRequest({ detail: `status must be all or one of ${KycStatus.literals.join(", ")}` })
        const clientId = query.get("clientId") || undefined
        return yield* withKyc(reviewQueue({ clientId, status: status === "all" ? undefined : status }))
      }),
  })

  const file = endpoint({
    method: "GET",
    path: "/admin/api/kyc/verifications/{id}",
    tag: "Administration",
    auth: "admin",
    summary: "One verification for review: scores against the thresholds, the extracted fields beside the customer's record, its images and history",
    response: KycReviewFileResponse,
    errors: [ADMIN_TOKEN_REQUIRED, { status: 404, description: "`KYC verification not found`" }],
    handle: ({ request, params }) => Effect.zipRight(requireAdmin(request), withKyc(reviewFile(params["id"]!))),
  })

  const image = endpoint({
    method: "GET",
    path: "/admin/api/kyc/verifications/{id}/images/{imageId}",
    tag: "Administration",
    auth: "admin",
    summary: "One of the verification's images, decrypted for the reviewer; `Cache-Control: no-store`",
    response: { mediaType: "image/jpeg" },
    errors: [ADMIN_TOKEN_REQUIRED, { status: 404, description: "`KYC verification not found`" }],
    handle: ({ request, params, requestId }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const { contentType, bytes } = yield* withKyc(reviewImage(params["id"]!, params["imageId"]!))
        yield* auditEvent("administrator", "admin.kyc-image-viewed", params["id"]!, { imageId: params["imageId"]! })
        return new Response(new Uint8Array(bytes), {
          status: 200,
          headers: { "content-type": contentType, "x-content-type-options": "nosniff", ...NO_STORE, ...baseHeaders(requestId) },
        })
      }),
  })

  const decide = endpoint({
    method: "POST",
    path: "/admin/api/kyc/verifications/{id}/decision",
    tag: "Administration",
    auth: "admin",
    summary: "Approve or reject a needs_review verification with a reason: the API's review command (same move, events and `kyc.reviewed` webhooks), audited",
    body: DecisionRequest,
    response: DecisionResponse,
    errors: [
      ADMIN_TOKEN_REQUIRED,
      { status: 400, description: "a reason and the reviewer's name are required" },
      { status: 404, description: "`KYC verification not found`" },
      { status: 409, description: "`Only a verification in needs_review can be reviewed; this one is <status>`" },
    ],
    handle: ({ request, params, body }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        if (body.reason.trim() === "" || body.reviewer.trim() === "") return yield* new InvalidRequest({ detail: "reason and reviewer are required" })
        const { verification, verdict } = yield* withKyc(decideReview(params["id"]!, body.decision))
        yield* auditEvent("administrator", "admin.kyc-reviewed", verification.id, {
          clientId: verification.clientId,
          decision: body.decision,
          reason: body.reason.trim(),
          reviewer: body.reviewer.trim(),
          status: verdict.status,
        })
        return { id: verification.id, clientId: verification.clientId, customerId: verification.customerId, status: verdict.status, reasons: verdict.reasons }
      }),
  })

  const erase = endpoint({
    method: "POST",
    path: "/admin/api/kyc/verifications/{id}/erase",
    tag: "Administration",
    auth: "admin",
    summary: "Erase a customer's verification, captures and images (the API's erase command), audited with the reason",
    body: EraseRequest,
    response: Schema.Struct({ id: Schema.String, erased: Schema.Boolean }),
    errors: [
      ADMIN_TOKEN_REQUIRED,
      { status: 400, description: "a reason and the reviewer's name are required" },
      { status: 404, description: "`KYC verification not found`" },
    ],
    handle: ({ request, params, body }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        if (body.reason.trim() === "" || body.reviewer.trim() === "") return yield* new InvalidRequest({ detail: "reason and reviewer are required" })
        const v = yield* withKyc(eraseVerification(params["id"]!))
        yield* auditEvent("administrator", "admin.kyc-erased", v.id, { clientId: v.clientId, reason: body.reason.trim(), reviewer: body.reviewer.trim() })
        return { id: v.id, erased: true }
      }),
  })

  const webhooks = endpoint({
    method: "GET",
    path: "/admin/api/relying-parties/{clientId}/webhooks",
    tag: "Administration",
    auth: "admin",
    summary: "An RP's webhook subscriptions and its newest 100 deliveries with every attempt",
    response: WebhooksResponse,
    errors: [ADMIN_TOKEN_REQUIRED, { status: 404, description: "`RP <clientId> not found`" }],
    handle: ({ request, params }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const rp = yield* getRelyingParty(params["clientId"]!)
        const subscriptions = yield* Effect.flatMap(WebhookSubscriptions, (s) => s.listActive(rp.clientId))
        const outbox = yield* Deliveries
        const deliveries = yield* Effect.forEach(yield* outbox.listForClient(rp.clientId, null, 100), (d) =>
          Effect.map(outbox.attemptsOf(d.id), (attempts) => ({
            id: d.id,
            kind: d.kind,
            subscriptionId: d.subscriptionId,
            url: d.url,
            eventType: d.eventType,
            status: d.status,
            attempts: d.attempts,
            lastStatus: d.lastStatus,
            lastError: d.lastError,
            createdAt: iso(d.createdAt)!,
            deliveredAt: iso(d.deliveredAt),
            history: attempts.map((a) => ({ attempt: a.attempt, at: iso(a.at)!, statusCode: a.statusCode, error: a.error, durationMs: a.durationMs })),
          })),
        )
        return {
          subscriptions: subscriptions.map((s) => ({ id: s.id, url: s.url, events: s.events, active: s.active, createdAt: iso(s.createdAt)! })),
          deliveries,
        }
      }),
  })

  const retry = endpoint({
    method: "POST",
    path: "/admin/api/relying-parties/{clientId}/deliveries/{deliveryId}/retry",
    tag: "Administration",
    auth: "admin",
    summary: "Put a failed delivery back in the outbox for one more attempt now",
    response: RetryResponse,
    errors: [
      ADMIN_TOKEN_REQUIRED,
      { status: 400, description: "`Only a failed delivery can be retried; this one is <status>`" },
      { status: 404, description: "`Delivery not found` (or not this RP's)" },
    ],
    handle: ({ request, params }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const rp = yield* getRelyingParty(params["clientId"]!)
        const id = Number(params["deliveryId"])
        if (!Number.isInteger(id)) return yield* new ResourceNotFound({ what: "Delivery" })
        const retried = yield* retryFailedDelivery(rp.clientId, id)
        yield* auditEvent("administrator", "admin.delivery-retried", rp.clientId, { deliveryId: id })
        return retried
      }),
  })

  const kycGet = endpoint({
    method: "GET",
    path: "/admin/api/relying-parties/{clientId}/kyc",
    tag: "Administration",
    auth: "admin",
    summary: "An RP's KYC switch and identity scope",
    response: KycSwitchResponse,
    errors: [ADMIN_TOKEN_REQUIRED, { status: 404, description: "`RP <clientId> not found`" }],
    handle: ({ request, params }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const rp = yield* getRelyingParty(params["clientId"]!)
        const s = yield* kycSettingsOf(rp.clientId)
        return { clientId: rp.clientId, enabled: s.enabled, identityScope: s.identityScope }
      }),
  })

  const kycSet = endpoint({
    method: "POST",
    path: "/admin/api/relying-parties/{clientId}/kyc",
    tag: "Administration",
    auth: "admin",
    summary: "Turn KYC on or off for an RP and set its identity scope (`rp` or `shared`)",
    body: KycSwitchRequest,
    response: KycSwitchResponse,
    errors: [ADMIN_TOKEN_REQUIRED, { status: 404, description: "`RP <clientId> not found`" }],
    handle: ({ request, params, body }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const rp = yield* getRelyingParty(params["clientId"]!)
        const s = yield* configureKyc(
          rp.clientId,
          body.identityScope === undefined ? { enabled: body.enabled } : { enabled: body.enabled, identityScope: body.identityScope },
        )
        yield* auditEvent("administrator", "admin.kyc-configured", rp.clientId, { enabled: s.enabled, identityScope: s.identityScope })
        return { clientId: rp.clientId, enabled: s.enabled, identityScope: s.identityScope }
      }),
  })

  const usage = endpoint({
    method: "GET",
    path: "/admin/api/relying-parties/{clientId}/usage",
    tag: "Administration",
    auth: "admin",
    summary: "An RP's usage per UTC day (`?days=`, default 30): signatures and quota refusals, KYC outcomes by status and reason, with SVG charts",
    response: UsageHistoryResponse,
    errors: [ADMIN_TOKEN_REQUIRED, { status: 404, description: "`RP <clientId> not found`" }],
    handle: ({ request, params, query }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const rp = yield* getRelyingParty(params["clientId"]!)
        const days = yield* usageHistory(rp.clientId, Number(query.get("days") ?? 30) || 30)
        const verifications = yield* Effect.flatMap(KycVerifications, (r) => r.list({ clientId: rp.clientId, limit: 10_000 }))
        const byStatus: Record<string, number> = {}
        const byReason: Record<string, number> = {}
        for (const v of verifications) {
          byStatus[v.status] = (byStatus[v.status] ?? 0) + 1
          for (const r of v.reasons) byReason[r] = (byReason[r] ?? 0) + 1
        }
        const short = (day: string) => day.slice(5)
        return {
          clientId: rp.clientId,
          days,
          kyc: { byStatus, byReason },
          charts: {
            signatures: barChart(
              "Signatures per day",
              days.map((d) => ({ label: short(d.day), value: d.signatures })),
            ),
            quotaRefusals: barChart(
              "Quota refusals per day",
              days.map((d) => ({ label: short(d.day), value: d.quotaRefusals })),
              "#b42318",
            ),
            kycByStatus: barChart(
              "KYC verifications by status",
              Object.entries(byStatus).map(([label, value]) => ({ label, value })),
              "#116329",
            ),
          },
        }
      }),
  })

  const certificates = endpoint({
    method: "GET",
    path: "/admin/api/certificates",
    tag: "Administration",
    auth: "admin",
    summary: "Certificates by `?serial=` (hex) or `?holder=` (the signer's user id)",
    response: CertificateSearchResponse,
    errors: [ADMIN_TOKEN_REQUIRED, { status: 400, description: "neither serial nor holder given" }],
    handle: ({ request, query }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const repo = yield* Certificates
        const serial = (query.get("serial") ?? "").trim().toLowerCase().replace(/[:\s]/g, "")
        const holder = (query.get("holder") ?? "").trim()
        if (serial !== "") return (yield* repo.findBySerial(serial)).pipe((o) => (o._tag === "Some" ? [certificateView(o.value)] : []))
        if (holder !== "") return (yield* repo.listByUser(holder)).map(certificateView)
        return yield* new InvalidRequest({ detail: "give serial or holder" })
      }),
  })

  const revoke = endpoint({
    method: "POST",
    path: "/admin/api/certificates/{serial}/revoke",
    tag: "Administration",
    auth: "admin",
    summary: "Revoke a signer certificate with a reason (as administrator; the revocation's audit line says so)",
    body: RevokeRequest,
    response: CertificateSearchResponse,
    errors: [ADMIN_TOKEN_REQUIRED, { status: 400, description: "a reason is required" }, { status: 404, description: "`Certificate not found`" }],
    handle: ({ request, params, body }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        if (body.reason.trim() === "") return yield* new InvalidRequest({ detail: "reason is required" })
        yield* revokeCertificate(null, params["serial"]!, body.reason.trim())
        const found = yield* Effect.flatMap(Certificates, (r) => r.findBySerial(params["serial"]!))
        return found._tag === "Some" ? [certificateView(found.value)] : []
      }),
  })

  const audit = endpoint({
    method: "GET",
    path: "/admin/api/audit",
    tag: "Administration",
    auth: "admin",
    summary: "The audit log, newest first (the latest 5,000 searched): `?actor=`, `?action=`, `?subject=`, `?from=`/`?to=` (ISO), `?format=csv`",
    response: AuditLogResponse,
    errors: [ADMIN_TOKEN_REQUIRED],
    handle: ({ request, query, requestId }) =>
      Effect.gen(function* () {
        yield* requireAdmin(request)
        const actor = query.get("actor") ?? ""
        const action = query.get("action") ?? ""
        const subject = query.get("subject") ?? ""
        const from = query.get("from") ? Date.parse(query.get("from")!) : Number.NEGATIVE_INFINITY
        const to = query.get("to") ? Date.parse(query.get("to")!) : Number.POSITIVE_INFINITY
        const rows = (yield* Effect.flatMap(AuditLog, (log) => log.recent(5000)))
          .filter(
            (e) =>
              (actor === "" || e.actorUserId === actor || e.actorClientId === actor) &&
              (action === "" || e.action.includes(action)) &&
              (subject === "" || e.subject === subject || Object.values(e.detail).includes(subject)) &&
              e.at >= from &&
              e.at <= to,
          )
          .slice(0, 1000)
          .map((e) => ({
            id: e.id,
            at: iso(e.at)!,
            action: e.action,
            subject: e.subject,
            actorUserId: e.actorUserId,
            actorClientId: e.actorClientId,
            detail: e.detail,
          }))
        if (query.get("format") !== "csv") return rows
        const header = ["at", "action", "subject", "actorUserId", "actorClientId", "detail"]
        const csv = [header.join(","), ...rows.map((r) => [r.at, r.action, r.subject, r.actorUserId, r.actorClientId, r.detail].map(csvCell).join(","))].join(
          "\r\n",
        )
        return new Response(`${csv}\r\n`, {
          status: 200,
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": 'attachment; filename="signet-audit.csv"',
            ...NO_STORE,
            ...baseHeaders(requestId),
          },
        })
      }),
  })

  return [session, queue, file, image, decide, erase, webhooks, retry, kycGet, kycSet, usage, certificates, revoke, audit]
}
