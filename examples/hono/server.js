// A Hono app on Node that mounts Signet under /api, on its own SQLite file (docs/embedding.md).
import { serve } from "@hono/node-server"
import { getConnInfo } from "@hono/node-server/conninfo"
import { parseMasterKey } from "@signet/adapters-crypto"
import { makeEngine, SandboxMailbox } from "@signet/adapters-http"
import { StorageSqlite } from "@signet/adapters-sqlite"
import { verifyWebhook, WebhookVerificationError } from "@signet/client"
import { Hono } from "hono"

const port = Number(process.env.PORT ?? 3000)
// The peer address of each request, for Signet's per-client rate limits.
const peers = new WeakMap()
const engine = await makeEngine({
  settings: {
    environment: "sandbox",
    publicOrigin: process.env.PUBLIC_ORIGIN ?? `http://localhost:${port}`,
    basePath: "/api",
    accessTokenTtlSeconds: 3600,
    ceremonyTtlSeconds: 300,
    sessionTtlSeconds: 3600,
  },
  storage: StorageSqlite({ filename: process.env.SIGNET_DATABASE ?? "signet.db" }),
  masterKey: parseMasterKey(process.env.SIGNET_MASTER_KEY ?? ""),
  adminToken: process.env.SIGNET_ADMIN_TOKEN,
  clientIp: (request) => peers.get(request) ?? "unknown",
  // Webhooks to a receiver on this machine (the development switch, docs/events.md): only when asked.
  deliveries: { allowLoopbackHttp: process.env.SIGNET_WEBHOOKS_ALLOW_LOOPBACK === "1" },
  // Sandbox: e-mail codes are printed, not sent (a production host passes MailerSmtp(...)).
  mailer: new SandboxMailbox("sandbox", (m) => console.log(`[sandbox mail] to ${m.to}: ${m.subject}`)).layer,
})

// The host is also a relying party: it receives Signet's webhooks and checks each delivery's signature with
// @signet/client (the secret it registered with POST /api/v2/webhooks/register, docs/events.md).
const webhookSecret = process.env.SIGNET_WEBHOOK_SECRET ?? ""
/** @param {Headers | Record<string, string | string[] | undefined>} headers @param {string | Uint8Array} rawBody */
const receiveWebhook = async (headers, rawBody) => {
  try {
    const event = await verifyWebhook(webhookSecret, headers, rawBody)
    console.log(`[webhook] verified ${event.type} ${String(event.data["requestId"] ?? event.data["batchId"])}`)
    return 204
  } catch (e) {
    if (!(e instanceof WebhookVerificationError)) throw e
    console.log(`[webhook] refused: ${e.message}`)
    return 400
  }
}

const app = new Hono()
app.get("/", (c) => c.text("the host's own page"))
app.post("/webhooks/signet", async (c) => new Response(null, { status: await receiveWebhook(c.req.raw.headers, await c.req.text()) }))
// Signet's handler is web-standard: Hono passes it the Request as is.
app.all("/api/*", (c) => {
  peers.set(c.req.raw, getConnInfo(c).remote.address)
  return engine.handler(c.req.raw)
})
const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () => console.log(`hono host listening on ${port}`))
process.once("SIGTERM", () => server.close(() => void engine.dispose()))
