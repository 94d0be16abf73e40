/**
 * The web-standard handler `(Request) => Promise<Response>`: routing, CSRF, authentication,
 * body reading and validation, the processing deadline, error mapping and request logs.
 * Any host mounts it: Node `http`, Express, Fastify, Hono, Bun, Deno or a worker.
 */
import {
  authenticateBearer,
  checkCsrf,
  CsrfValidationFailed,
  httpErrors,
  httpRequestSeconds,
  httpRequests,
  quotaRefusals,
  traced,
  withTags,
  InvalidRequest,
  MethodNotAllowed,
  ProcessingDeadlineExceeded,
  ResourceNotFound,
  type BearerUser,
  type CataloguedError,
  type RelyingParty,
  type EngineConfig,
  type HostedSessions,
  type KeyStore,
  type SigningKeys,
  type TokenRevocations,
} from "@signet/core"
import { Cause, Effect, Exit, FiberRef, LogLevel, type Metric, Option, type ManagedRuntime } from "effect"
import { DEFAULT_MAX_BODY_BYTES, readJson } from "./body.ts"
import type { Endpoint } from "./endpoint.ts"
import { errorResponse, internalError, isCatalogued, jsonAnswer, baseHeaders, type JsonAnswer, offerJsonAnswers, responseOf } from "./respond.ts"
import { encodeResponse, ResponseContractViolation } from "./response-contract.ts"
import { limitedClient } from "./client-address.ts"
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
  /** client address, when the host knows it (already resolved through trusted proxies) */
  readonly clientIp?: (request: Request) => string
  /**
   * strict response contracts (tests): undeclared properties and JSON built outside the contract
   * are mismatches too, and a mismatch's 500 names it in `detail` (docs/http.md#contracts)
   */
  readonly validateResponses?: boolean
}

/** What a request line shows in place of a capability in the path. */
export const REDACTED = "[redacted]"

/**
 * The path as a request log line shows it. Parameters of unauthenticated endpoints are
 * capabilities or ids a stranger could use (KYC handoff ids, signing request ids), so they are
 * redacted; ids under a bearer token are kept. An unmatched path keeps only its short segments.
 */
export const loggedPath = (
  route: { readonly endpoint: Endpoint<any, any>; readonly params: Record<string, string> } | undefined,
  base: string,
  pathname: string,
): string => {
  if (route === undefined) {
    return pathname
      .split("/")
      .map((segment) => (segment.length >= 16 ? REDACTED : segment))
      .join("/")
  }
  const { endpoint, params } = route
  const bearer = endpoint.auth === "bearer" || endpoint.auth === "bearer-optional"
  const kept = new Set(bearer ? Object.keys(params) : (endpoint.loggedParams ?? []))
  return base + endpoint.path.replace(/\{(\w+)\}/g, (_m, name: string) => (kept.has(name) ? encodeURIComponent(params[name] ?? "") : REDACTED))
}

// The quota errors of the spec, by the kind `/metrics` counts them under.
const QUOTA_KINDS: Readonly<Record<string, string>> = { DailySigningLimitExceeded: "daily", RateLimitExceeded: "rate", BatchSizeExceeded: "batch" }

// Tagged metrics by their tags: tagging builds a new metric key each time. Bounded, as methods
// and error names come from outside on some hosts; past the bound they are tagged per request.
const TAGGED_KEPT = 2_048
const tagged = new Map<string, Metric.Metric<any, number, any>>()
const taggedMetric = <Type, Out>(
  metric: Metric.Metric<Type, number, Out>,
  tags: Readonly<Record<string, string>>,
  key: string,
): Metric.Metric<Type, number, Out> => {
  const known = tagged.get(key)
  if (known !== undefined) return known
  const made = withTags(metric, tags)
  if (tagged.size < TAGGED_KEPT) tagged.set(key, made)
  return made
}

/**
 * A request in `signet_http_requests_total`, its duration, and its error (a quota refusal by kind).
 * One runtime step: read the fiber's metric labels once and update each metric as `Metric.update`
 * would (a counter's increment is an update by 1); four metric effects joined by `Effect.all` cost
 * about 40 steps of the runtime per request.
 */
const recordRequest = (method: string, route: string, status: number, error: string | undefined, seconds: number) =>
  FiberRef.getWith(FiberRef.currentMetricLabels, (labels) =>
    Effect.sync(() => {
      taggedMetric(httpRequests, { method: method, route: route, status: String(status) }, `requests ${method} ${route} ${status}`).unsafeUpdate(1, labels)
      taggedMetric(httpRequestSeconds, { method: method, route: route }, `seconds ${method} ${route}`).unsafeUpdate(seconds, labels)
      if (error === undefined) return
      taggedMetric(httpErrors, { route: route, error: error }, `errors ${route} ${error}`).unsafeUpdate(1, labels)
      const kind = QUOTA_KINDS[error]
      if (kind !== undefined) taggedMetric(quotaRefusals, { kind }, `quota ${kind}`).unsafeUpdate(1, labels)
    }),
  )

