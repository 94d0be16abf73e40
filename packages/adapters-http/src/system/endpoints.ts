/** Health and the OpenAPI document. */
import { EngineConfig, INTERFACE_VERSION, issuerOf } from "@signet/core"
import { Effect, Schema } from "effect"
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
