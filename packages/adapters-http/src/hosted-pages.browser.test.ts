/** The hosted passkey pages in a real headless Chromium with a CDP WebAuthn virtual authenticator. */
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { addVirtualAuthenticator, launchChromium, openPage, requireBrowser } from "./test-support/chromium.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const available = requireBrowser("the hosted pages")

describe.skipIf(!available)("hosted passkey pages in Chromium", () => {
  let env: RunningEngine
  let browser: Browser
  const contexts: BrowserContext[] = []

  beforeAll(async () => {
    ;[env, browser] = await Promise.all([startEngine(), launchChromium()])
  })
  afterAll(async () => {
    await browser?.close()
    await env?.stop()
  })
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()))
  })

  /**
   * A fresh browser profile with a passkey authenticator; collects console errors and uncaught page errors.
   * The browser's automatic `/favicon.ico` probe is ignored: the origin root is not Signet's (it is mounted at `/api`).
   */
  const openBrowser = async () => {
    const { context, page, errors } = await openPage(browser)
    contexts.push(context)
    await addVirtualAuthenticator(page)
    return { page, errors }
  }

  /** Waits until the page reports an outcome in `#result` and returns its text and class. */
  const outcome = async (page: Page) => {
    const result = page.locator("#result")
    await expect.poll(() => result.getAttribute("class"), { timeout: 10_000 }).toMatch(/^(ok|err)$/)
    return { text: (await result.textContent()) ?? "", className: (await result.getAttribute("class")) ?? "" }
  }

  const enrolThroughPage = async (page: Page, email: string, name: string) => {
    await page.goto(`${env.origin}/api/enrol`)
    await page.fill("#email", email)
    await page.fill("#displayName", name)
    await page.getByRole("button", { name: "Create passkey" }).click()
    // The page asks for the code sent to the address (the sandbox mailbox holds it), then creates the passkey.
    await page.locator("#code").waitFor({ state: "visible", timeout: 10_000 })
    expect(await page.textContent("#result")).toBe(`We sent a code to ${email}. Enter it, then press Create passkey again.`)
    await page.fill("#code", await env.codeFor(email))
    await page.getByRole("button", { name: "Create passkey" }).click()
    return outcome(page)
  }

  const signInThroughPage = async (page: Page, clientId: string, email?: string) => {
    await page.goto(`${env.origin}/api/signin?client_id=${encodeURIComponent(clientId)}`)
    expect(await page.inputValue("#clientId")).toBe(clientId)
    if (email !== undefined) await page.fill("#email", email)
    await page.getByRole("button", { name: "Sign in" }).click()
    return outcome(page)
  }

  it("a person enrols a passkey, signs in with their e-mail, and the token works for GET /v2/me", async () => {
    const { page, errors } = await openBrowser()
    const enrolled = await enrolThroughPage(page, "ada@example.com", "Ada Lovelace")
    expect(enrolled.className).toBe("ok")
    expect(enrolled.text).toContain("Passkey enrolled for ada@example.com")
    await page.screenshot({ path: "/tmp/signet-enrol.png", fullPage: true })

    const signedIn = await signInThroughPage(page, env.rp.clientId, "ada@example.com")
    expect(signedIn).toMatchObject({ className: "ok" })
    expect(signedIn.text).toContain("Signed in as ada@example.com")
    const token = await page.inputValue("#token")
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)

    const me = await fetch(`${env.origin}/api/v2/me`, { headers: { authorization: `Bearer ${token}` } })
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({ email: "ada@example.com", clientId: env.rp.clientId })
    expect(errors).toEqual([])
  })

  it("sign-in without typing an e-mail uses the discoverable passkey", async () => {
    const { page, errors } = await openBrowser()
    expect((await enrolThroughPage(page, "grace@example.com", "Grace Hopper")).className).toBe("ok")
    const signedIn = await signInThroughPage(page, env.rp.clientId)
    expect(signedIn.className).toBe("ok")
    expect(signedIn.text).toContain("Signed in as grace@example.com")
    const me = await fetch(`${env.origin}/api/v2/me`, { headers: { authorization: `Bearer ${await page.inputValue("#token")}` } })
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({ email: "grace@example.com" })
    expect(errors).toEqual([])
  })

  it("an unknown client id on the sign-in page shows a clear error and no token", async () => {
    const { page } = await openBrowser()
    const signedIn = await signInThroughPage(page, "no-such-client", "ada@example.com")
    expect(signedIn.className).toBe("err")
    expect(signedIn.text).toContain("Unknown RP client_id")
    expect(await page.inputValue("#token")).toBe("")
  })

  it("the pages forbid inline script by CSP and still work under it", async () => {
    const { page, errors } = await openBrowser()
    for (const path of ["/api/enrol", `/api/signin?client_id=${env.rp.clientId}`]) {
      const response = await page.goto(`${env.origin}${path}`)
      expect(response?.status(), path).toBe(200)
      const csp = response?.headers()["content-security-policy"] ?? ""
      expect(csp, path).toContain("script-src 'self'")
      expect(csp, path).not.toMatch(/script-src[^;]*'unsafe-inline'/)
    }
    const landing = await fetch(`${env.origin}/api/`)
    expect(landing.headers.get("content-security-policy")).toContain("script-src 'self'")
    await landing.body?.cancel()
    // An inline script injected into the page is refused; the page's own script (same origin) is not.
    const inlineRan = await page.evaluate(() => {
      const s = document.createElement("script")
      s.textContent = "document.documentElement.dataset.inline = 'ran'"
      document.head.appendChild(s)
      return document.documentElement.dataset.inline === "ran"
    })
    expect(inlineRan).toBe(false)
    const refusals = errors.splice(0)
    expect(refusals.some((e) => e.includes("Content Security Policy"))).toBe(true)

    expect((await enrolThroughPage(page, "csp@example.com", "Csp Person")).className).toBe("ok")
    expect((await signInThroughPage(page, env.rp.clientId, "csp@example.com")).className).toBe("ok")
    expect(errors.filter((e) => e.includes("Content Security Policy"))).toEqual([])
    expect(errors).toEqual([])
  })
})
