// A Hono app on Node that mounts Signet under /api, on its own SQLite file (docs/embedding.md).
import { serve } from "@hono/node-server"
import { getConnInfo } from "@hono/node-server/conninfo"
import { parseMasterKey } from "@signet/adapters-crypto"
import { makeEngine, SandboxMailbox } from "@signet/adapters-http"
import { StorageSqlite } from "@signet/adapters-sqlite"
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
  // Sandbox: e-mail codes are printed, not sent (a production host passes MailerSmtp(...)).
  mailer: new SandboxMailbox("sandbox", (m) => console.log(`[sandbox mail] to ${m.to}: ${m.subject}`)).layer,
})

const app = new Hono()
app.get("/", (c) => c.text("the host's own page"))
// Signet's handler is web-standard: Hono passes it the Request as is.
app.all("/api/*", (c) => {
  peers.set(c.req.raw, getConnInfo(c).remote.address)
  return engine.handler(c.req.raw)
})
const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () => console.log(`hono host listening on ${port}`))
process.once("SIGTERM", () => server.close(() => void engine.dispose()))
