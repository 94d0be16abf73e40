// An Express app that mounts Signet under /api, on its own SQLite file (docs/embedding.md).
import { parseMasterKey } from "@signet/adapters-crypto"
import { makeEngine, nodeClientIp, nodeListener, SandboxMailbox } from "@signet/adapters-http"
import { StorageSqlite } from "@signet/adapters-sqlite"
import { verifyWebhook, WebhookVerificationError } from "@signet/client"
import express from "express"

const port = Number(process.env.PORT ?? 3000)
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
  clientIp: nodeClientIp,
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

const app = express()
app.get("/", (_req, res) => res.send("the host's own page"))
// The raw body, as signed: a parsed and re-serialised JSON body would not verify.
app.post("/webhooks/signet", express.raw({ type: "*/*" }), async (req, res) => {
  res.sendStatus(await receiveWebhook(req.headers, req.body))
})
// No body parser in front of it: Signet reads (and bounds) each request body itself.
app.all("/api/{*rest}", nodeListener(engine.handler))
const server = app.listen(port, "127.0.0.1", () => console.log(`express host listening on ${port}`))
process.once("SIGTERM", () => server.close(() => void engine.dispose()))
