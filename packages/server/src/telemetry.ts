/**
 * Traces and metrics over OTLP/HTTP (JSON) with `@effect/opentelemetry`, when `SIGNET_OTEL_ENDPOINT`
 * is set: spans to `<endpoint>/v1/traces` in batches, metrics to `<endpoint>/v1/metrics` every
 * `metricIntervalMs`. Unset, the server builds none of it and nothing leaves the process.
 */
import { NodeSdk } from "@effect/opentelemetry"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { INTERFACE_VERSION } from "@signet/core"
import { Layer } from "effect"

/** How the OTLP export runs. */
export interface OtlpTelemetryOptions {
  /** the collector's base URL, e.g. `http://otel-collector:4318` (the OTLP/HTTP port) */
  readonly endpoint: string
  /** `service.name` of the resource (default `signet`) */
  readonly serviceName?: string
  /** how often metrics are pushed, ms (default 15 000) */
  readonly metricIntervalMs?: number
}

/** The layer that sends every span and metric of the engine to an OTLP/HTTP collector; flushed when the engine is disposed. */
export const otlpTelemetry = (options: OtlpTelemetryOptions): Layer.Layer<never> => {
  const base = options.endpoint.replace(/\/+$/, "")
  return NodeSdk.layer(() => ({
    resource: { serviceName: options.serviceName ?? "signet", serviceVersion: INTERFACE_VERSION },
    spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces` }), { scheduledDelayMillis: 1000 }),
    metricReader: new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
      exportIntervalMillis: options.metricIntervalMs ?? 15_000,
    }),
  })).pipe(Layer.discard)
}
