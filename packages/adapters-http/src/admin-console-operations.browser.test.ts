/**
 * The console's operator pages in a real headless Chromium, on a test clock: an RP's detail page
 * rotates its SSC secret (shown once, and it works), edits its signing origins and redirect URIs,
 * and retries a failed webhook delivery that then reaches a local receiver; the usage page charts
 * the signatures made over three simulated days with the numbers `/rp/usage` gave each day; the
 * certificates page finds the signer's certificate and revokes it with a reason. axe-core checks
 * every page at 1280 px and 390 px; screenshots go to artifacts/admin-console/.
 */
import { administerRelyingParty, configureKyc } from "@signet/core"
import { enrol, ok, signIn, SoftwarePasskey, startWebhookReceiver, type TokenAnswer } from "@signet/testkit"
import { passport, selfie } from "@signet/testkit/kyc"
import { ManualClock } from "@signet/testkit/models"
import { createHash, randomBytes } from "node:crypto"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { seriousViolations } from "./test-support/axe.ts"
import { launchChromium, openPage, requireBrowser } from "./test-support/chromium.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const available = requireBrowser("the console's operator pages")
const ADMIN_TOKEN = "adm_operations_0123456789abcdefghijklmnopqrstuvwxyz"
const SHOTS = fileURLToPath(new URL("../../../artifacts/admin-console/", import.meta.url))
const DAY = 86_400_000
type Json = Record<string, unknown>

