/** `GET /v2/events`: the signed-in user's signing events as server-sent events. */
import { isConsoleToken, InvalidRequest, sseClients, userEventStream, type EventBus, type SigningEvents } from "@signet/core"
import { Deferred, Effect, Metric, Stream } from "effect"
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
      // A draining node ends the stream with a reconnect hint; the client resumes on another node (Last-Event-ID).
      const frames = userEventStream(user!.userId, lastEventId, isConsoleToken(user!) ? null : user!.clientId).pipe(
        Stream.interruptWhen(Deferred.await(stopping)),
        Stream.concat(Stream.make(`retry: ${RECONNECT_HINT_MS}\n\n`)),
      )
      // Counted while the stream runs: from the first pull to the client's disconnect or the stream's end.
      const counted = Stream.acquireRelease(connectedClients(1), () => connectedClients(-1)).pipe(Stream.flatMap(() => frames))
      const body = Stream.toReadableStreamRuntime(counted.pipe(Stream.map((frame) => encoder.encode(frame))), runtime)
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
