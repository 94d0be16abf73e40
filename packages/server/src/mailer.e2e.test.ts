/**
 * E-mail ownership over HTTP (issue 13): codes go out through the SMTP adapter to a real SMTP
 * server (`smtp-server`) started here, are read back from what it received, and complete the
 * verification and an enrolment; the sandbox mailbox refuses production; the code's rules.
 */
import { EngineConfig, Mailer } from "@signet/core"
import { enrol, ok, SoftwarePasskey } from "@signet/testkit"
import { ManualClock } from "@signet/testkit/models"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeEngine, SandboxMailbox } from "@signet/adapters-http"
import { MailerSmtp } from "./mailer-smtp.ts"
import { storageFor } from "./storage.ts"
import { startMailCatcher, type MailCatcher } from "../../adapters-http/src/test-support/mail-catcher.ts"
import { startEngine, type RunningEngine } from "../../adapters-http/src/test-support/running-engine.ts"

const settings = (environment: "sandbox" | "production") => ({
  environment,
  publicOrigin: "http://localhost:1",
  basePath: "/api",
  accessTokenTtlSeconds: 3600,
  ceremonyTtlSeconds: 300,
  sessionTtlSeconds: 3600,
})

describe("the SMTP mailer against a real SMTP server", () => {
  let catcher: MailCatcher
  let env: RunningEngine
  beforeAll(async () => {
    catcher = await startMailCatcher({ user: "signet-relay", pass: "p@ss word" })
    env = await startEngine({
      environment: "production",
      mail: { mailer: MailerSmtp({ url: catcher.url, from: "Signet <no-reply@signet.test>", requireTls: false }), codeFor: catcher.codeFor },
    })
  })
  afterAll(async () => {
    await env?.stop()
    await catcher?.close()
  })

  it("a production engine e-mails the code over SMTP (authenticated); the code read from the message proves the address and enrols", async () => {
    const asked = ok(await env.client.enrolmentEmail({ email: "Ada@Example.com" }))
    expect(asked.verificationId).toMatch(/^[0-9a-f-]{36}$/)
    const mail = catcher.caught.at(-1)!
    expect(mail).toMatchObject({ from: "no-reply@signet.test", to: ["ada@example.com"], user: "signet-relay" })
    expect(mail.raw).toMatch(/^Subject: Your Signet code: \d{8}\r?$/m)
    // The code is only in the mailbox: the HTTP answer does not carry it.
    const code = await catcher.codeFor("ada@example.com")
    expect(JSON.stringify(asked)).not.toContain(code)

    const verified = await env.client.enrolmentEmailVerify({ verificationId: asked.verificationId, code })
    expect(verified).toMatchObject({ status: 200, body: { email: "ada@example.com", verified: true } })
    // Used once: the same code again is refused.
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    const started = ok(await env.client.enrolmentRequest({ email: "ada@example.com", emailVerificationId: asked.verificationId }))
    const done = ok(await env.client.enrolmentVerify({ enrolmentId: started.enrolmentId, credential: passkey.register(started.options) }))
    expect(done.email).toBe("ada@example.com")
    expect((await env.client.enrolmentRequest({ email: "ada@example.com", emailVerificationId: asked.verificationId })).status).toBe(403)
  })

  it("the testkit's enrolment flow runs on it unchanged (the client's mailbox reads the SMTP server)", async () => {
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    const enrolled = await enrol(env.client, passkey, { email: "grace@example.com" })
    expect(enrolled.email).toBe("grace@example.com")
    expect(catcher.caught.filter((m) => m.to.includes("grace@example.com"))).toHaveLength(1)
  })

  it("wrong relay credentials, and a relay without TLS when credentials are set, answer 502 without the relay's words", async () => {
    const wrong = await startEngine({
      mail: { mailer: MailerSmtp({ url: catcher.url.replace("p%40ss%20word", "nope"), from: "x@signet.test", requireTls: false }), codeFor: catcher.codeFor },
    })
    // Default requireTls: credentials over smtp:// are sent only after STARTTLS, which this relay does not offer.
    const clear = await startEngine({ mail: { mailer: MailerSmtp({ url: catcher.url, from: "x@signet.test" }), codeFor: catcher.codeFor } })
    try {
      const before = catcher.caught.length
      expect(await wrong.client.enrolmentEmail({ email: "x@example.com" })).toMatchObject({
        status: 502,
        body: { error: "E-mail could not be sent: the mail server refused the engine's credentials" },
      })
      const refused = await clear.client.enrolmentEmail({ email: "x@example.com" })
      expect(refused.status).toBe(502)
      expect(catcher.caught.length).toBe(before)
    } finally {
      await wrong.stop()
      await clear.stop()
    }
  })
})

describe("the sandbox mailbox", () => {
  it("refuses to be made for a production engine, and a production engine without SMTP does not start, saying why", async () => {
    expect(() => new SandboxMailbox("production")).toThrow(/cannot prove anyone's address: a production engine needs SMTP \(set SIGNET_SMTP_URL/)
    const storage = storageFor(join(mkdtempSync(join(tmpdir(), "signet-mail-")), "signet.db")).storage
    await expect(makeEngine({ settings: settings("production"), storage, masterKey: new Uint8Array(32) })).rejects.toThrow(
      /mailer is the sandbox adapter \(set SIGNET_SMTP_URL\)/,
    )
  })

  it("keeps what a sandbox engine sends and prints it through its hook (the demo's console)", async () => {
    const printed: Array<string> = []
    const mailbox = new SandboxMailbox("sandbox", (m) => printed.push(m.subject))
    await Effect.runPromise(
      Effect.flatMap(Mailer, (m) =>
        m.send({ to: "a@example.com", subject: "Your Signet code: 12345678", text: "Your Signet verification code is 12345678" }),
      ).pipe(Effect.provide(Layer.provide(mailbox.layer, Layer.succeed(EngineConfig, settings("sandbox"))))),
    )
    expect(mailbox.codeFor("A@example.com")).toBe("12345678")
    expect(printed).toEqual(["Your Signet code: 12345678"])
  })
})

describe("the code's rules over HTTP", () => {
  const clock = new ManualClock(Date.now())
  let env: RunningEngine
  beforeAll(async () => {
    env = await startEngine({ clock })
  })
  afterAll(async () => env?.stop())

  it("a code expires after 10 minutes", async () => {
    const asked = ok(await env.client.enrolmentEmail({ email: "slow@example.com" }))
    const code = await env.codeFor("slow@example.com")
    clock.now += 10 * 60_000 + 1
    expect(await env.client.enrolmentEmailVerify({ verificationId: asked.verificationId, code })).toMatchObject({
      status: 400,
      body: { error: "E-mail verification code is wrong, used or expired" },
    })
  })

  it("at most 5 codes per address per hour (the mailbox owner is not flooded); the next hour allows more", async () => {
    for (let i = 0; i < 5; i++) expect((await env.client.enrolmentEmail({ email: "flood@example.com" })).status).toBe(200)
    expect(await env.client.enrolmentEmail({ email: "flood@example.com" })).toMatchObject({
      status: 429,
      body: { error: "Too many verification e-mails for this address: at most 5 per hour" },
    })
    clock.now += 3_600_001
    expect((await env.client.enrolmentEmail({ email: "flood@example.com" })).status).toBe(200)
  })
})
