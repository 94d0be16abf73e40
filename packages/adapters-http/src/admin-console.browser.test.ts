/** The administrator console in a real headless Chromium: sign in with the token, approve and suspend an RP, and its `/ssc/token` answer follows. */
import { registerRelyingParty } from "@signet/core"
import type { Browser, Page } from "playwright-core"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchChromium, openPage, requireBrowser } from "./test-support/chromium.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const available = requireBrowser("the administrator console")
const ADMIN_TOKEN = "adm_browser_0123456789abcdefghijklmnopqrstuvwxyz"

describe.skipIf(!available)("administrator console in Chromium", () => {
  let env: RunningEngine
  let browser: Browser

  beforeAll(async () => {
    ;[env, browser] = await Promise.all([startEngine({ adminToken: ADMIN_TOKEN }), launchChromium()])
  })
  afterAll(async () => {
    await browser?.close()
    await env?.stop()
  })

  const sscToken = (clientId: string, sscSecret: string) =>
    env.client.raw<{ error?: string; token?: string }>("POST", "/ssc/token", {
      body: { clientId, clientSecret: sscSecret, documentHash: createHash("sha256").update(`doc ${Math.random()}`).digest("hex"), loa: "LOA-2" },
    })
  const row = (page: Page, clientId: string) => page.locator(`tr[data-client-id="${clientId}"]`)

  it("signs in with the administrator token, approves a pending RP, suspends it, and /ssc/token follows", async () => {
    const pending = await env.engine.run(registerRelyingParty({ name: "Console Co", signingOrigins: [env.origin], requestedPlan: "starter" }))
    const { clientId } = pending.rp
    expect(await sscToken(clientId, pending.sscSecret)).toMatchObject({ status: 403, body: { error: "RP registration not approved. Status: pending" } })

    // the wrong-token attempt below answers 401, which the browser logs as a failed resource
    const { context, page, errors } = await openPage(browser, { counts: (_url, text) => !text.includes("401") })
    const response = await page.goto(`${env.origin}/api/admin`)
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'")

    // a wrong token is refused and the console stays closed
    await page.fill("#token", "not-the-admin-token-not-the-admin-token")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => page.locator("#result").textContent()).toBe("Administrator token required")
    expect(await page.locator("#console").isHidden()).toBe(true)

    await page.fill("#token", ADMIN_TOKEN)
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => row(page, clientId).count()).toBe(1)
    expect(await row(page, clientId).locator(".status").textContent()).toBe("pending")
    expect(await row(page, clientId).locator(".kyc").textContent()).toBe("not verified")
    expect(await row(page, clientId).locator(".usage").textContent()).toBe("0 / 100")

    await row(page, clientId).getByRole("button", { name: "Approve" }).click()
    await expect.poll(() => row(page, clientId).locator(".status").textContent()).toBe("approved")
    expect(await page.locator("#result").textContent()).toBe("Console Co is approved")
    const issued = await sscToken(clientId, pending.sscSecret)
    expect(issued.status).toBe(200)
    expect(typeof issued.body.token).toBe("string")

    // the usage column reads the same counter the signing endpoints count in
    await page.getByRole("button", { name: "Refresh" }).click()
    await expect.poll(() => row(page, clientId).locator(".usage").textContent()).toBe("1 / 100")

    await row(page, clientId).getByRole("button", { name: "Suspend" }).click()
    await expect.poll(() => row(page, clientId).locator(".status").textContent()).toBe("suspended")
    expect(await sscToken(clientId, pending.sscSecret)).toMatchObject({ status: 403, body: { error: "RP registration not approved. Status: suspended" } })
    // a suspended RP offers only Approve (reinstate)
    expect(await row(page, clientId).getByRole("button").allTextContents()).toEqual(["Approve"])

    // the token lives in this tab only: a new tab starts signed out
    const other = await context.newPage()
    await other.goto(`${env.origin}/api/admin`)
    expect(await other.locator("#login").isVisible()).toBe(true)
    expect(errors).toEqual([])
    await context.close()
  }, 60_000)
})
