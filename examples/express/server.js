// An Express app that mounts Signet under /api, on its own SQLite file (docs/embedding.md).
import { parseMasterKey } from "@signet/adapters-crypto"
import { makeEngine, nodeClientIp, nodeListener, SandboxMailbox } from "@signet/adapters-http"
import { StorageSqlite } from "@signet/adapters-sqlite"
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
  // Sandbox: e-mail codes are printed, not sent (a production host passes MailerSmtp(...)).
  mailer: new SandboxMailbox("sandbox", (m) => console.log(`[sandbox mail] to ${m.to}: ${m.subject}`)).layer,
})

const app = express()
app.get("/", (_req, res) => res.send("the host's own page"))
// No body parser in front of it: Signet reads (and bounds) each request body itself.
app.all("/api/{*rest}", nodeListener(engine.handler))
const server = app.listen(port, "127.0.0.1", () => console.log(`express host listening on ${port}`))
process.once("SIGTERM", () => server.close(() => void engine.dispose()))
