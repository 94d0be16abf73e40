/**
 * The OpenID provider in a real headless Chromium with a CDP WebAuthn virtual authenticator:
 * an RP sends the browser to /authorize, a new person enrols and signs in on the hosted pages,
 * allows the RP on the consent page and lands on the RP's callback (a local HTTP server) with a code.
 */
import { registerRelyingParty } from "@signet/core"
import * as client from "openid-client"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser, BrowserContext } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addVirtualAuthenticator, launchChromium, requireBrowser } from "./test-support/chromium.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const available = requireBrowser("the OpenID provider pages")

describe.skipIf(!available)("OpenID Connect sign-in in Chromium", () => {
  let env: RunningEngine
  let browser: Browser
  let rpServer: Server
  let callbackBase: string
  const received: Array<URL> = []
  let context: BrowserContext | undefined

  beforeAll(async () => {
    ;[env, browser] = await Promise.all([startEngine(), launchChromium()])
    // The RP's callback: records what arrives and shows a page, as an RP would before exchanging the code.
    rpServer = createServer((req, res) => {
      received.push(new URL(req.url ?? "/", callbackBase))
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>RP</title><h1 id='rp'>RP callback received</h1>")
    })
    await new Promise<void>((resolve) => rpServer.listen(0, "127.0.0.1", resolve))
    callbackBase = `http://127.0.0.1:${(rpServer.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await context?.close()
    await browser?.close()
    await env?.stop()
    await new Promise((resolve) => rpServer?.close(resolve))
  })

  it("a new person enrols and signs in with a passkey, allows the RP, and the RP's callback gets a code that openid-client redeems", async () => {
    const redirectUri = `${callbackBase}/callback`
    const rp = await env.engine.run(registerRelyingParty({ name: "Acme Bank", status: "approved", signingOrigins: [env.origin], redirectUris: [redirectUri] }))
    const config = await client.discovery(new URL(`${env.origin}/api`), rp.rp.clientId, undefined, client.ClientSecretBasic(rp.clientSecret), {
      execute: [client.allowInsecureRequests],
    })
    const verifier = client.randomPKCECodeVerifier()
    const state = client.randomState()
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: "openid basic email",
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    })

    context = await browser.newContext()
    const page = await context.newPage()
    const errors: string[] = []
    page.on("pageerror", (e) => errors.push(String(e)))
    await addVirtualAuthenticator(page)

    await page.goto(url.toString())
    await page.waitForURL(/\/api\/signin\?/)
    expect(await page.inputValue("#clientId")).toBe(rp.rp.clientId)
    await page.click("#enrol-link")
    await page.waitForURL(/\/api\/enrol\?/)
    await page.fill("#email", "lin@example.com")
    await page.fill("#displayName", "Lin Chen")
    await page.getByRole("button", { name: "Create passkey" }).click()
    await page.locator("#code").waitFor({ state: "visible", timeout: 10_000 })
    await page.fill("#code", await env.codeFor("lin@example.com"))
    await page.getByRole("button", { name: "Create passkey" }).click()
    // After enrolling, the page goes to sign-in (keeping the way back); signing in returns to /authorize and its consent page.
    await page.waitForURL(/\/api\/signin\?/)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Allow Acme Bank?" }).waitFor({ timeout: 10_000 })
    expect(await page.locator("#scopes li").evaluateAll((items) => items.map((i) => i.getAttribute("data-scope")))).toEqual(["openid", "basic", "email"])
    await page.getByRole("button", { name: "Allow" }).click()
    await page.waitForURL(`${redirectUri}?*`)
    expect(await page.textContent("#rp")).toBe("RP callback received")

    // The browser also asks the RP for /favicon.ico; the callback came exactly once.
    const callbacks = received.filter((u) => u.pathname === "/callback")
    expect(callbacks).toHaveLength(1)
    const callback = callbacks[0]!
    expect(callback.searchParams.get("code")).toMatch(/^[\w-]{43}$/)
    expect(callback.searchParams.get("state")).toBe(state)
    expect(callback.searchParams.get("iss")).toBe(`${env.origin}/api`)
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state })
    expect(tokens.claims()).toMatchObject({ email: "lin@example.com", aud: rp.rp.clientId })
    expect(errors).toEqual([])
  }, 120_000)
})