describe.skipIf(!available)("the console's operator pages in Chromium", () => {
  // the test clock starts when the engine does; the test then lives through two more simulated days
  let clock: ManualClock
  let env: RunningEngine
  let browser: Browser
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
  let passkey: SoftwarePasskey
  let userId: string
  let token: string

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    clock = new ManualClock(Date.now())
    ;[env, browser, receiver] = await Promise.all([
      // one attempt per delivery: the receiver's first answer (500) fails it for good, until the console retries it
      startEngine({ clock, adminToken: ADMIN_TOKEN, deliveries: { allowLoopbackHttp: true, maxAttempts: 1, baseDelayMs: 200 } }),
      launchChromium(),
      startWebhookReceiver((n) => (n === 1 ? 500 : 200)),
    ])
    await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
    passkey = SoftwarePasskey.create({ origin: env.origin })
    userId = (await enrol(env.client, passkey, { email: "operator-contact@example.com" })).userId
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId }))
    await signInAgain()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await env?.stop()
    await receiver?.close()
  })

  const bearer = () => ({ authorization: `Bearer ${token}` })
  // an access token lives less than a simulated day: the contact signs in again each morning
  const signInAgain = async () => {
    token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
  }
  const admin = <T = Json>(path: string) =>
    env.client.raw<T>("GET", `/admin/api${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((a) => a.body)
  const sign = async () => {
    clock.advance(61_000) // a fresh per-minute window
    const pending = ok(
      await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        headers: bearer(),
        body: { documentHash: createHash("sha256").update(randomBytes(16)).digest("hex"), credentialId: passkey.credentialId },
      }),
    )
    ok(
      await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
        body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
      }),
    )
  }
  const usageToday = async () =>
    ok(await env.client.raw<{ day: string; signaturesToday: number }>("GET", `/rp/usage/${env.rp.clientId}`, { headers: bearer() }))
  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, name), fullPage: true })
  const signInAt = async (page: Page, path: string) => {
    await page.goto(`${env.origin}/api${path}`)
    await page.fill("#token", ADMIN_TOKEN)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.locator("#console").waitFor({ state: "visible" })
  }
  const checkAt390 = async (page: Page, name: string) => {
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expect(await seriousViolations(page)).toEqual([])
    await shot(page, `${name}-390.png`)
    await page.setViewportSize({ width: 1280, height: 900 })
  }

  it("charts the signatures of three simulated days with the numbers /rp/usage gave, and a quota refusal", async () => {
    const seen: Record<string, number> = {}
    for (const count of [2, 3, 1]) {
      for (let i = 0; i < count; i++) await sign()
      const u = await usageToday()
      seen[u.day] = u.signaturesToday
      if (count !== 1) {
        clock.advance(DAY)
        await signInAgain()
      }
    }
    expect(Object.values(seen)).toEqual([2, 3, 1])
    // today's allowance cut to one: the next signature is refused and counted as such
    await env.engine.run(
      administerRelyingParty(env.rp.clientId, {
        _tag: "SetCustomAllowance",
        allowance: { signaturesPerDay: 1, documentsPerBatch: 10, requestsPerMinute: 60, highestLoa: "LOA-2" },
      }),
    )
    clock.advance(61_000)
    const refused = await env.client.raw<Json>("POST", "/v2/sign/single", {
      headers: bearer(),
      body: { documentHash: createHash("sha256").update("refused").digest("hex"), credentialId: passkey.credentialId },
    })
    expect(refused.status).toBe(429)
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetCustomAllowance", allowance: null }))

    const { context, page, errors } = await openPage(browser, { viewport: { width: 1280, height: 900 } })
    await signInAt(page, `/admin/usage?clientId=${env.rp.clientId}`)
    await expect.poll(() => page.locator("#usage-table tbody tr").count()).toBe(30)
    for (const [day, n] of Object.entries(seen)) {
      expect(await page.locator(`#usage-table tr[data-day="${day}"] .signatures`).textContent()).toBe(String(n))
    }
    const today = Object.keys(seen)[2]!
    expect(await page.locator(`#usage-table tr[data-day="${today}"] .refusals`).textContent()).toBe("1")
    const charts = page.locator("#charts img")
    expect(await charts.count()).toBe(3)
    await expect
      .poll(() => charts.evaluateAll((all) => all.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)))
      .toBe(true)
    // the chart draws the same numbers: each day's bar is labelled with its count
    const svg = ((await admin<{ charts: { signatures: string } }>(`/relying-parties/${env.rp.clientId}/usage`)) as { charts: { signatures: string } }).charts
      .signatures
    for (const [day, n] of Object.entries(seen)) expect(svg).toContain(`<title>${day.slice(5)}: ${n}</title>`)
    expect(await seriousViolations(page)).toEqual([])
    await shot(page, "usage-1280.png")
    await checkAt390(page, "usage")

    // the signer's certificate: found by holder, revoked with a reason
    await page.goto(`${env.origin}/api/admin/certificates`)
    await page.fill("#holder", userId)
    await page.getByRole("button", { name: "Search" }).click()
    await expect.poll(() => page.locator("#certs tbody tr").count()).toBeGreaterThan(0)
    expect(await seriousViolations(page)).toEqual([])
    await shot(page, "certificates-1280.png")
    page.once("dialog", (d) => void d.accept("keyCompromise"))
    await page.locator("#certs tbody tr").first().getByRole("button", { name: "Revoke" }).click()
    await expect.poll(() => page.locator("#certs tbody tr").first().locator("td").nth(3).textContent()).toBe("revoked (keyCompromise)")
    await checkAt390(page, "certificates")
    expect(errors).toEqual([])
    await context.close()
  }, 90_000)

  it("rotates the SSC secret, edits origins and redirect URIs, and retries a failed delivery that then arrives", async () => {
    // a kyc.reviewed delivery that fails: the receiver answers 500 to its first request
    const rp = (path: string, body: unknown, auth = `Basic ${btoa(`${env.rp.clientId}:${env.rp.clientSecret}`)}`) =>
      env.client.raw<Json>("POST", path, { body, headers: { authorization: auth } })
    clock.advance(61_000)
    expect(
      (
        await env.client.raw("POST", "/v2/webhooks/register", {
          body: { url: `${receiver.url}/hooks`, events: ["kyc.reviewed"], secret: "another-plain-secret-24ch" },
          headers: bearer(),
        })
      ).status,
    ).toBe(200)
    const customer = "+254722000301"
    await rp("/kyc/verifications", { customer_id: customer, phone_number: customer })
    await rp("/kyc/customers/document", { customer_id: customer, images: [passport("dave")] })
    const session = await rp("/kyc/customers/liveness-session", { customer_id: customer })
    const relay = await rp("/kyc/faceapi", { frames: [selfie("dave", 0.9, 0.7)] }, `Bearer ${session.body["token"] as string}`)
    await rp("/kyc/customers/face", { customer_id: customer, livenessTransactionId: relay.body["transactionId"] })
    expect((await rp("/kyc/customers/review", { customer_id: customer, decision: "approve" })).body).toMatchObject({ status: "verified" })
    await receiver.waitFor((r) => r.length === 1)
    type Hooks = { deliveries: Array<{ id: number; status: string }> }
    await expect.poll(async () => (await admin<Hooks>(`/relying-parties/${env.rp.clientId}/webhooks`)).deliveries[0]?.status).toBe("failed")

    const { context, page, errors } = await openPage(browser, { viewport: { width: 1280, height: 900 } })
    await signInAt(page, "/admin")
    await expect.poll(() => page.locator(`tr[data-client-id="${env.rp.clientId}"]`).count()).toBe(1)
    expect(await seriousViolations(page)).toEqual([])
    await shot(page, "relying-parties-1280.png")
    await checkAt390(page, "relying-parties")
    await page.locator(`tr[data-client-id="${env.rp.clientId}"]`).getByRole("link").click()
    await page.waitForURL(/\/admin\/rp\?clientId=/)
    const delivery = page.locator("#deliveries tbody tr").first()
    await expect.poll(() => delivery.locator(".delivery-status").textContent()).toBe("failed")
    expect(await seriousViolations(page)).toEqual([])
    await shot(page, "relying-party-1280.png")

    // the SSC secret: rotated, shown once, and it works at /ssc/token
    page.once("dialog", (d) => void d.accept())
    await page.getByRole("button", { name: "Rotate SSC secret" }).click()
    await page.locator("#new-secret").waitFor({ state: "visible" })
    const secret = (await page.locator("#new-secret-value").textContent()) ?? ""
    expect(secret.length).toBeGreaterThan(20)
    clock.advance(61_000)
    const issued = await env.client.raw<Json>("POST", "/ssc/token", {
      body: { clientId: env.rp.clientId, clientSecret: secret, documentHash: createHash("sha256").update("ssc").digest("hex"), loa: "LOA-2" },
    })
    expect(issued.status).toBe(200)

    // origins and redirect URIs
    await page.fill("#origins", `${env.origin}\nhttps://shop.example`)
    await page.fill("#redirects", "https://shop.example/callback\nhttps://shop.example/return")
    await page.getByRole("button", { name: "Save settings" }).click()
    await expect.poll(() => page.locator("#result").textContent()).toBe("Settings saved")
    expect(await admin(`/relying-parties/${env.rp.clientId}`)).toMatchObject({
      signingOrigins: [env.origin, "https://shop.example"],
      redirectUris: ["https://shop.example/callback", "https://shop.example/return"],
    })

    // the failed delivery, retried: the receiver gets it (200) and the log says delivered
    await delivery.getByRole("button", { name: "Retry" }).click()
    await receiver.waitFor((r) => r.length === 2)
    expect(receiver.received[1]!.headers["webhook-id"]).toBe(receiver.received[0]!.headers["webhook-id"])
    expect(JSON.parse(receiver.received[1]!.body)).toMatchObject({ type: "kyc.reviewed", data: { customer_id: customer, status: "verified" } })
    await expect.poll(async () => (await admin<Hooks>(`/relying-parties/${env.rp.clientId}/webhooks`)).deliveries[0]?.status).toBe("delivered")
    await page.reload()
    await expect.poll(() => delivery.locator(".delivery-status").textContent()).toBe("delivered")
    await checkAt390(page, "relying-party")
    expect(errors).toEqual([])
    await context.close()
  }, 90_000)
})
