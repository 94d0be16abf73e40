/**
 * Sign-in through an external OpenID provider in a real headless Chromium: the cookie rules
 * (a `SameSite=Lax` browser binding across the provider's cross-site redirect, a new
 * `SameSite=Lax` session reaching the `return_to` page) only show in a browser.
 */
import { issueAccessToken, registerIdentityProvider, signedInUserOf } from "@signet/core"
import { Option } from "effect"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { addVirtualAuthenticator, launchChromium, openPage, requireBrowser } from "./test-support/chromium.ts"
import { startExternalProvider, type ExternalProvider } from "./test-support/external-provider.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const available = requireBrowser("external identity providers")

describe.skipIf(!available)("external identity providers in Chromium", () => {
  let env: RunningEngine
  let browser: Browser
  let op: ExternalProvider
  const contexts: BrowserContext[] = []

  beforeAll(async () => {
    ;[env, browser] = await Promise.all([startEngine(), launchChromium()])
    op = await startExternalProvider(`${env.origin}/api/idp/callback`, {
      "ext-lin": { email: "lin@example.com", emailVerified: true, name: "Lin External" },
      "ext-mae": { email: "mae@example.com", emailVerified: true, name: "Mae External" },
    })
    await env.engine.run(
      registerIdentityProvider({ kind: "admin" }, { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, name: "Example ID" }),
    )
  })
  afterAll(async () => {
    await browser?.close()
    await op?.stop()
    await env?.stop()
  })
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()))
  })

  /** A fresh profile; errors of Signet's own pages are collected (the provider's dev pages are not ours). */
  const openBrowser = async () => {
    const opened = await openPage(browser, { counts: (url) => url.startsWith(env.origin) })
    contexts.push(opened.context)
    return opened
  }

  /** Clicks "Example ID" on Signet's sign-in page and logs in at the provider (login form, then consent). */
  const signInThroughProvider = async (page: Page, login: string, returnTo: string) => {
    await page.goto(`${env.origin}/api/signin?return_to=${encodeURIComponent(returnTo)}`)
    await page.getByRole("link", { name: "Example ID" }).click()
    await page.waitForURL((u) => u.origin === op.issuer)
    await page.fill("input[name=login]", login)
    await page.fill("input[name=password]", "any")
    await page.click("button[type=submit]")
    await page.waitForURL((u) => u.origin === op.issuer && u.pathname.startsWith("/interaction"))
    await page.click("button[type=submit]")
  }

  const sessionUser = async (context: BrowserContext) => {
    const cookie = (await context.cookies(`${env.origin}/api/`)).find((c) => c.name === "signet_session")
    return env.engine.run(signedInUserOf(cookie?.value))
  }

  it("a new person signs in with the external provider and lands on return_to with a signed-in Signet session", async () => {
    const { context, page, errors } = await openBrowser()
    const landing = page.waitForRequest(`${env.origin}/api/?welcome=1`)
    await signInThroughProvider(page, "ext-lin", "/api/?welcome=1")
    await page.waitForURL(`${env.origin}/api/?welcome=1`)
    const session = (await context.cookies(`${env.origin}/api/`)).find((c) => c.name === "signet_session")!
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/api" })
    // The return_to page itself already receives the new session cookie (the callback's page moves on from Signet's own origin).
    expect((await (await landing).allHeaders())["cookie"] ?? "").toContain(`signet_session=${session.value}`)
    // The binding cookie is gone once used.
    expect((await context.cookies(`${env.origin}/api/idp/callback`)).some((c) => c.name === "signet_idp")).toBe(false)
    const userId = Option.getOrThrow(await sessionUser(context))
    const token = await env.engine.run(issueAccessToken({ sub: userId, clientId: env.rp.clientId, scope: ["openid", "basic"] }))
    const me = await (await fetch(`${env.origin}/api/v2/me`, { headers: { authorization: `Bearer ${token.token}` } })).json()
    expect(me).toMatchObject({ email: "lin@example.com", displayName: "Lin External", identities: [{ issuer: op.issuer, subject: "ext-lin" }] })
    expect(errors).toEqual([])
  })

  it("an existing account with the same e-mail confirms the link with its passkey on the hosted page, then lands on return_to", async () => {
    const { context, page, errors } = await openBrowser()
    await addVirtualAuthenticator(page)
    await page.goto(`${env.origin}/api/enrol`)
    await page.fill("#email", "mae@example.com")
    await page.fill("#displayName", "Mae")
    await page.getByRole("button", { name: "Create passkey" }).click()
    await page.locator("#code").waitFor({ state: "visible", timeout: 10_000 })
    await page.fill("#code", await env.codeFor("mae@example.com"))
    await page.getByRole("button", { name: "Create passkey" }).click()
    await expect.poll(() => page.locator("#result").getAttribute("class"), { timeout: 10_000 }).toBe("ok")

    await signInThroughProvider(page, "ext-mae", "/api/?linked=1")
    await page.waitForURL((u) => u.pathname === "/api/idp/link")
    expect(Option.isNone(await sessionUser(context))).toBe(true)
    await page.getByRole("button", { name: "Sign in with your passkey and link" }).click()
    await page.waitForURL(`${env.origin}/api/?linked=1`)
    const userId = Option.getOrThrow(await sessionUser(context))
    const token = await env.engine.run(issueAccessToken({ sub: userId, clientId: env.rp.clientId, scope: ["openid", "basic"] }))
    const me = await (await fetch(`${env.origin}/api/v2/me`, { headers: { authorization: `Bearer ${token.token}` } })).json()
    expect(me).toMatchObject({ email: "mae@example.com", displayName: "Mae", identities: [{ subject: "ext-mae" }] })
    expect(me.passkeys).toHaveLength(1)
    expect(errors).toEqual([])
  })
})
