/** The outbox survives SIGKILL: a completion committed before the crash is delivered after the restart. */
import { administerRelyingParty, confirmEmailVerification, registerRelyingParty, startEmailVerification } from "@signet/core"
import { ok, SignetClient, signIn, SoftwarePasskey, startWebhookReceiver, type TokenAnswer } from "@signet/testkit"
import { LogLevel } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Webhook } from "standardwebhooks"
import { afterAll, describe, expect, it } from "vitest"
import { makeEngine, SandboxMailbox } from "@signet/adapters-http"
import { storageFor } from "./storage.ts"

// The server runs from built JavaScript in the child process itself (no wrapper between), so SIGKILL reaches it.
const repoRoot = new URL("../../../", import.meta.url).pathname
const serverBin = new URL("../dist/bin/server.js", import.meta.url).pathname

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const address = s.address()
      s.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const children: Array<ChildProcess> = []
afterAll(() => {
  for (const c of children) c.kill("SIGKILL")
})

describe("delivery across a crash", () => {
  it("a delivery committed before SIGKILL arrives after the restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "signet-crash-"))
    const database = join(dir, "signet.db")
    const masterKey = randomBytes(32).toString("hex")
    const port = await freePort()
    const origin = `http://localhost:${port}`
    const env = {
      ...process.env,
      SIGNET_DATABASE: database,
      SIGNET_MASTER_KEY: masterKey,
      SIGNET_PORT: String(port),
      SIGNET_HOST: "127.0.0.1",
      SIGNET_PUBLIC_ORIGIN: origin,
      SIGNET_ENVIRONMENT: "sandbox",
      SIGNET_WEBHOOKS_ALLOW_LOOPBACK: "1",
      SIGNET_WEBHOOK_RETRY_BASE_MS: "400",
      SIGNET_VALIDATE_RESPONSES: "1",
      // The process killed is the one that serves (with workers, SIGKILL would hit only their primary).
      SIGNET_WORKERS: "1",
    }
    const start = async () => {
      const child = spawn(process.execPath, [serverBin], { cwd: repoRoot, env, stdio: ["ignore", "ignore", "pipe"] })
      children.push(child)
      for (let i = 0; i < 200; i++) {
        const up = await fetch(`${origin}/api/health`).then(
          (r) => r.ok,
          () => false,
        )
        if (up) return child
        await new Promise((r) => setTimeout(r, 100))
      }
      throw new Error("the server did not start")
    }

    // Administration in process on the same database (the admin CLI's way), without a delivery worker.
    const mailbox = new SandboxMailbox("sandbox")
    const admin = await makeEngine({
      mailer: mailbox.layer,
      ...storageFor(database),
      masterKey: Buffer.from(masterKey, "hex"),
      logLevel: LogLevel.None,
      deliveries: { worker: false },
      validateResponses: true,
      settings: {
        environment: "sandbox",
        publicOrigin: origin,
        basePath: "/api",
        accessTokenTtlSeconds: 3600,
        ceremonyTtlSeconds: 300,
        sessionTtlSeconds: 3600,
      },
    })
    let healthy = false
    const receiver = await startWebhookReceiver(() => (healthy ? 200 : 503))
    try {
      const rp = await admin.run(registerRelyingParty({ name: "Crash RP", status: "approved", signingOrigins: [origin] }))
      let server = await start()
      const client = new SignetClient(`${origin}/api`)
      const passkey = SoftwarePasskey.create({ origin })
      // The e-mail is proven in process (same database): the server's own sandbox mailbox is out of reach of this test.
      const proof = await admin.run(startEmailVerification("crash@example.com"))
      await admin.run(confirmEmailVerification({ verificationId: proof.verificationId, code: mailbox.codeFor("crash@example.com") }))
      const started = ok(await client.enrolmentRequest({ email: "crash@example.com", emailVerificationId: proof.verificationId }))
      const enrolled = ok(await client.enrolmentVerify({ enrolmentId: started.enrolmentId, credential: passkey.register(started.options) }))
      await admin.run(administerRelyingParty(rp.rp.clientId, { _tag: "SetContact", userId: enrolled.userId }))
      const token = (ok(await signIn(client, passkey, { clientId: rp.rp.clientId })) as TokenAnswer).access_token
      const whsec = `whsec_${randomBytes(32).toString("base64")}`
      ok(
        await client.raw("POST", "/v2/webhooks/register", {
          headers: { authorization: `Bearer ${token}` },
          body: { url: `${receiver.url}/hook`, events: ["sign.complete"], secret: whsec },
        }),
      )
      const pending = ok(
        await client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
          headers: { authorization: `Bearer ${token}` },
          body: { documentHash: createHash("sha256").update(randomBytes(8)).digest("hex"), credentialId: passkey.credentialId },
        }),
      )
      ok(
        await client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
          body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
        }),
      )

      // The completion is committed; the receiver refuses; the process dies without warning.
      await receiver.waitFor((r) => r.length >= 1)
      server.kill("SIGKILL")
      await new Promise((resolve) => server.once("exit", resolve))
      // Really down: nothing answers on its port until the restart.
      expect(
        await fetch(`${origin}/api/health`).then(
          () => "answered",
          () => "down",
        ),
      ).toBe("down")
      const beforeRestart = receiver.received.length
      healthy = true
      server = await start()
      // SIGKILL can land between the receiver's answer and the recording of the attempt: that claim is retried
      // when its 30 s lease runs out, so wait past it.
      await receiver.waitFor((r) => r.some((d) => d.answeredWith === 200), 45_000)
      expect(beforeRestart).toBeGreaterThanOrEqual(1)
      const delivered = receiver.received.find((d) => d.answeredWith === 200)!
      const payload = new Webhook(whsec).verify(delivered.body, {
        "webhook-id": delivered.headers["webhook-id"]!,
        "webhook-timestamp": delivered.headers["webhook-timestamp"]!,
        "webhook-signature": delivered.headers["webhook-signature"]!,
      }) as { data: { requestId: string } }
      expect(payload.data.requestId).toBe(pending.requestId)
      // the same message all along: a receiver can drop duplicates by webhook-id
      expect(new Set(receiver.received.map((d) => d.headers["webhook-id"])).size).toBe(1)
      server.kill("SIGTERM")
    } finally {
      await receiver.close()
      await admin.dispose()
    }
  }, 120_000)
})
