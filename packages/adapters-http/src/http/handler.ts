/**
 * The web-standard handler `(Request) => Promise<Response>`: routing, CSRF, authentication,
 * body reading and validation, the processing deadline, error mapping and request logs.
 * Any host mounts it: Node `http`, Express, Fastify, Hono, Bun, Deno or a worker.
 */
import {
  authenticateBearer, checkCsrf, CsrfValidationFailed, MethodNotAllowed, ProcessingDeadlineExceeded, ResourceNotFound,
  type BearerUser, type CataloguedError, type EngineConfig, type HostedSessions, type KeyStore, type SigningKeys, type TokenRevocations,
} from "@signet/core"
import { Cause, Duration, Effect, Exit, Option, type ManagedRuntime } from "effect"
import { DEFAULT_MAX_BODY_BYTES, readJson } from "./body.ts"
import type { Endpoint } from "./endpoint.ts"
import { errorResponse, internalError, isCatalogued, json, baseHeaders } from "./respond.ts"
import { compileRoutes, matchRoute } from "./router.ts"
import { decodeBody } from "./validation.ts"

/** Name of the hosted-page session cookie. */
export const SESSION_COOKIE = "signet_session"
/** Header a hosted page echoes its CSRF token in. */
export const CSRF_HEADER = "x-csrf-token"

/** What the handler itself needs besides the endpoints' own services. */
export type HandlerServices = KeyStore | EngineConfig | HostedSessions | SigningKeys | TokenRevocations

/** How the handler is built. */
export interface HandlerOptions<R> {
  readonly endpoints: ReadonlyArray<Endpoint<any, R>>
  readonly runtime: ManagedRuntime.ManagedRuntime<R | HandlerServices, never>
  /** path the handler is mounted under (`/api`); requests outside it are 404 */
  readonly basePath: string
  /** processing deadline per request; past it the answer is 408 */
  readonly deadlineMs: number
  /** request id generator (the host may pass one in `x-request-id`) */
  readonly newRequestId: () => string
  /** client address, when the host knows it */
  readonly clientIp?: (request: Request) => string
}

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** Reads one cookie from the Cookie header. */
export const cookieValue = (request: Request, name: string): string | undefined => {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=")
    if (k === name) return v.join("=")
  }
  return undefined
}

/** Builds the handler. */
export const makeHandler = <R>(options: HandlerOptions<R>): ((request: Request) => Promise<Response>) => {
  const routes = compileRoutes(options.endpoints)
  const base = options.basePath.replace(/\/+$/, "")

  const run = (request: Request, requestId: string): Effect.Effect<Response, CataloguedError, R | HandlerServices> => Effect.gen(function* () {
    const url = new URL(request.url)
    if (base !== "" && url.pathname !== base && !url.pathname.startsWith(`${base}/`)) {
      return yield* new ResourceNotFound({ what: "Route" })
    }
    const path = url.pathname.slice(base.length) || "/"
    const found = matchRoute(routes, request.method, path)
    if (found._tag === "NotFound") return yield* new ResourceNotFound({ what: "Route" })
    if (found._tag === "MethodNotAllowed") return yield* new MethodNotAllowed({ method: request.method })
    const { endpoint } = found.route

    const authorization = Option.fromNullable(request.headers.get("authorization"))
    // A cookie-carrying state change from a hosted page must prove it came from our page.
    const session = cookieValue(request, SESSION_COOKIE)
    if (STATE_CHANGING.has(request.method) && session !== undefined && Option.isNone(authorization)) {
      yield* checkCsrf(session, request.headers.get(CSRF_HEADER) ?? undefined).pipe(
        Effect.catchAllDefect(() => Effect.fail(new CsrfValidationFailed())))
    }

    let user: BearerUser | undefined
    if (endpoint.auth === "bearer" || (endpoint.auth === "bearer-optional" && Option.isSome(authorization))) {
      user = yield* authenticateBearer(authorization, endpoint.scope ?? "basic")
    }

    const body = endpoint.body === undefined
      ? undefined
      : yield* readJson(request, endpoint.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES).pipe(
        Effect.flatMap((raw) => decodeBody(endpoint.body!, raw)))

    const result = yield* endpoint.handle({
      body, params: found.params, query: url.searchParams, request, requestId, user,
      clientIp: options.clientIp?.(request) ?? "unknown",
    })
    return result instanceof Response ? result : json(200, result, requestId)
  })

  return async (request) => {
    const started = performance.now()
    const requestId = request.headers.get("x-request-id")?.slice(0, 100) || options.newRequestId()
    const program = run(request, requestId).pipe(
      Effect.timeoutFail({ duration: Duration.millis(options.deadlineMs), onTimeout: () => new ProcessingDeadlineExceeded() }))
    const exit = await options.runtime.runPromiseExit(program)
    let response: Response
    if (Exit.isSuccess(exit)) {
      response = exit.value
      for (const [k, v] of Object.entries(baseHeaders(requestId))) if (!response.headers.has(k)) response.headers.set(k, v)
    } else {
      const failure = Cause.failureOption(exit.cause)
      if (Option.isSome(failure) && isCatalogued(failure.value)) {
        response = errorResponse(failure.value, requestId)
      } else {
        response = internalError(requestId)
        await options.runtime.runPromise(Effect.logError("request failed", Cause.pretty(exit.cause)).pipe(
          Effect.annotateLogs({ requestId })))
      }
    }
    const url = new URL(request.url)
    await options.runtime.runPromise(Effect.logInfo("request").pipe(Effect.annotateLogs({
      requestId, method: request.method, path: url.pathname, status: response.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    })))
    return response
  }
}
