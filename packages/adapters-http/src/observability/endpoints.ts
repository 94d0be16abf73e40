/**
 * `GET /metrics`: the engine's metrics as Prometheus text, behind the administrator token (the
 * same bearer as `/admin/api/*`; a scraper sends it with `authorization: Bearer ...`). The outbox
 * depth is read from storage at each scrape; every other metric is kept as it happens.
 */
import { AdminTokenRequired, Deliveries, hashSecret, outboxDepth, outboxOldestSeconds, secretMatches } from "@signet/core"
import { Clock, Effect, Metric } from "effect"
import { endpoint, type Endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"
import { prometheusText } from "./prometheus.ts"

/** The metrics endpoint for this engine's administrator token (undefined: every scrape is refused). */
export const metricsEndpointFor = (options: { readonly adminToken: string | undefined }): Endpoint<any, any> =>
  endpoint({
    method: "GET",
    path: "/metrics",
    tag: "Operations",
    auth: "admin",
    summary:
      "The engine's metrics in the Prometheus text format (requests, errors and latency per endpoint, signatures, quota refusals, outbox, KYC outcomes, event streams, database); administrator token",
    response: { mediaType: "text/plain; version=0.0.4" },
    errors: [{ status: 401, description: "`Administrator token required`" }],
    handle: ({ request, requestId }) =>
      Effect.gen(function* () {
        const m = /^Bearer\s+(\S+)$/i.exec((request.headers.get("authorization") ?? "").trim())
        if (options.adminToken === undefined || m === null) return yield* new AdminTokenRequired()
        if (!(yield* secretMatches(m[1]!, yield* hashSecret(options.adminToken)))) return yield* new AdminTokenRequired()
        const pending = yield* Effect.flatMap(Deliveries, (d) => d.pendingSummary())
        const now = yield* Clock.currentTimeMillis
        yield* Metric.set(outboxDepth, pending.count)
        yield* Metric.set(outboxOldestSeconds, pending.oldestCreatedAt === null ? 0 : Math.max(0, now - pending.oldestCreatedAt) / 1000)
        const text = prometheusText(yield* Metric.snapshot)
        return new Response(text, {
          status: 200,
          headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store", ...baseHeaders(requestId) },
        })
      }),
  })
