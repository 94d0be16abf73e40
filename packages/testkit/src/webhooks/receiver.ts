/** A webhook receiver for tests and a Standard Webhooks verifier RPs can copy. */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"

/** Why a delivery was refused by `verifyWebhook`. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError"
}

/**
 * Verifies a Standard Webhooks delivery: the `webhook-signature` (any of its space-separated
 * `v1,<base64>` entries) must be HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`
 * under the secret's key (`whsec_` + base64 of it, or the UTF-8 bytes of a secret the RP chose
 * itself), and the timestamp within `toleranceSeconds`
 * of now (default 5 minutes) so a captured delivery cannot be replayed later.
 */
export const verifyWebhook = (
  secret: string,
  headers: Readonly<Record<string, string | undefined>>,
  rawBody: string,
  options: { readonly toleranceSeconds?: number; readonly nowSeconds?: number } = {},
): unknown => {
  const id = headers["webhook-id"]
  const timestamp = headers["webhook-timestamp"]
  const signatures = headers["webhook-signature"]
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("missing webhook headers")
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000)
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError("timestamp outside the tolerance window")
  }
  // As the engine keys it (docs/events.md): a `whsec_` secret is base64 of the key; any other string is the RP's own secret, keyed by its UTF-8 bytes.
  const key = secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8")
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${rawBody}`).digest()
  const ok = signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",")
    if (version !== "v1" || value === undefined) return false
    const given = Buffer.from(value, "base64")
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!ok) throw new WebhookVerificationError("no matching signature")
  return JSON.parse(rawBody) as unknown
}

/** A delivery as the receiver saw it. */
export interface ReceivedDelivery {
  readonly path: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
  readonly answeredWith: number
}

/** A local receiver on 127.0.0.1 that answers `status(n)` to the n-th request (1-based) and records everything. */
export const startWebhookReceiver = async (status: (attempt: number) => number = () => 200) => {
  const received: Array<ReceivedDelivery> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const answer = status(received.length + 1)
      const headers: Record<string, string | undefined> = {}
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : v
      received.push({ path: req.url ?? "/", headers, body: Buffer.concat(chunks).toString("utf8"), answeredWith: answer })
      res.writeHead(answer, { "content-type": "text/plain" }).end(answer < 300 ? "ok" : "not now")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Waits until `predicate` holds for the received deliveries. */
    waitFor: async (predicate: (r: ReadonlyArray<ReceivedDelivery>) => boolean, timeoutMs = 10_000) => {
      const started = Date.now()
      while (!predicate(received)) {
        if (Date.now() - started > timeoutMs) throw new Error(`receiver timed out with ${received.length} deliveries`)
        await new Promise((r) => setTimeout(r, 25))
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
