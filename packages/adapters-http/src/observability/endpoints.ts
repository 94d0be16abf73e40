/**
 * `GET /metrics`: the engine's metrics as Prometheus text, behind the administrator token (the
 * same bearer as `/admin/api/*`; a scraper sends it with `authorization: Bearer ...`). The outbox
 * depth is read from storage at each scrape; every other metric is kept as it happens.
 */
import { Deliveries, outboxDepth, outboxOldestSeconds } from "@signet/core"
import { Clock, Effect, Metric } from "effect"
import { ADMIN_TOKEN_REQUIRED, adminGuard } from "../admin/guard.ts"
import { endpoint, type Endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"
import { mergePrometheusTexts, prometheusText } from "./prometheus.ts"

/** What the other workers of a cluster answered for one scrape (docs/operations.md#workers). */
export interface OtherWorkersMetrics {
  /** each answering worker's exposition, as `localMetricsText` wrote it */
  readonly expositions: ReadonlyArray<string>
  /** workers that did not answer in time (left out of the totals) */
  readonly missing: number
}

/** This process's metrics as Prometheus text, the outbox gauges read from storage now. */
export const localMetricsText: Effect.Effect<string, never, Deliveries> = Effect.gen(function* () {
  const pending = yield* Effect.flatMap(Deliveries, (d) => d.pendingSummary())
  const now = yield* Clock.currentTimeMillis
  yield* Metric.set(outboxDepth, pending.count)
  yield* Metric.set(outboxOldestSeconds, pending.oldestCreatedAt === null ? 0 : Math.max(0, now - pending.oldestCreatedAt) / 1000)
  return prometheusText(yield* Metric.snapshot)
})

const missingWorkers = (missing: number) =>
  `# HELP signet_metrics_workers_missing Workers that did not answer this scrape in time (left out of the totals)\n# TYPE signet_metrics_workers_missing gauge\nsignet_metrics_workers_missing ${missing}\n`

/** The metrics endpoint for this engine's administrator token (undefined: every scrape is refused). */
export const metricsEndpointFor = (options: {
  readonly adminToken: string | undefined
  /** under a cluster primary: the other workers' expositions, merged into this one's */
  readonly metricsOfOtherWorkers?: (() => Promise<OtherWorkersMetrics>) | undefined
}): Endpoint<any, any> =>
  endpoint({
    method: "GET",
    path: "/metrics",
    tag: "Operations",
    auth: "admin",
    summary:
      "The engine's metrics in the Prometheus text format (requests, errors and latency per endpoint, signatures, quota refusals, outbox, KYC outcomes, event streams, database); administrator token",
    response: { mediaType: "text/plain; version=0.0.4" },
    errors: [ADMIN_TOKEN_REQUIRED],
    handle: ({ request, requestId }) =>
      Effect.gen(function* () {
        yield* adminGuard(options.adminToken)(request)
        const local = yield* localMetricsText
        const gather = options.metricsOfOtherWorkers
        const others = gather === undefined ? undefined : yield* Effect.promise(gather)
        const text = others === undefined ? local : mergePrometheusTexts([local, ...others.expositions, missingWorkers(others.missing)])
        return new Response(text, {
          status: 200,
          headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store", ...baseHeaders(requestId) },
        })
      }),
  })
