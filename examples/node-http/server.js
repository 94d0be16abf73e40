// A plain node:http server that mounts Signet under /api, on its own SQLite file (docs/embedding.md).
import { createServer } from "node:http"
import { parseMasterKey } from "@signet/adapters-crypto"
import { makeEngine, nodeClientIp, nodeListener, SandboxMailbox } from "@signet/adapters-http"
import { StorageSqlite } from "@signet/adapters-sqlite"
import { verifyWebhook, WebhookVerificationError } from "@signet/client"

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

const signet = nodeListener(engine.handler)
const server = createServer((req, res) => {
  if (req.url === "/api" || req.url?.startsWith("/api/")) return void signet(req, res)
  if (req.method === "POST" && req.url === "/webhooks/signet") {
    /** @type {Buffer[]} */
    const chunks = []
    req.on("data", (chunk) => chunks.push(chunk))
    req.on("end", async () => {
      res.statusCode = await receiveWebhook(req.headers, Buffer.concat(chunks))
      res.end()
    })
    return
  }
  res.end("the host's own page")
}).listen(port, "127.0.0.1", () => console.log(`node:http host listening on ${port}`))
process.once("SIGTERM", () => server.close(() => void engine.dispose()))
