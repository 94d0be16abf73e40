/**
 * Hash signing (docs/signing.md): a request for a document's hash, approved with the signer's passkey
 * (in the signing frame or by posting the assertion), and its end learnt from the event stream or from
 * the `callbackUrl` (a POST of the `sign.complete` payload).
 */
import { bearer, type SignetClient, unwrap } from "./client.ts"
import { type EventStreamOptions, type SigningEventData, streamEvents } from "./events.ts"
import type { components, paths } from "./openapi.ts"

/** What `POST /v2/sign/single` takes (the signer's access token aside). */
export type SigningRequestBody = NonNullable<paths["/v2/sign/single"]["post"]["requestBody"]>["content"]["application/json"]

/** The answer of `POST /v2/sign/single`: the request id, its WebAuthn challenge and where to post the assertion. */
export type SigningRequest = paths["/v2/sign/single"]["post"]["responses"][200]["content"]["application/json"]

/** The answer of `POST /v2/sign/auth/{requestId}`: the signature, its timestamp and LOA. */
export type SigningCompletion = paths["/v2/sign/auth/{requestId}"]["post"]["responses"][200]["content"]["application/json"]

/** Creates a signing request with the signer's access token; give a `callbackUrl` to be called when it ends. */
export const createSigningRequest = async (client: SignetClient, accessToken: string, body: SigningRequestBody): Promise<SigningRequest> =>
  unwrap(await client.POST("/v2/sign/single", { body, headers: bearer(accessToken) }))

/** Approves a request with a WebAuthn assertion over its challenge (what the signing frame does for a browser). */
export const approveSigningRequest = async (
  client: SignetClient,
  requestId: string,
  assertion: components["schemas"]["Assertion"],
): Promise<SigningCompletion> => unwrap(await client.POST("/v2/sign/auth/{requestId}", { params: { path: { requestId } }, body: { assertion } }))

/**
 * Waits on the event stream for the end of a request or batch (`signing_request_completed` or
 * `signing_request_failed` with its id) and returns the event's record. Open it before the approval can
 * happen (a new stream starts at the newest event), or give the `lastEventId` of an earlier stream.
 */
export const waitForSigning = async (
  options: Omit<EventStreamOptions, "signal"> & { readonly id: string; readonly signal?: AbortSignal },
): Promise<SigningEventData> => {
  const stop = new AbortController()
  const abort = () => stop.abort()
  options.signal?.addEventListener("abort", abort, { once: true })
  try {
    for await (const event of streamEvents({ ...options, signal: stop.signal })) {
      if (event.event !== "signing_request_completed" && event.event !== "signing_request_failed") continue
      const data = JSON.parse(event.data) as SigningEventData
      if (data.id === options.id) return data
    }
    throw new Error(`the event stream ended before request ${options.id} did`)
  } finally {
    options.signal?.removeEventListener("abort", abort)
    stop.abort()
  }
}
