/**
 * The console's KYC review in a real headless Chromium: two borderline verifications (face match
 * 0.70) go from the queue to approved and to rejected; the RP's verdict read and its `kyc.reviewed`
 * webhook follow each decision; images are shown only through no-store responses; the audit log
 * records who, when and why. axe-core checks every page it visits; screenshots go to artifacts/.
 */
import { administerRelyingParty, configureKyc } from "@signet/core"
import { enrol, ok, signIn, SoftwarePasskey, startWebhookReceiver, type TokenAnswer } from "@signet/testkit"
import { passport, selfie } from "@signet/testkit/kyc"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { seriousViolations } from "./test-support/axe.ts"
import { launchChromium, openPage, requireBrowser } from "./test-support/chromium.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const available = requireBrowser("the console's KYC review")
const ADMIN_TOKEN = "adm_review_0123456789abcdefghijklmnopqrstuvwxyz"
const SHOTS = fileURLToPath(new URL("../../../artifacts/admin-console/", import.meta.url))
type Json = Record<string, unknown>

describe.skipIf(!available)("the console's KYC review in Chromium", () => {
  let env: RunningEngine
  let browser: Browser
  let basic: string
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    ;[env, browser, receiver] = await Promise.all([startEngine({ adminToken: ADMIN_TOKEN }), launchChromium(), startWebhookReceiver()])
    await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
    basic = `Basic ${btoa(`${env.rp.clientId}:${env.rp.clientSecret}`)}`
    // the RP's contact account subscribes to kyc.reviewed at a local receiver
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    const contact = await enrol(env.client, passkey, { email: "kyc-contact@example.com" })
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId: contact.userId }))
    const token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    expect(
      await env.client.raw("POST", "/v2/webhooks/register", {
        body: { url: `${receiver.url}/kyc`, events: ["kyc.reviewed"], secret: "a-plain-secret-of-24-chars" },
        headers: { authorization: `Bearer ${token}` },
      }),
    ).toMatchObject({ status: 200 })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await env?.stop()
    await receiver?.close()
  })

  const rp = (path: string, body: unknown) => env.client.raw<Json>("POST", path, { body, headers: { authorization: basic } })
  /** A customer whose face match is borderline (0.70): the verification waits in needs_review. */
  const borderline = async (customer: string, face: string) => {
    expect((await rp("/kyc/verifications", { customer_id: customer, phone_number: customer })).status).toBe(200)
    expect((await rp("/kyc/customers/document", { customer_id: customer, images: [passport(face)] })).body).toMatchObject({ status: "document_verified" })
    const session = await rp("/kyc/customers/liveness-session", { customer_id: customer })
    const relay = await env.client.raw<Json>("POST", "/kyc/faceapi", {
      body: { frames: [selfie(face, 0.9, 0.7)] },
      headers: { authorization: `Bearer ${session.body["token"] as string}` },
    })
    const judged = await rp("/kyc/customers/face", { customer_id: customer, livenessTransactionId: relay.body["transactionId"] })
    expect(judged.body).toMatchObject({ status: "needs_review", face_match_score: 0.7, reasons: ["face_match_borderline"] })
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, name), fullPage: true })
  const webhookFor = async (customer: string) => {
    await receiver.waitFor((r) => r.some((d) => d.body.includes(customer)))
    return JSON.parse(receiver.received.find((d) => d.body.includes(customer))!.body) as { type: string; data: Json }
  }

  it("approves one needs_review verification and rejects another from the queue; the verdict read and the webhook follow", async () => {
    const first = "+254711000101"
    const second = "+254711000102"
    await borderline(first, "bob")
    await borderline(second, "carol")

    const { context, page, errors } = await openPage(browser, { viewport: { width: 1280, height: 900 } })
    const imageHeaders: Array<Record<string, string>> = []
    page.on("response", (r) => {
      if (r.url().includes("/images/")) imageHeaders.push(r.headers())
    })
    // signing in with the keyboard alone: Tab past the navigation to the token field, type, Enter
    await page.goto(`${env.origin}/api/admin/kyc`)
    for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.id)) !== "token"; i++) await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("token")
    await page.keyboard.type(ADMIN_TOKEN)
    await page.keyboard.press("Tab")
    await page.keyboard.type("Wanjiru Reviewer")
    await page.keyboard.press("Enter")
    const queueRow = (customer: string) => page.locator("#queue tbody tr", { hasText: customer })
    await expect.poll(() => queueRow(first).count()).toBe(1)
    expect(await queueRow(second).count()).toBe(1)
    expect(await queueRow(first).locator("td").nth(3).textContent()).toBe("0.70")
    expect(await seriousViolations(page)).toEqual([])
    await shot(page, "kyc-queue-1280.png")

    for (const [customer, decision, expected] of [
      [first, "Approve", { status: "verified", reasons: [] }],
      [second, "Reject", { status: "failed", reasons: ["review_rejected"] }],
    ] as const) {
      await page.goto(`${env.origin}/api/admin/kyc`)
      await queueRow(customer).getByRole("link").click()
      await page.waitForURL(/\/admin\/kyc\/review\?id=/)
      // the document and the selfie frame, decrypted for this view and drawn in the page
      const images = page.locator("#images img")
      await expect.poll(() => images.count()).toBe(2)
      await expect
        .poll(() => images.evaluateAll((all) => all.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)))
        .toBe(true)
      expect(await page.locator("#v-face").textContent()).toBe("0.70 (verified at ≥ 0.75, review at ≥ 0.65)")
      expect(await page.locator("#fields tbody tr", { hasText: "Customer id" }).locator("td").nth(1).textContent()).toBe(customer)
      expect(await seriousViolations(page)).toEqual([])
      if (decision === "Approve") {
        await shot(page, "kyc-review-1280.png")
        await page.setViewportSize({ width: 390, height: 844 })
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
        expect(await seriousViolations(page)).toEqual([])
        await shot(page, "kyc-review-390.png")
        await page.setViewportSize({ width: 1280, height: 900 })
      }
      await page.fill("#reason", `${decision === "Approve" ? "approved" : "rejected"} after comparing the portrait by eye`)
      await page.getByRole("button", { name: decision }).click()
      await expect.poll(() => page.locator("#result").textContent()).toBe(`Decision recorded: ${expected.status}`)
      await expect.poll(() => page.locator("#v-status").textContent()).toBe(expected.status)

      // what the RP reads and what its webhook receives
      expect((await rp("/kyc/customers/verification", { customer_id: customer })).body).toMatchObject(expected)
      const hook = await webhookFor(customer)
      expect(hook).toMatchObject({ type: "kyc.reviewed", data: { customer_id: customer, decision: decision.toLowerCase(), ...expected } })
    }
    expect(imageHeaders.length).toBeGreaterThanOrEqual(4)
    for (const h of imageHeaders) expect(h["cache-control"]).toBe("no-store")

    // the audit log: who, when, why — and its CSV export
    await page.goto(`${env.origin}/api/admin/audit`)
    await page.fill("#f-action", "admin.kyc-reviewed")
    await page.getByRole("button", { name: "Filter" }).click()
    await expect.poll(() => page.locator("#audit tbody tr").count()).toBe(2)
    expect(await page.locator("#audit tbody").textContent()).toContain("reviewer: Wanjiru Reviewer")
    expect(await page.locator("#audit tbody").textContent()).toContain("reason: rejected after comparing the portrait by eye")
    expect(await seriousViolations(page)).toEqual([])
    await shot(page, "audit-1280.png")
    const csv = await fetch(`${env.origin}/api/admin/api/audit?action=admin.kyc-reviewed&format=csv`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8")
    const text = await csv.text()
    expect(text.split("\r\n")[0]).toBe("at,action,subject,actorUserId,actorClientId,detail")
    expect(text).toContain("approved after comparing the portrait by eye")

    // the audit log and the queue at 390 px: nothing is cut off (tables scroll inside their own box)
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expect(await seriousViolations(page)).toEqual([])
    await shot(page, "audit-390.png")
    await page.goto(`${env.origin}/api/admin/kyc?status=all`)
    await expect.poll(() => queueRow(first).count()).toBe(1)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expect(await seriousViolations(page)).toEqual([])
    await shot(page, "kyc-queue-390.png")
    expect(errors).toEqual([])
    await context.close()
  }, 90_000)
})
