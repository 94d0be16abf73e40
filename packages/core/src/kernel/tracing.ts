/**
 * Spans only when something exports them. `Effect.withSpan` copies and compares the fiber's context
 * on every call, a cost comparable to the DER around a signature; a host that sets no tracer
 * exporter turns tracing off (`Layer.setTracerEnabled(false)`) and then pays one FiberRef read.
 */
import { Effect, FiberRef } from "effect"

/** What a span carries: its attributes, and `kind` for the request spans. */
export interface SpanOptions {
  readonly attributes?: Record<string, unknown>
  readonly kind?: "server" | "client" | "internal" | "producer" | "consumer"
}

/** `effect` inside a span named `name` while tracing is enabled; `effect` itself otherwise. */
export const traced =
  (name: string, options: SpanOptions = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    // One runtime step to read the flag (`FiberRef.get` and `flatMap` take three).
    Effect.withFiberRuntime((fiber) =>
      // No stack trace: capturing one per span costs more than most of what is traced.
      fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Effect.withSpan(effect, name, { ...options, captureStackTrace: false }) : effect,
    )