/**
 * `effect` (interruptible, from the caller's `restore`) interrupted once `ms` of real time have
 * passed, then failed with ProcessingDeadlineExceeded: what `Effect.timeoutFail` means, without the
 * two fibers and the sleep it forks for every request. The interruption is aimed at the running
 * fiber, so everything after this runs uninterruptibly (`uninterruptibleMask`), and that fiber's
 * own exit is an interruption even when it answered.
 */
const withinDeadline = <A, E, R>(effect: Effect.Effect<A, E, R>, ms: number): Effect.Effect<A, E | ProcessingDeadlineExceeded, R> =>
  Effect.withFiberRuntime((fiber) => {
    let passed = false
    const timer = setTimeout(() => {
      passed = true
      fiber.unsafeInterruptAsFork(fiber.id())
    }, ms)
    return Effect.flatMap(Effect.exit(effect), (exit): Effect.Effect<A, E | ProcessingDeadlineExceeded> => {
      clearTimeout(timer)
      // Interrupted by the deadline: its failure; finished first (or failed on its own): as it ended.
      return passed && Exit.isFailure(exit) && Cause.isInterrupted(exit.cause) ? Effect.fail(new ProcessingDeadlineExceeded()) : exit
    })
  })

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** Reads one cookie from the Cookie header. */
export const cookieValue = (request: Request, name: string): string | undefined => {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=")
    if (k === name) return v.join("=")
  }
  return undefined
}

/** Whatever an endpoint built: no answer is sniffed as another type, no hosted page is cached. */
const withEdgeHeaders = (given: Response): Response => {
  let response = given
  try {
    response.headers.set("x-content-type-options", "nosniff")
  } catch {
    // Immutable headers (Response.redirect): answer a copy.
    response = new Response(given.body, given)
    response.headers.set("x-content-type-options", "nosniff")
  }
  if ((response.headers.get("content-type") ?? "").startsWith("text/html")) response.headers.set("cache-control", "no-store")
  return response
}

