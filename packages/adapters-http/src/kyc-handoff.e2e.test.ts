/** Hosted capture and phone handoff over HTTP (`/kyc/capture/*`, `/kyc/handoff/*`): shapes, capabilities, expiry, limits. */
import { configureKyc } from "@signet/core"
import { passport, selfie } from "@signet/testkit/kyc"
import { ManualClock } from "@signet/testkit/models"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

type Json = Record<string, unknown>

describe("KYC hosted capture and phone handoff over HTTP", () => {
  let env: RunningEngine
  let basic: string
  const clock = new ManualClock(Date.parse("2026-10-01T09:00:00Z"))
  let n = 0
  const phone = () => `+2547${String(44000000 + ++n).padStart(8, "0")}`

  beforeAll(async () => {
    env = await startEngine({ clock })
    await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
    basic = `Basic ${btoa(`${env.rp.clientId}:${env.rp.clientSecret}`)}`
  })
  afterAll(async () => env?.stop())
  beforeEach(() => clock.advance(61_000))

  const rp = (path: string, body: unknown, auth: string | null = basic) =>
    env.client.raw<Json>("POST", path, { body, ...(auth === null ? {} : { headers: { authorization: auth } }) })
  const browser = (method: "GET" | "POST", path: string, body?: unknown, bearer?: string) =>
    env.client.raw<Json>(method, path, {
      ...(body === undefined ? {} : { body }),
      ...(bearer === undefined ? {} : { headers: { authorization: `Bearer ${bearer}` } }),
    })
  const customer = async () => {
    const id = phone()
    expect((await rp("/kyc/verifications", { customer_id: id, phone_number: id })).status).toBe(200)
    return id
  }

  it("handoff: the RP creates it, the phone sends document and face, the desktop polls to verified", async () => {
    const id = await customer()
    expect(await rp("/kyc/handoff", { customer_id: id }, null)).toMatchObject({ status: 401, body: { error: "invalid_client" } })
    expect(await rp("/kyc/handoff", { customer_id: "nobody@example.com" })).toMatchObject({ status: 404, body: { error: "KYC verification not found" } })
    expect(await rp("/kyc/handoff", {})).toMatchObject({ status: 422, body: { error: "customer_id is required" } })

    const created = await rp("/kyc/handoff", { customer_id: id })
    expect(created.status).toBe(200)
    const h = created.body as { handoffId: string; url: string; statusUrl: string; code: string; expiresIn: number; customer_id: string }
    expect(h.handoffId).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(h).toMatchObject({ url: `/api/kyc/handoff/${h.handoffId}`, statusUrl: `/api/kyc/handoff/${h.handoffId}/status`, expiresIn: 600, customer_id: id })
    expect(h.code).toMatch(/^\d{6}$/)

    const pageResponse = await fetch(`${env.origin}${h.url}`)
    expect(pageResponse.status).toBe(200)
    expect(pageResponse.headers.get("content-security-policy")).toContain("script-src 'self'")
    expect(pageResponse.headers.get("referrer-policy")).toBe("no-referrer")
    const html = await pageResponse.text()
    expect(html).toContain(`data-mode="phone"`)
    expect(html).toContain(`Code ${h.code}`)

    const status = () => browser("GET", `/kyc/handoff/${h.handoffId}/status`)
    expect(await status()).toMatchObject({ status: 200, body: { status: "pending", reasons: [], expiresIn: 600, code: h.code } })

    // The phone: the document (answer: status and reasons only, no names or numbers)...
    expect(await browser("POST", `/kyc/handoff/${h.handoffId}/document`, { images: [] })).toMatchObject({
      status: 422,
      body: { error: "At least one document image is required" },
    })
    const doc = await browser("POST", `/kyc/handoff/${h.handoffId}/document`, { images: [passport("alice")] })
    expect(doc).toMatchObject({ status: 200, body: { status: "document_verified", reasons: [] } })
    expect(Object.keys(doc.body).sort()).toEqual(["expiresIn", "reasons", "status"])
    // ... then the face, through the same relay as desktop capture, with the handoff id as the session token.
    const relay = await browser("POST", "/kyc/faceapi", { frames: [selfie("alice", 0.92)] }, h.handoffId)
    expect(relay).toMatchObject({ status: 200, body: { status: "confirmed" } })
    expect(await browser("POST", "/kyc/capture/finish", {}, h.handoffId)).toMatchObject({
      status: 422,
      body: { error: "A liveness transaction id is required" },
    })
    const finished = await browser("POST", "/kyc/capture/finish", { transactionId: relay.body["transactionId"] }, h.handoffId)
    expect(finished).toMatchObject({ status: 200, body: { status: "verified", reasons: [] } })
    expect(await browser("POST", "/kyc/capture/finish", { transactionId: relay.body["transactionId"] }, h.handoffId)).toMatchObject({
      status: 409,
      body: { error: "This verification is already verified" },
    })

    // The desktop's poll, and the RP's full verdict.
    expect(await status()).toMatchObject({ status: 200, body: { status: "verified", reasons: [], code: h.code } })
    expect((await rp("/kyc/customers/verification", { customer_id: id })).body).toMatchObject({
      status: "verified",
      liveness_score: 0.92,
      face_match_score: 0.95,
    })
  })

  it("desktop capture: status and finish with the session token; a transaction of another verification is 404", async () => {
    const a = await customer()
    const b = await customer()
    for (const c of [a, b]) await rp("/kyc/customers/document", { customer_id: c, images: [passport("bob")] })
    const tokenA = (await rp("/kyc/customers/liveness-session", { customer_id: a })).body["token"] as string
    const tokenB = (await rp("/kyc/customers/liveness-session", { customer_id: b })).body["token"] as string
    expect(await browser("GET", "/kyc/capture/status", undefined, tokenA)).toMatchObject({
      status: 200,
      body: { status: "document_verified", reasons: [], expiresIn: 600 },
    })
    expect(await browser("GET", "/kyc/capture/status")).toMatchObject({ status: 404, body: { error: "KYC verification not found" } })
    const txB = (await browser("POST", "/kyc/faceapi", { frames: [selfie("bob")] }, tokenB)).body["transactionId"] as string
    expect(await browser("POST", "/kyc/capture/finish", { transactionId: txB }, tokenA)).toMatchObject({
      status: 404,
      body: { error: "KYC verification not found" },
    })
    const spoof = (await browser("POST", "/kyc/faceapi", { frames: [selfie("bob", 0.3)] }, tokenA)).body["transactionId"] as string
    expect(await browser("POST", "/kyc/capture/finish", { transactionId: spoof }, tokenA)).toMatchObject({
      status: 200,
      body: { status: "failed", reasons: ["liveness_failed"] },
    })
    expect(await browser("GET", "/kyc/capture/status", undefined, tokenA)).toMatchObject({
      status: 200,
      body: { status: "failed", reasons: ["liveness_failed"] },
    })
    expect((await browser("POST", "/kyc/capture/finish", { transactionId: txB }, tokenB)).body).toMatchObject({ status: "verified" })

    const page = await fetch(`${env.origin}/api/kyc/capture`)
    expect(page.status).toBe(200)
    expect(page.headers.get("permissions-policy")).toContain("camera=(self)")
    expect(await page.text()).toContain(`data-mode="desktop"`)
    const script = await fetch(`${env.origin}/api/kyc/capture.js`)
    expect(script.headers.get("content-type")).toContain("text/javascript")
    expect(await script.text()).toContain(`toDataURL("image/jpeg", JPEG_QUALITY)`)
  })

  it("a handoff ends when it expires (600 s) or a newer session replaces it", async () => {
    const id = await customer()
    const first = (await rp("/kyc/handoff", { customer_id: id })).body["handoffId"] as string
    const second = (await rp("/kyc/handoff", { customer_id: id })).body["handoffId"] as string
    expect(await browser("GET", `/kyc/handoff/${first}/status`)).toMatchObject({ status: 404, body: { error: "KYC verification not found" } })
    const expired = await fetch(`${env.origin}/api/kyc/handoff/${first}`)
    expect(expired.status).toBe(404)
    expect(await expired.text()).toContain("Link expired")
    expect((await browser("GET", `/kyc/handoff/${second}/status`)).status).toBe(200)
    // A liveness session opened for the desktop replaces the handoff too (one capture channel at a time).
    await rp("/kyc/customers/liveness-session", { customer_id: id })
    expect((await browser("GET", `/kyc/handoff/${second}/status`)).status).toBe(404)
    const third = (await rp("/kyc/handoff", { customer_id: id })).body["handoffId"] as string
    clock.advance(599_000)
    expect(await browser("GET", `/kyc/handoff/${third}/status`)).toMatchObject({ status: 200, body: { expiresIn: 1 } })
    clock.advance(1_000)
    expect(await browser("GET", `/kyc/handoff/${third}/status`)).toMatchObject({ status: 404, body: { error: "KYC verification not found" } })
    expect(await browser("POST", `/kyc/handoff/${third}/document`, { images: [passport()] })).toMatchObject({
      status: 404,
      body: { error: "KYC verification not found" },
    })
  })

  it("limits: handoff creation 20 per minute per IP; the phone side and the capture relay share one 120", async () => {
    const creations: Array<number> = []
    for (let i = 0; i < 21; i++) creations.push((await rp("/kyc/handoff", { customer_id: "nobody@example.com" })).status)
    expect(creations.slice(0, 20).every((s) => s === 404)).toBe(true)
    expect(await rp("/kyc/handoff", { customer_id: "nobody@example.com" })).toMatchObject({
      status: 429,
      body: { error: "Rate limit exceeded. Please try again later." },
    })

    clock.advance(61_000)
    const polls: Array<number> = []
    for (let i = 0; i < 121; i++) polls.push((await browser("GET", "/kyc/handoff/unknown/status")).status)
    expect(polls.slice(0, 120).every((s) => s === 404)).toBe(true)
    expect(polls[120]).toBe(429)
    expect((await fetch(`${env.origin}/api/kyc/handoff/unknown`)).status).toBe(429)
    // the spec's one row "KYC capture relay and phone handoff": the relay's status is the same counter
    expect((await browser("GET", "/kyc/capture/status", undefined, "unknown")).status).toBe(429)

    clock.advance(61_000)
    const statuses: Array<number> = []
    for (let i = 0; i < 121; i++) statuses.push((await browser("GET", "/kyc/capture/status", undefined, "unknown")).status)
    expect(statuses.slice(0, 120).every((s) => s === 404)).toBe(true)
    expect(statuses[120]).toBe(429)
  }, 60_000)
})
