/**
 * Test support: what the server's process tests need beside a spawned server: the in-process
 * administration on its database (the admin CLI's way, without a delivery worker), an approved RP
 * with an enrolled signer as its contact and that signer's token, and one HTTP exchange on a chosen
 * connection (to reach a given worker).
 */
import { administerRelyingParty, confirmEmailVerification, registerRelyingParty, startEmailVerification } from "@signet/core"
import { makeEngine, SandboxMailbox, type Engine } from "@signet/adapters-http"
import { ok, SignetClient, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { LogLevel } from "effect"
import { type Agent, type IncomingHttpHeaders, request } from "node:http"
import { storageFor } from "../storage.ts"
import type { ServerProcess } from "./server-process.ts"

/** An engine on the server's database and master key, no delivery worker nor housekeeping; its mailbox holds the codes it sends. */
export const administer = async (server: ServerProcess): Promise<{ admin: Engine; mailbox: SandboxMailbox }> => {
  const mailbox = new SandboxMailbox("sandbox")
  const admin = await makeEngine({
    mailer: mailbox.layer,
    ...storageFor(server.database),
    masterKey: Buffer.from(server.masterKey, "hex"),
    logLevel: LogLevel.None,
    deliveries: { worker: false },
    housekeeping: false,
    settings: {
      environment: "sandbox",
      publicOrigin: server.origin,
      basePath: "/api",
      accessTokenTtlSeconds: 3600,
      ceremonyTtlSeconds: 300,
      sessionTtlSeconds: 3600,
    },
  })
  return { admin, mailbox }
}

/** An approved RP on the server, a signer enrolled over HTTP as its contact, and the signer's token for it. */
export const contactSigner = async (server: ServerProcess, admin: Engine, mailbox: SandboxMailbox, rpName: string, email: string) => {
  const rp = await admin.run(registerRelyingParty({ name: rpName, status: "approved", signingOrigins: [server.origin], plan: "business" }))
  const client = new SignetClient(`${server.origin}/api`)
  const passkey = SoftwarePasskey.create({ origin: server.origin })
  const proof = await admin.run(startEmailVerification(email))
  await admin.run(confirmEmailVerification({ verificationId: proof.verificationId, code: mailbox.codeFor(email) }))
  const started = ok(await client.enrolmentRequest({ email, emailVerificationId: proof.verificationId }))
  const enrolled = ok(await client.enrolmentVerify({ enrolmentId: started.enrolmentId, credential: passkey.register(started.options) }))
  await admin.run(administerRelyingParty(rp.rp.clientId, { _tag: "SetContact", userId: enrolled.userId }))
  const token = (ok(await signIn(client, passkey, { clientId: rp.rp.clientId })) as TokenAnswer).access_token
  return { rp: rp.rp, client, passkey, userId: enrolled.userId, token }
}

/** One HTTP exchange on `agent`'s connection: status, headers and body text. */
export const exchange = (agent: Agent, url: string, method: string, body?: unknown, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = request(url, { agent, method, headers: { ...headers, ...(payload === undefined ? {} : { "content-type": "application/json" }) } }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        text += chunk
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(payload)
  })
