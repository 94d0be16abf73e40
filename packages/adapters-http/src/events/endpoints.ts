/** `GET /v2/events`: the signed-in user's signing events as server-sent events. */
import { isConsoleToken, InvalidRequest, sseClients, subscribeUserEvents, type EventBus, type SigningEvents } from "@signet/core"
import { Deferred, Effect, Exit, Metric, Runtime, Scope } from "effect"
import { Lifecycle, RECONNECT_HINT_MS } from "../lifecycle.ts"
import { endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"

const encoder = new TextEncoder()

// Streams open in this process (every engine in it), the `signet_sse_clients` gauge.
let open = 0
const connectedClients = (change: 1 | -1) =>
  Effect.suspend(() => {
    open += change
    return Metric.set(sseClients, open)
  })

/** Frames a stream may have waiting for a slow reader before it is ended (it resumes with Last-Event-ID). */
const BACKLOG_FRAMES = 1024

/** `GET /v2/events`. */
export const eventStreamEndpoint = endpoint({
  method: "GET",
  path: "/v2/events",
  tag: "Events",
  auth: "bearer",
  summary:
    "Live stream of the signed-in user's signing events (text/event-stream): connected, then signing_request_created, signing_request_completed, signing_request_failed; resume with Last-Event-ID",
  response: { mediaType: "text/event-stream" },
  errors: [{ status: 400, description: "`Last-Event-ID must be an event id of this stream`" }],
  handle: ({ user, request, query, requestId }) =>
    Effect.gen(function* () {
      // The browser's EventSource sends Last-Event-ID on reconnect; clients that cannot set headers may use ?lastEventId=.
      const raw = request.headers.get("last-event-id") ?? query.get("lastEventId")
      if (raw !== null && !/^\d{1,15}$/.test(raw.trim())) return yield* new InvalidRequest({ detail: "Last-Event-ID must be an event id of this stream" })
      const lastEventId = raw === null ? null : Number(raw.trim())
      const runtime = yield* Effect.runtime<SigningEvents | EventBus>()
      const { stopping } = yield* Lifecycle
      const scope = yield* Scope.make()
      // Counted from the stream's start to its end or the client's disconnect (the scope's close).
      Runtime.runSync(runtime)(connectedClients(1).pipe(Effect.zipRight(Scope.addFinalizer(scope, connectedClients(-1)))))
      // The frames go straight into the response body: a completion fans out to thousands of
      // streams as one synchronous pass, not one fiber hop per stream.
      let finished = false
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          // A draining node (or storage gone) ends the stream with a reconnect hint; the client resumes on another node (Last-Event-ID).
          const finish = (hint: boolean) => {
            if (finished) return
            finished = true
            if (hint) controller.enqueue(encoder.encode(`retry: ${RECONNECT_HINT_MS}\n\n`))
            controller.close()
            Runtime.runFork(runtime)(Scope.close(scope, Exit.void))
          }
          const sink = {
            // Too far behind (the socket does not drain): end it rather than buffer; it resumes exactly.
            push: (frame: string) => {
              if (finished) return false
              if ((controller.desiredSize ?? 0) < -BACKLOG_FRAMES) return false
              controller.enqueue(encoder.encode(frame))
              return true
            },
            end: () => finish(true),
          }
          Runtime.runFork(runtime)(
            subscribeUserEvents(user!.userId, lastEventId, isConsoleToken(user!) ? null : user!.clientId, sink).pipe(
              Scope.extend(scope),
              Effect.catchAllCause(() => Effect.sync(() => finish(true))),
            ),
          )
          Runtime.runFork(runtime)(Deferred.await(stopping).pipe(Effect.zipRight(Effect.sync(() => finish(true))), Effect.forkIn(scope)))
        },
        cancel: () => {
          finished = true
          Runtime.runFork(runtime)(Scope.close(scope, Exit.void))
        },
      })
      return new Response(body, {
        status: 200,
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-store",
          "x-accel-buffering": "no",
          ...baseHeaders(requestId),
        },
      })
    }),
})
