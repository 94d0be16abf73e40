/** Webhooks over HTTP: registration rules, the address guard, retries until delivered, Standard Webhooks signatures, callbacks. */
import { administerRelyingParty, registerRelyingParty, WebhookSubscriptions } from "@signet/core"
import { Effect, Option } from "effect"
import { enrol, ok, signIn, SoftwarePasskey, startWebhookReceiver, verifyWebhook, type TokenAnswer } from "@signet/testkit"
import { createHash, createHmac, randomBytes } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ManualClock } from "@signet/testkit/models"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex")
const secret = () => `whsec_${randomBytes(32).toString("base64")}`

/** An RP whose contact account is a freshly enrolled user; answers that user's token and passkey. */
const contactFor = async (env: RunningEngine, email: string, clientId = env.rp.clientId) => {
  const passkey = SoftwarePasskey.create({ origin: env.origin })
  const enrolled = await enrol(env.client, passkey, { email })
  await env.engine.run(administerRelyingParty(clientId, { _tag: "SetContact", userId: enrolled.userId }))
  const token = (ok(await signIn(env.client, passkey, { clientId })) as TokenAnswer).access_token
  return { token, passkey, userId: enrolled.userId }
}

describe("webhook registration", () => {
  let env: RunningEngine
  let contact: Awaited<ReturnType<typeof contactFor>>
  // Registration is limited to 10 a minute: this suite's clock moves a minute before each call
  // (the limit itself is tested with `registerNow`).
  const clock = new ManualClock(Date.now())
  beforeAll(async () => {
    // No development switch here: loopback addresses are refused like any other internal one.
    env = await startEngine({ clock, deliveries: { allowLoopbackHttp: false, worker: false } })
    contact = await contactFor(env, "contact@example.com")
  })
  afterAll(async () => env?.stop())
  const registerNow = (body: unknown, token = contact.token) =>
    env.client.raw("POST", "/v2/webhooks/register", { body, headers: { authorization: `Bearer ${token}` } })
  const register = (body: unknown, token = contact.token) => {
    clock.advance(60_000)
    return registerNow(body, token)
  }

  it("registers, lists with the spec's fields and deletes a subscription", async () => {
    const whsec = secret()
    const created = await register({ url: "https://hooks.rp.example/signet", events: ["sign.complete", "batch.complete"], secret: whsec })
    expect(created.status).toBe(200)
    const { subscriptionId, status } = created.body as { subscriptionId: number; status: string }
    // the secret is stored sealed under the master key, never in the clear
    const stored = await env.engine.run(Effect.flatMap(WebhookSubscriptions, (s) => s.findById(subscriptionId)))
    expect(Option.getOrThrow(stored).secret).toMatch(/^sealed:v2:/)
    expect(Option.getOrThrow(stored).secret).not.toContain(whsec.slice(6, 30))
    expect(Number.isInteger(subscriptionId)).toBe(true)
    expect(status).toBe("active")
    const list = ok(await env.client.raw<Array<Record<string, unknown>>>("GET", "/v2/webhooks", { headers: { authorization: `Bearer ${contact.token}` } }))
    const item = list.find((s) => s["id"] === subscriptionId)!
    expect(Object.keys(item).sort()).toEqual(["active", "created_at", "events", "id", "rp_id", "url"])
    expect(item).toMatchObject({ url: "https://hooks.rp.example/signet", events: ["sign.complete", "batch.complete"], active: true })
    expect(item["created_at"]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
    expect(typeof item["rp_id"]).toBe("number")
    expect(await env.client.raw("DELETE", `/v2/webhooks/${subscriptionId}`, { headers: { authorization: `Bearer ${contact.token}` } })).toMatchObject({
      status: 200,
      body: { deleted: true },
    })
    expect(await env.client.raw("DELETE", `/v2/webhooks/${subscriptionId}`, { headers: { authorization: `Bearer ${contact.token}` } })).toMatchObject({
      status: 404,
      body: { error: "Webhook subscription not found" },
    })
  })

  it("only the RP contact account manages webhooks; another account's subscription is not deleted", async () => {
    const stranger = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, stranger, { email: "stranger@example.com" })
    const strangerToken = (ok(await signIn(env.client, stranger, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    expect(await register({ url: "https://hooks.rp.example/x", events: ["sign.complete"], secret: secret() }, strangerToken)).toMatchObject({
      status: 403,
      body: { error: "Only the RP contact account can manage webhooks" },
    })
    expect(await env.client.raw("POST", "/v2/webhooks/register", { body: {} })).toMatchObject({ status: 401, body: { error: "Missing Authorization header" } })
    // another RP with its own contact account owns a subscription
    const other = await env.engine.run(registerRelyingParty({ name: "Other RP", status: "approved", signingOrigins: [env.origin] }))
    const otherContact = await contactFor(env, "other-contact@example.com", other.rp.clientId)
    const theirs = ok(await register({ url: "https://hooks.other.example/", events: ["sign.complete"], secret: secret() }, otherContact.token)) as {
      subscriptionId: number
    }
    expect(await env.client.raw("DELETE", `/v2/webhooks/${theirs.subscriptionId}`, { headers: { authorization: `Bearer ${contact.token}` } })).toMatchObject({
      status: 200,
      body: { deleted: false },
    })
  })

  it.each([
    "http://hooks.rp.example/",
    "https://127.0.0.1/",
    "https://10.0.0.8/hook",
    "https://169.254.169.254/latest/meta-data/",
    "https://[::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:10.1.2.3]/",
    "https://localhost/",
    "https://192.168.0.10/",
    "https://172.20.1.1/",
    "https://metadata.google.internal/",
    "not-a-url",
    // issue 13 item 15: classes and spellings the hand-kept list missed
    "https://localhost./",
    "https://metadata.google.internal./",
    "https://LOCALHOST/",
    "https://[2002:7f00:1::1]/",
    "https://[2002:a9fe:a9fe::]/",
    "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
    "https://[fec0::1]/",
    "https://[64:ff9b:1::a9fe:a9fe]/",
    "https://[64:ff9b::7f00:1]/",
    "https://127.0.0.1./",
    "https://0x7f.1/",
    "https://metadata.google.internal\u3002/",
  ])("refuses %s with a clear 400", async (url) => {
    const r = await register({ url, events: ["sign.complete"], secret: secret() })
    expect(r.status).toBe(400)
    expect((r.body as { error: string }).error).toMatch(/^url .*: webhooks go to public https URLs$/)
  })

  it("without the development switch a loopback callbackUrl is refused at creation, as at delivery (issue 13 item 15)", async () => {
    for (const callbackUrl of [
      "https://localhost./cb",
      "https://LocalHost/cb",
      "http://127.0.0.1:9/cb",
      "https://[::ffff:127.0.0.1]/cb",
      "https://[2002:7f00:1::]/cb",
    ]) {
      const r = await env.client.raw<{ error: string }>("POST", "/v2/sign/single", {
        headers: { authorization: `Bearer ${contact.token}` },
        body: { documentHash: "cd".repeat(32), credentialId: contact.passkey.credentialId, callbackUrl },
      })
      expect([callbackUrl, r.status]).toEqual([callbackUrl, 400])
      expect(r.body.error).toMatch(/^callbackUrl (points at a|must be an https URL)/)
    }
  })

  it("refuses unknown events and a secret that is neither the caller's own (16+ printable characters) nor a Standard Webhooks secret", async () => {
    expect(await register({ url: "https://hooks.rp.example/", events: ["sign.started"], secret: secret() })).toMatchObject({
      status: 400,
      body: { error: "events must list one or more of sign.complete, batch.complete, kyc.reviewed" },
    })
    expect(await register({ url: "https://hooks.rp.example/", events: [], secret: secret() })).toMatchObject({ status: 400 })
    expect(await register({ url: "https://hooks.rp.example/", events: ["sign.complete"], secret: "hunter2" })).toMatchObject({
      status: 400,
      body: {
        error:
          "secret must be 16 to 256 printable characters of your choice, or a Standard Webhooks secret (whsec_ followed by base64 of 24 to 64 random bytes)",
      },
    })
    for (const bad of ["whsec_not base64!", `whsec_${randomBytes(8).toString("base64")}`, "tab\tin-the-middle-of-it", "x".repeat(257)]) {
      expect(await register({ url: "https://hooks.rp.example/", events: ["sign.complete"], secret: bad })).toMatchObject({ status: 400 })
    }
  })

  it("limits registration to 10 per minute per user", async () => {
    const limited = await contactFor(
      env,
      "busy-contact@example.com",
      (await env.engine.run(registerRelyingParty({ name: "Busy RP", status: "approved", signingOrigins: [env.origin] }))).rp.clientId,
    )
    clock.advance(60_000)
    for (let i = 0; i < 10; i++)
      expect((await registerNow({ url: "https://hooks.rp.example/", events: ["sign.complete"], secret: secret() }, limited.token)).status).toBe(200)
    expect(await registerNow({ url: "https://hooks.rp.example/", events: ["sign.complete"], secret: secret() }, limited.token)).toMatchObject({
      status: 429,
      body: { error: "Rate limit exceeded. Please try again later." },
    })
  })

  it("limits listing to 30 and deleting to 20 per minute per user", async () => {
    const auth = { authorization: `Bearer ${contact.token}` }
    clock.advance(60_000)
    for (let i = 0; i < 30; i++) expect((await env.client.raw("GET", "/v2/webhooks", { headers: auth })).status).toBe(200)
    expect(await env.client.raw("GET", "/v2/webhooks", { headers: auth })).toMatchObject({
      status: 429,
      body: { error: "Rate limit exceeded. Please try again later." },
    })
    for (let i = 0; i < 20; i++) expect((await env.client.raw("DELETE", "/v2/webhooks/999999", { headers: auth })).status).toBe(404)
    expect(await env.client.raw("DELETE", "/v2/webhooks/999999", { headers: auth })).toMatchObject({
      status: 429,
      body: { error: "Rate limit exceeded. Please try again later." },
    })
  })
})

describe("webhook and callback delivery", () => {
  let env: RunningEngine
  beforeAll(async () => {
    env = await startEngine()
  })
  afterAll(async () => env?.stop())

  it("retries a failing receiver until it takes the delivery, which standardwebhooks verifies; the attempts are readable", async () => {
    const receiver = await startWebhookReceiver((n) => (n <= 3 ? 500 : 200))
    const callback = await startWebhookReceiver()
    try {
      const contact = await contactFor(env, "hooks@example.com")
      const whsec = secret()
      const { subscriptionId } = ok(
        await env.client.raw<{ subscriptionId: number }>("POST", "/v2/webhooks/register", {
          headers: { authorization: `Bearer ${contact.token}` },
          body: { url: `${receiver.url}/signet`, events: ["sign.complete"], secret: whsec },
        }),
      )
      const hash = sha256(randomBytes(8))
      const pending = ok(
        await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
          headers: { authorization: `Bearer ${contact.token}` },
          body: { documentHash: hash, credentialId: contact.passkey.credentialId, callbackUrl: `${callback.url}/done` },
        }),
      )
      ok(
        await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
          body: { assertion: contact.passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
        }),
      )

      await receiver.waitFor((r) => r.some((d) => d.answeredWith === 200), 15_000)
      expect(receiver.received.map((d) => d.answeredWith)).toEqual([500, 500, 500, 200])
      const ids = new Set(receiver.received.map((d) => d.headers["webhook-id"]))
      expect(ids.size).toBe(1)
      const delivered = receiver.received.at(-1)!
      const headers = {
        "webhook-id": delivered.headers["webhook-id"]!,
        "webhook-timestamp": delivered.headers["webhook-timestamp"]!,
        "webhook-signature": delivered.headers["webhook-signature"]!,
      }
      const payload = new Webhook(whsec).verify(delivered.body, headers) as { type: string; data: Record<string, unknown> }
      expect(payload.type).toBe("sign.complete")
      expect(payload.data).toMatchObject({ requestId: pending.requestId, status: "completed", documentHash: hash, loa: "LOA-2" })
      expect(typeof payload.data["signature"]).toBe("string")
      const tampered = delivered.body.replace(/"completed"/, '"Completed"')
      expect(() => new Webhook(whsec).verify(tampered, headers)).toThrow()
      expect(verifyWebhook(whsec, headers, delivered.body)).toEqual(payload)
      expect(() => verifyWebhook(whsec, headers, delivered.body, { nowSeconds: Number(headers["webhook-timestamp"]) + 3600 })).toThrow(/tolerance/)

      await callback.waitFor((r) => r.length === 1)
      expect(callback.received[0]!.path).toBe("/done")
      expect(JSON.parse(callback.received[0]!.body)).toMatchObject({ type: "sign.complete", data: { requestId: pending.requestId, status: "completed" } })

      const log = ok(
        await env.client.raw<Array<{ kind: string; status: string; attempts: number; attemptLog: Array<{ statusCode: number | null; error: string | null }> }>>(
          "GET",
          `/v2/deliveries?subscriptionId=${subscriptionId}`,
          { headers: { authorization: `Bearer ${contact.token}` } },
        ),
      )
      expect(log).toHaveLength(1)
      expect(log[0]).toMatchObject({ kind: "webhook", status: "delivered", attempts: 4 })
      expect(log[0]!.attemptLog.map((a) => a.statusCode)).toEqual([500, 500, 500, 200])
      expect(log[0]!.attemptLog[0]!.error).toBe("receiver answered 500")
      const all = ok(await env.client.raw<Array<{ kind: string }>>("GET", "/v2/deliveries", { headers: { authorization: `Bearer ${contact.token}` } }))
      expect(all.map((d) => d.kind).sort()).toEqual(["callback", "webhook"])
    } finally {
      await receiver.close()
      await callback.close()
    }
  }, 30_000)

  it("a caller-chosen secret is the HMAC key as its UTF-8 bytes, even when it happens to be valid base64 (spec: chosen by the caller)", async () => {
    const receiver = await startWebhookReceiver()
    try {
      const contact = await contactFor(env, "own-secret@example.com")
      // 32 characters of valid base64: the old reading decoded it to 24 bytes, so a receiver keyed with the string never verified
      const chosen = "CorrectHorseBatteryStaple0123456"
      ok(
        await env.client.raw("POST", "/v2/webhooks/register", {
          headers: { authorization: `Bearer ${contact.token}` },
          body: { url: `${receiver.url}/own`, events: ["sign.complete"], secret: chosen },
        }),
      )
      const pending = ok(
        await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
          headers: { authorization: `Bearer ${contact.token}` },
          body: { documentHash: sha256(randomBytes(8)), credentialId: contact.passkey.credentialId },
        }),
      )
      ok(
        await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
          body: { assertion: contact.passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
        }),
      )
      await receiver.waitFor((r) => r.length === 1, 15_000)
      const d = receiver.received[0]!
      // the receiver's own check, with the string it chose: HMAC-SHA256 over id.timestamp.body (Standard Webhooks signing scheme)
      const expected = createHmac("sha256", Buffer.from(chosen, "utf8"))
        .update(`${d.headers["webhook-id"]}.${d.headers["webhook-timestamp"]}.${d.body}`)
        .digest("base64")
      expect(d.headers["webhook-signature"]!.split(" ")).toContain(`v1,${expected}`)
      const decodedKey = createHmac("sha256", Buffer.from(chosen, "base64"))
        .update(`${d.headers["webhook-id"]}.${d.headers["webhook-timestamp"]}.${d.body}`)
        .digest("base64")
      expect(d.headers["webhook-signature"]).not.toContain(decodedKey)
    } finally {
      await receiver.close()
    }
  }, 30_000)

  it("a batch completion goes to batch.complete subscribers only", async () => {
    const signOnly = await startWebhookReceiver()
    const batchOnly = await startWebhookReceiver()
    try {
      const rp = await env.engine.run(registerRelyingParty({ name: "Batch RP", status: "approved", signingOrigins: [env.origin] }))
      const contact = await contactFor(env, "batch-hooks@example.com", rp.rp.clientId)
      const headers = { authorization: `Bearer ${contact.token}` }
      ok(await env.client.raw("POST", "/v2/webhooks/register", { headers, body: { url: signOnly.url, events: ["sign.complete"], secret: secret() } }))
      ok(await env.client.raw("POST", "/v2/webhooks/register", { headers, body: { url: batchOnly.url, events: ["batch.complete"], secret: secret() } }))
      const batch = ok(
        await env.client.raw<{ batchId: string; challenge: string }>("POST", "/v2/sign/batch", {
          headers,
          body: { credentialId: contact.passkey.credentialId, documents: [{ id: "x", hash: sha256(randomBytes(4)), hash_algo: "2.16.840.1.101.3.4.2.1" }] },
        }),
      )
      ok(
        await env.client.raw("POST", `/v2/sign/batch/${batch.batchId}/auth`, {
          body: { assertion: contact.passkey.assert({ challenge: batch.challenge }, { includeUserHandle: false }) },
        }),
      )
      await batchOnly.waitFor((r) => r.length === 1)
      expect(JSON.parse(batchOnly.received[0]!.body)).toMatchObject({ type: "batch.complete", data: { batchId: batch.batchId, status: "completed" } })
      await new Promise((r) => setTimeout(r, 300))
      expect(signOnly.received).toHaveLength(0)
    } finally {
      await signOnly.close()
      await batchOnly.close()
    }
  })
})
