/** Health and the OpenAPI document. */
import { EngineConfig, INTERFACE_VERSION, issuerOf, type KeyStore, probeSigningKey, type SigningKeys } from "@signet/core"
import { Deferred, Effect, Schema } from "effect"
import { Lifecycle } from "../lifecycle.ts"
import { reply } from "../http/respond.ts"
import { endpoint, type Endpoint } from "../http/endpoint.ts"
import { openApiDocument } from "../http/openapi.ts"

/** `GET /health`: the process answers and its storage is reachable. */
export const health = <R>(probe: Effect.Effect<void, never, R>) =>
  endpoint<undefined, R | EngineConfig>({
    method: "GET",
    path: "/health",
    tag: "System",
    auth: "none",
    summary: "Liveness and storage reachability",
    response: Schema.Struct({ status: Schema.Literal("ok"), environment: Schema.String, version: Schema.String }),
    handle: () =>
      Effect.gen(function* () {
        yield* probe
        const settings = yield* EngineConfig
        return { status: "ok" as const, environment: settings.environment, version: INTERFACE_VERSION }
      }),
  })

/** `GET /health/live`: the process answers (no I/O: a liveness probe must not fail because a dependency is down). */
export const liveness = endpoint({
  method: "GET",
  path: "/health/live",
  tag: "System",
  auth: "none",
  summary: "Liveness: the process answers",
  response: Schema.Struct({ status: Schema.Literal("live") }),
  handle: () => Effect.succeed({ status: "live" as const }),
})

const ReadinessChecks = Schema.Struct({
  storage: Schema.Literal("ok", "failed"),
  keys: Schema.Literal("ok", "none yet", "failed"),
  worker: Schema.Literal("running", "off", "stopped"),
  draining: Schema.Boolean,
})

/** The answer of `/health/ready`, 200 when ready and 503 when not. */
export const Readiness = Schema.Struct({ status: Schema.Literal("ready", "not_ready"), checks: ReadinessChecks })

/**
 * `GET /health/ready`: whether this node should get traffic: storage reachable (migrations run
 * before the engine starts), the master key opens the stored keys (the current token-signing
 * key signs a probe), the delivery worker running, and not draining (503 from SIGTERM on).
 */
export const readiness = <R>(probe: Effect.Effect<void, never, R>, workerEnabled: boolean) =>
  endpoint<undefined, R | KeyStore | Lifecycle | EngineConfig | SigningKeys>({
    method: "GET",
    path: "/health/ready",
    tag: "System",
    auth: "none",
    summary: "Readiness: storage, keys, delivery worker, not draining (503 when not ready)",
    response: Readiness,
    responses: { 503: Readiness },
    handle: () =>
      Effect.gen(function* () {
        const lifecycle = yield* Lifecycle
        const storage = yield* probe.pipe(
          Effect.as("ok" as const),
          Effect.catchAllCause(() => Effect.succeed("failed" as const)),
        )
        const keys = yield* probeSigningKey.pipe(Effect.catchAllCause(() => Effect.succeed("failed" as const)))
        const stopped = yield* Deferred.isDone(lifecycle.workerStopped)
        const worker = !workerEnabled ? ("off" as const) : stopped ? ("stopped" as const) : ("running" as const)
        const draining = yield* Deferred.isDone(lifecycle.stopping)
        const ready = storage === "ok" && keys !== "failed" && worker !== "stopped" && !draining
        const body = { status: ready ? ("ready" as const) : ("not_ready" as const), checks: { storage, keys, worker, draining } }
        return ready ? body : reply(503, body)
      }),
  })

/** `GET /openapi.json`, built from the given endpoint table (itself included). */
export const openApi = (all: () => ReadonlyArray<Endpoint<any, any>>) =>
  endpoint({
    method: "GET",
    path: "/openapi.json",
    tag: "System",
    auth: "none",
    summary: "This document (OpenAPI 3.1)",
    response: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ identifier: "OpenApiDocument" }),
    handle: () => Effect.map(EngineConfig, (s) => openApiDocument(all(), issuerOf(s), s.environment)),
  })
