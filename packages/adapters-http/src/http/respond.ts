/** The one place where errors become HTTP responses: status and `{ "error": message }` from the catalogue. */
import { INTERFACE_VERSION, isCatalogued, type CataloguedError } from "@signet/core"

/** Headers every answer carries. */
export const baseHeaders = (requestId: string): Record<string, string> => ({
  "signet-version": INTERFACE_VERSION,
  "x-request-id": requestId,
})

/** A JSON answer. */
export const json = (status: number, body: unknown, requestId: string, extra: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...baseHeaders(requestId), ...extra },
  })

/** A catalogued error as its status and `{ "error": message }`. */
export const errorResponse = (error: CataloguedError, requestId: string): Response => {
  const extra: Record<string, string> = error.status === 401 ? { "www-authenticate": 'Bearer realm="signet"' } : {}
  return json(error.status, { error: error.message }, requestId, extra)
}

/** Anything that is not catalogued is our fault: 500 with the request id, never the internals. */
export const internalError = (requestId: string): Response =>
  json(500, { error: "Internal server error", requestId }, requestId)

export { isCatalogued }