/** Builds the handler. */
export const makeHandler = <R>(options: HandlerOptions<R>): ((request: Request) => Promise<Response>) => {
  const routes = compileRoutes(options.endpoints)
  const base = options.basePath.replace(/\/+$/, "")
  const strict = options.validateResponses === true

  const route = (request: Request, url: URL) => {
    if (base !== "" && url.pathname !== base && !url.pathname.startsWith(`${base}/`)) return { _tag: "NotFound" as const }
    try {
      return matchRoute(routes, request.method, url.pathname.slice(base.length) || "/")
    } catch {
      // A parameter with broken percent-encoding (`%E0`) is the caller's mistake, not ours.
      return { _tag: "MalformedPath" as const }
    }
  }

  const run = (
    request: Request,
    url: URL,
    found: ReturnType<typeof route>,
    requestId: string,
    clientIp: string,
  ): Effect.Effect<Response | JsonAnswer, CataloguedError, R | HandlerServices> =>
    Effect.gen(function* () {
      if (found._tag === "NotFound") return yield* new ResourceNotFound({ what: "Route" })
      if (found._tag === "MalformedPath") return yield* new InvalidRequest({ detail: "the path has malformed percent-encoding" })
      if (found._tag === "MethodNotAllowed") return yield* new MethodNotAllowed({ method: request.method })
      const { endpoint } = found.route

      const authorization = Option.fromNullable(request.headers.get("authorization"))
      // A cookie-carrying state change from a hosted page must prove it came from our page.
      const session = cookieValue(request, SESSION_COOKIE)
      if (STATE_CHANGING.has(request.method) && session !== undefined && Option.isNone(authorization)) {
        yield* checkCsrf(session, request.headers.get(CSRF_HEADER) ?? undefined).pipe(Effect.catchAllDefect(() => Effect.fail(new CsrfValidationFailed())))
      }

      let user: BearerUser | undefined
      if (endpoint.auth === "bearer" || (endpoint.auth === "bearer-optional" && Option.isSome(authorization))) {
        user = yield* authenticateBearer(authorization, endpoint.scope ?? "basic")
      }

      let client: RelyingParty | undefined
      if (endpoint.client !== undefined) client = yield* endpoint.client(request)

      const body =
        endpoint.body === undefined
          ? undefined
          : yield* readJson(request, endpoint.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES).pipe(Effect.flatMap((raw) => decodeBody(endpoint.body!, raw)))

      const result = yield* endpoint.handle({
        body,
        params: found.params,
        // made when an endpoint reads it: most never do, and URLSearchParams is built on first use
        get query() {
          return url.searchParams
        },
        request,
        requestId,
        user,
        client,
        clientIp,
      })
      const answer = yield* encodeResponse(endpoint, result, strict)
      if (answer instanceof Response) return answer
      return jsonAnswer(answer.status, answer.body, requestId, answer.headers)
    })

  /** The answer to `request`; a JSON one as a `JsonAnswer` when the caller can take one (`plain`), else as a `Response`. */
  const respond = async (request: Request, plain: boolean): Promise<Response | JsonAnswer> => {
    const started = performance.now()
    const requestId = request.headers.get("x-request-id")?.slice(0, 100) || options.newRequestId()
    const url = new URL(request.url)
    const found = route(request, url)
    const address = options.clientIp?.(request) ?? "unknown"
    const clientIp = limitedClient(address)
    // Only log lines show the path: made when one is written.
    let logged: string | undefined
    const path = () =>
      (logged ??= loggedPath(found._tag === "Found" ? { endpoint: found.route.endpoint, params: found.params } : undefined, base, url.pathname))
    // Metrics and spans name the endpoint by its path template: ids never become labels.
    const routeName = found._tag === "Found" ? `${base}${found.route.endpoint.path}` : "unmatched"

    /** The answer to what the endpoint ended with, logged and counted. */
    const answer = (exit: Exit.Exit<Response | JsonAnswer, CataloguedError>) =>
      Effect.gen(function* () {
        let response: Response | JsonAnswer
        let error: string | undefined
        if (Exit.isSuccess(exit)) {
          response = exit.value
          // A JsonAnswer has them, as `json` gives them (and is not HTML: withEdgeHeaders has nothing to add).
          if (response instanceof Response) {
            for (const [k, v] of Object.entries(baseHeaders(requestId))) if (!response.headers.has(k)) response.headers.set(k, v)
          }
        } else {
          const failure = Cause.failureOption(exit.cause)
          if (Option.isSome(failure) && isCatalogued(failure.value)) {
            response = errorResponse(failure.value, requestId)
            error = failure.value._tag
          } else {
            error = "internal"
            const defect = Cause.dieOption(exit.cause)
            const violation = Option.isSome(defect) && defect.value instanceof ResponseContractViolation ? defect.value : undefined
            response = internalError(requestId, strict ? violation?.message : undefined)
            yield* Effect.logError("request failed", Cause.pretty(exit.cause)).pipe(Effect.annotateLogs({ requestId, method: request.method, path: path() }))
          }
        }
        if (response instanceof Response) response = withEdgeHeaders(response)
        // The line is built only when Info is logged (as Effect.logInfo itself would decide).
        yield* Effect.whenLogLevel(
          Effect.suspend(() =>
            Effect.logInfo("request").pipe(
              Effect.annotateLogs({
                requestId,
                method: request.method,
                path: path(),
                status: response.status,
                clientIp: address,
                durationMs: Math.round((performance.now() - started) * 10) / 10,
              }),
            ),
          ),
          LogLevel.Info,
        )
        yield* recordRequest(request.method, routeName, response.status, error, (performance.now() - started) / 1000)
        return response
      })

    // One fiber per request: the endpoint under its deadline and span, then the answer, its log line and metrics.
    let answered: Response | JsonAnswer | undefined
    const exit = await options.runtime.runPromiseExit(
      Effect.uninterruptibleMask((restore) =>
        withinDeadline(restore(run(request, url, found, requestId, clientIp)), options.deadlineMs).pipe(
          traced(`${request.method} ${routeName}`, {
            kind: "server",
            attributes: { "http.request.method": request.method, "http.route": routeName, "signet.request_id": requestId },
          }),
          Effect.exit,
          Effect.flatMap(answer),
          Effect.tap((response) =>
            Effect.sync(() => {
              answered = response
            }),
          ),
        ),
      ),
    )
    if (answered !== undefined) return plain || answered instanceof Response ? answered : responseOf(answered)
    // Logging or counting failed: the host answers 500, as for any handler that throws.
    throw Cause.squash(Exit.isFailure(exit) ? exit.cause : Cause.empty)
  }

  const handler = (request: Request) => respond(request, false) as Promise<Response>
  // The Node host (node-server.ts) writes JSON answers without making them web Responses.
  offerJsonAnswers(handler, (request) => respond(request, true))
  return handler
}
