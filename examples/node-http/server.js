// A plain node:http server that mounts Signet under /api, on its own SQLite file (docs/embedding.md).
import { createServer } from "node:http"
import { parseMasterKey } from "@signet/adapters-crypto"
import { makeEngine, nodeClientIp, nodeListener, SandboxMailbox } from "@signet/adapters-http"
import { StorageSqlite } from "@signet/adapters-sqlite"

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

const signet = nodeListener(engine.handler)
const server = createServer((req, res) => {
  if (req.url === "/api" || req.url?.startsWith("/api/")) return void signet(req, res)
  res.end("the host's own page")
}).listen(port, "127.0.0.1", () => console.log(`node:http host listening on ${port}`))
process.once("SIGTERM", () => server.close(() => void engine.dispose()))
