/**
 * The engine's metrics, as Effect metrics: each adapter updates the ones of its part (the HTTP
 * handler the requests, storage the transactions, the delivery worker the outbox); the HTTP
 * adapter renders them as Prometheus text at `/metrics` and an OpenTelemetry layer exports them
 * over OTLP (docs/operations.md#metrics-and-traces). Tags are added where they are updated.
 */
import { Array as Arr, Metric, MetricBoundaries, MetricLabel } from "effect"

// Seconds, from 1 ms to about 30 s (a request's deadline), doubling.
const SECONDS = MetricBoundaries.exponential({ start: 0.001, factor: 2, count: 16 })

/** Requests answered, tagged `method`, `route` (the endpoint's path template) and `status`. */
export const httpRequests = Metric.counter("signet_http_requests_total", { description: "HTTP requests answered", incremental: true })
/** Requests answered with an error, tagged `route` and `error` (the catalogued error, `internal` for a 500). */
export const httpErrors = Metric.counter("signet_http_errors_total", { description: "HTTP requests answered with an error", incremental: true })
/** Time to answer, tagged `method` and `route`. */
export const httpRequestSeconds = Metric.histogram("signet_http_request_duration_seconds", SECONDS, "Time from request to answer")
/** CMS signatures made by the engine's keys, tagged `digest`. */
export const signaturesMade = Metric.counter("signet_signatures_total", { description: "CMS signatures made", incremental: true })
/** Requests refused by a quota, tagged `kind` (daily, rate, batch). */
export const quotaRefusals = Metric.counter("signet_quota_refusals_total", { description: "Requests refused by a quota", incremental: true })
/** Webhook and callback delivery attempts, tagged `outcome` (delivered, retry, failed). */
export const deliveryAttempts = Metric.counter("signet_webhook_delivery_attempts_total", { description: "Delivery attempts", incremental: true })
/** From enqueue to successful delivery, in seconds. */
export const deliveryLagSeconds = Metric.histogram(
  "signet_webhook_delivery_lag_seconds",
  MetricBoundaries.exponential({ start: 0.01, factor: 2, count: 20 }),
  "From a delivery's enqueue to its success",
)
/** Deliveries waiting in the outbox (read when scraped). */
export const outboxDepth = Metric.gauge("signet_outbox_pending", { description: "Deliveries pending in the outbox" })
/** Age of the oldest pending delivery, seconds (read when scraped). */
export const outboxOldestSeconds = Metric.gauge("signet_outbox_oldest_pending_seconds", { description: "Age of the oldest pending delivery" })
/** KYC verification outcomes, tagged `status` and `reason`. */
export const kycOutcomes = Metric.counter("signet_kyc_outcomes_total", { description: "KYC verification outcomes", incremental: true })
/** Event-stream (SSE) clients connected to this node. */
export const sseClients = Metric.gauge("signet_sse_clients", { description: "Event-stream clients connected" })
/** Storage transactions, tagged `outcome` (commit, rollback). */
export const dbTransactionSeconds = Metric.histogram("signet_db_transaction_duration_seconds", SECONDS, "Storage transaction time")
/** Durable COMMITs, tagged `dialect`: on SQLite one per commit group, so transactions ÷ commits is the group size. */
export const dbCommits = Metric.counter("signet_db_commits_total", { description: "Database COMMITs (SQLite: one per commit group)", incremental: true })
/** Connections of the database pool, tagged `state` (total, idle, waiting); PostgreSQL only. */
export const dbPoolConnections = Metric.gauge("signet_db_pool_connections", { description: "Database pool connections" })

/** `metric` with these tags (data-first, so a counter stays a counter to `Metric.increment`). */
export const withTags = <Type, In, Out>(metric: Metric.Metric<Type, In, Out>, tags: Readonly<Record<string, string>>): Metric.Metric<Type, In, Out> => {
  const labels = Object.entries(tags).map(([key, value]) => MetricLabel.make(key, value))
  // Effect's `taggedWithLabels` unions the labels on every update: a new array each time, so the
  // registry's hook cache (by array) never hits and each update builds and hashes a new key. The
  // union is kept per fiber label set instead (almost always the one empty set).
  const merged = new WeakMap<ReadonlyArray<MetricLabel.MetricLabel>, ReadonlyArray<MetricLabel.MetricLabel>>()
  const all = (extra: ReadonlyArray<MetricLabel.MetricLabel>): ReadonlyArray<MetricLabel.MetricLabel> => {
    if (extra.length === 0) return labels
    let union = merged.get(extra)
    if (union === undefined) {
      union = Arr.union(labels, extra)
      merged.set(extra, union)
    }
    return union
  }
  return Metric.make(
    metric.keyType,
    (input, extra) => metric.unsafeUpdate(input, all(extra)),
    (extra) => metric.unsafeValue(all(extra)),
    (input, extra) => metric.unsafeModify(input, all(extra)),
  )
}
