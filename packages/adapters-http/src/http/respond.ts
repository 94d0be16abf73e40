/** The one place where errors become HTTP responses: status and `{ "error": message }` from the catalogue. */
import { INTERFACE_VERSION, isCatalogued, type CataloguedError } from "@signet/core"

/** Headers every answer carries; `nosniff` so no script, JSON or image is ever read as another type. */
export const baseHeaders = (requestId: string): Record<string, string> => ({
  "signet-version": INTERFACE_VERSION,
  "x-request-id": requestId,
  "x-content-type-options": "nosniff",
})

/** Seconds a client should wait after a 429 when the error does not say (one per-minute window). */
export const DEFAULT_RETRY_AFTER_SECONDS = 60

// The text of each JSON answer made here, so that a host can write it as it is instead of reading
// the answer's web stream back (node-server.ts): that read costs more than writing the text.
const jsonTexts = new WeakMap<Response, string>()

/** The JSON text `responseOf` gave `response`, while its body is unread; undefined otherwise. */
export const jsonTextOf = (response: Response): string | undefined =>
  response.bodyUsed || response.body?.locked === true ? undefined : jsonTexts.get(response)

/** A JSON answer, with `extra` headers after its own. */
export const json = (status: number, body: unknown, requestId: string, extra: Record<string, string> = {}): Response =>
  responseOf(jsonAnswer(status, body, requestId, Object.entries(extra)))

/**
 * An endpoint's JSON answer before it is a web `Response`: its status, its headers in order (a name
 * may repeat: two `set-cookie`) and its text. The Node host writes it as it is (node-server.ts):
 * a `Response` and reading its headers back cost about 15 µs per answer on Node 20.
 */
export interface JsonAnswer {
  readonly _tag: "JsonAnswer"
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly text: string
}

/**
 * A JSON answer, with `appended` after its own headers, as a `JsonAnswer`. An appended header a
 * web `Headers` refuses (a line break, a character past U+00FF) throws here, where the endpoint
 * still answers, as it threw when appended to the `Response`.
 */
export const jsonAnswer = (status: number, body: unknown, requestId: string, appended: ReadonlyArray<readonly [string, string]> = []): JsonAnswer => {
  if (appended.length > 0) new Headers(appended as Array<[string, string]>)
  const own: Array<readonly [string, string]> = [
    ["content-type", "application/json; charset=utf-8"],
    ["cache-control", "no-store"],
    ...Object.entries(baseHeaders(requestId)),
  ]
  return { _tag: "JsonAnswer", status, headers: [...own, ...appended], text: JSON.stringify(body) }
}

/** The web `Response` of a `JsonAnswer`. */
export const responseOf = (answer: JsonAnswer): Response => {
  const response = new Response(answer.text, { status: answer.status, headers: answer.headers as Array<[string, string]> })
  jsonTexts.set(response, answer.text)
  return response
}

// Handlers that can answer a host with `JsonAnswer`s, by the handler the host was given.
const answeringHandlers = new WeakMap<(request: Request) => Promise<Response>, (request: Request) => Promise<Response | JsonAnswer>>()

/** Lets a host given `handler` ask `answer` instead, which may answer JSON as a `JsonAnswer`. */
export const offerJsonAnswers = (handler: (request: Request) => Promise<Response>, answer: (request: Request) => Promise<Response | JsonAnswer>): void => {
  answeringHandlers.set(handler, answer)
}

/** What `offerJsonAnswers` offered for `handler`; undefined for any other handler (a host's own, a wrapper). */
export const jsonAnswersOf = (handler: (request: Request) => Promise<Response>): ((request: Request) => Promise<Response | JsonAnswer>) | undefined =>
  answeringHandlers.get(handler)

/** A JSON answer an endpoint chooses the status or headers of; the handler encodes `body` with the endpoint's Schema for `status`. */
export class Reply {
  readonly _tag = "Reply"
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** pairs, so a header may repeat (two `set-cookie`) */
    readonly headers: ReadonlyArray<readonly [string, string]> = [],
  ) {}
}

/** Builds a `Reply`. */
export const reply = (status: number, body: unknown, headers: Record<string, string> | ReadonlyArray<readonly [string, string]> = []): Reply =>
  new Reply(status, body, Array.isArray(headers) ? headers : Object.entries(headers))

/** A catalogued error as its status and `{ "error": message }`. */
export const errorResponse = (error: CataloguedError, requestId: string): Response => {
  const extra: Record<string, string> = error.status === 401 ? { "www-authenticate": 'Bearer realm="signet"' } : {}
  if (error.status === 429) {
    // Every 429 says when to come back: the window's or the day's reset when the error knows it.
    const known = (error as { readonly retryAfterSeconds?: unknown }).retryAfterSeconds
    extra["retry-after"] = String(typeof known === "number" && known > 0 ? Math.ceil(known) : DEFAULT_RETRY_AFTER_SECONDS)
  }
  return json(error.status, { error: error.message }, requestId, extra)
}

/** Anything that is not catalogued is our fault: 500 with the request id, never the internals. */
export const internalError = (requestId: string, detail?: string): Response =>
  json(500, { error: "Internal server error", requestId, ...(detail !== undefined ? { detail } : {}) }, requestId)

export { isCatalogued }
