// A Fastify app that mounts Signet under /api, on its own SQLite file (docs/embedding.md).
import { parseMasterKey } from "@signet/adapters-crypto"
import { makeEngine, nodeClientIp, nodeListener, SandboxMailbox } from "@signet/adapters-http"
import { StorageSqlite } from "@signet/adapters-sqlite"
import Fastify from "fastify"

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

const app = Fastify()
app.get("/", async () => "the host's own page")
await app.register(
  async (signet) => {
    // Signet reads (and bounds) each request body itself: Fastify hands it over unparsed.
    signet.removeAllContentTypeParsers()
    signet.addContentTypeParser("*", (_request, _payload, done) => done(null))
    const listener = nodeListener(engine.handler)
    signet.all("/*", (request, reply) => {
      reply.hijack()
      return listener(request.raw, reply.raw)
    })
  },
  { prefix: "/api" },
)
await app.listen({ port, host: "127.0.0.1" })
console.log(`fastify host listening on ${port}`)
process.once("SIGTERM", () => void app.close().then(() => engine.dispose()))
