/**
 * Merging workers' expositions (docs/operations.md#workers): counters, histograms and per-process
 * gauges summed per label set; the outbox gauges, read from the shared database by every worker,
 * taken once; one exposition alone comes back as it was.
 */
import { signaturesMade, withTags } from "@signet/core"
import { Effect, Metric } from "effect"
import { describe, expect, it } from "vitest"
import { mergePrometheusTexts, prometheusText } from "./prometheus.ts"

const workerOne = `# HELP signet_http_request_duration_seconds Time from request to answer
# TYPE signet_http_request_duration_seconds histogram
signet_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 1
signet_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 2
signet_http_request_duration_seconds_count{method="GET",route="/health"} 2
signet_http_request_duration_seconds_sum{method="GET",route="/health"} 0.25
# HELP signet_outbox_pending Deliveries pending in the outbox
# TYPE signet_outbox_pending gauge
signet_outbox_pending 7
# HELP signet_signatures_total CMS signatures made
# TYPE signet_signatures_total counter
signet_signatures_total{digest="SHA-256"} 2
# HELP signet_sse_clients Event-stream clients connected
# TYPE signet_sse_clients gauge
signet_sse_clients 1
`

const workerTwo = `# HELP signet_http_request_duration_seconds Time from request to answer
# TYPE signet_http_request_duration_seconds histogram
signet_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 0
signet_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 1
signet_http_request_duration_seconds_count{method="GET",route="/health"} 1
signet_http_request_duration_seconds_sum{method="GET",route="/health"} 0.5
# HELP signet_outbox_pending Deliveries pending in the outbox
# TYPE signet_outbox_pending gauge
signet_outbox_pending 7
# HELP signet_signatures_total CMS signatures made
# TYPE signet_signatures_total counter
signet_signatures_total{digest="SHA-256"} 3
signet_signatures_total{digest="SHA-384"} 1
# HELP signet_sse_clients Event-stream clients connected
# TYPE signet_sse_clients gauge
signet_sse_clients 4
`

describe("mergePrometheusTexts", () => {
  it("sums counters, histograms and per-process gauges per label set; takes the shared outbox gauge once", () => {
    expect(mergePrometheusTexts([workerOne, workerTwo])).toBe(`# HELP signet_http_request_duration_seconds Time from request to answer
# TYPE signet_http_request_duration_seconds histogram
signet_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 3
signet_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 1
signet_http_request_duration_seconds_count{method="GET",route="/health"} 3
signet_http_request_duration_seconds_sum{method="GET",route="/health"} 0.75
# HELP signet_outbox_pending Deliveries pending in the outbox
# TYPE signet_outbox_pending gauge
signet_outbox_pending 7
# HELP signet_signatures_total CMS signatures made
# TYPE signet_signatures_total counter
signet_signatures_total{digest="SHA-256"} 5
signet_signatures_total{digest="SHA-384"} 1
# HELP signet_sse_clients Event-stream clients connected
# TYPE signet_sse_clients gauge
signet_sse_clients 5
`)
  })

  it("gives one real exposition back sample for sample", () => {
    const text = Effect.runSync(
      Metric.incrementBy(withTags(signaturesMade, { digest: "SHA-256" }), 2).pipe(Effect.zipRight(Metric.snapshot), Effect.map(prometheusText)),
    )
    const samples = (t: string) => t.split("\n").sort()
    expect(samples(mergePrometheusTexts([text]))).toEqual(samples(text))
  })
})
