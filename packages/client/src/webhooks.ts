/**
 * Verifying webhook deliveries (Standard Webhooks, docs/events.md): HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed as the engine keys it. Web Crypto only, so it
 * runs in Node, browsers, Deno, Bun and workers alike.
 */

/** A delivery that is not authentic, or too old or too new to accept (a replay). */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError"
}

/** What a delivery carries (`sign.complete` or `batch.complete`, docs/events.md). */
export interface WebhookPayload {
  readonly type: string
  readonly timestamp: string
  readonly data: Record<string, unknown>
}

/** The three headers of a delivery, read from a `Headers` object or a Node-style record (names in lower case). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  const value = (headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>)[name]
  return Array.isArray(value) ? value.join(" ") : (value as string | undefined)
}

const fromBase64 = (text: string): Uint8Array<ArrayBuffer> | undefined => {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
  } catch {
    return undefined
  }
}

/**
 * The HMAC key of a subscription's secret: a `whsec_` secret is base64 of the key (Standard Webhooks); any
 * other secret is keyed by its UTF-8 bytes exactly as it was registered (never base64-decoded).
 */
export const webhookKey = (secret: string): Uint8Array<ArrayBuffer> => {
  if (!secret.startsWith("whsec_")) return new TextEncoder().encode(secret)
  const key = fromBase64(secret.slice("whsec_".length))
  if (key === undefined || key.length === 0) throw new WebhookVerificationError("the whsec_ secret is not base64")
  return key
}

/**
 * Checks a delivery and returns its parsed payload; throws `WebhookVerificationError` when a header is
 * missing, no `v1` signature matches, or the timestamp is more than `toleranceSeconds` (300) away from now.
 * Pass the raw body exactly as received: a re-serialised JSON body does not verify.
 */
export const verifyWebhook = async (
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  options: { readonly toleranceSeconds?: number; readonly nowSeconds?: number } = {},
): Promise<WebhookPayload> => {
  const id = header(headers, "webhook-id")
  const timestamp = header(headers, "webhook-timestamp")
  const signatures = header(headers, "webhook-signature")
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000)
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError("webhook-timestamp is outside the tolerance window")
  }
  const body = typeof rawBody === "string" ? new TextEncoder().encode(rawBody) : rawBody
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`)
  const signed = new Uint8Array(prefix.length + body.length)
  signed.set(prefix)
  signed.set(body, prefix.length)
  const key = await crypto.subtle.importKey("raw", webhookKey(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"])
  // Several signatures may be sent (space-separated) while a secret is rotated: any matching `v1` one will do.
  for (const entry of signatures.split(" ")) {
    const [version, value] = entry.split(",")
    if (version !== "v1" || value === undefined) continue
    const given = fromBase64(value)
    // crypto.subtle.verify compares in constant time
    if (given !== undefined && (await crypto.subtle.verify("HMAC", key, given, signed))) {
      return JSON.parse(new TextDecoder().decode(body)) as WebhookPayload
    }
  }
  throw new WebhookVerificationError("no webhook-signature matches")
}
