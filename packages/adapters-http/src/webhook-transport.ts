/**
 * `WebhookTransport` over the guarded HTTP client (`guarded-http.ts`): the URL and every address
 * DNS gives for its host are checked by the address guard (so a name cannot be re-pointed at an
 * internal address after registration), redirects are never followed, and an attempt times out after 10 s.
 */
import { TransportFailure, WebhookTransport } from "@signet/core"
import { Effect, Layer } from "effect"
import { guardedRequest } from "./guarded-http.ts"

/** The transport; `allowLoopbackHttp` is the documented development switch. */
export const WebhookTransportNode = (options: { readonly allowLoopbackHttp: boolean }): Layer.Layer<WebhookTransport> =>
  Layer.succeed(WebhookTransport, {
    post: (url, headers, body) =>
      Effect.tryPromise({
        try: (signal) => guardedRequest(url, { method: "POST", headers, body, signal, maxBytes: 64 * 1024, overflow: "truncate" }, options),
        catch: (e) => new TransportFailure({ reason: e instanceof Error ? e.message : String(e) }),
      }).pipe(Effect.map((a) => ({ status: a.status }))),
  })
