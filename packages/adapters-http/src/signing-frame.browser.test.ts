/**
 * The signing frame in a real headless Chromium: the RP demo on another origin and site frames `/ssc/frame`,
 * a CDP virtual authenticator approves, openssl verifies the posted signature against the document bytes.
 */
import { administerRelyingParty, registerRelyingParty } from "@signet/core"
import { enrol as enrolOverApi, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { createHash, randomBytes } from "node:crypto"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser, BrowserContext, FrameLocator, Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { listen } from "./node-server.ts"
import { makeRpDemo } from "../../server/src/index.ts"
import { addVirtualAuthenticator, launchChromium, openPage, requireBrowser } from "./test-support/chromium.ts"
import { opensslVerifies } from "./test-support/openssl.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const available = requireBrowser("the signing frame")

/** Screenshots of the frame's states (git-ignored) for a person to look at. */
const SHOTS = fileURLToPath(new URL("../../../artifacts/signing-frame/", import.meta.url))
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex")

/** What the frame posts to its parent. */
interface FrameMessage {
  readonly type: string
  readonly signatureId?: string
  readonly signatureBase64?: string
  readonly documentHash?: string
  readonly credentialId?: string
  readonly timestamp?: number
  readonly mode?: string
  readonly levelOfAssurance?: string
  readonly userVerified?: boolean
  readonly error?: string
}

/** A bare parent page (no CSP, inline script allowed: it is the test's page) that frames `?src=` and records every message it gets. */
const embedPage = (request: Request): Response => {
  const src = new URL(request.url).searchParams.get("src") ?? ""
  const quoted = src.replace(/&/g, "&amp;").replace(/"/g, "&quot;")
  return new Response(
    `<!doctype html><html><head><meta charset="utf-8"><title>parent</title></head><body data-messages="[]">
<p>Embedding page</p><iframe allow="publickey-credentials-get" style="width:36rem;height:22rem" src="${quoted}"></iframe>
<script>
document.querySelector("iframe").addEventListener("load", () => { document.body.dataset.loaded = "1" });
window.addEventListener("message", (e) => {
  const list = JSON.parse(document.body.dataset.messages);
  list.push({ origin: e.origin, data: e.data });
  document.body.dataset.messages = JSON.stringify(list);
});
</script></body></html>`,
    { headers: { "content-type": "text/html; charset=utf-8" } },
  )
}

describe.skipIf(!available)("the signing frame embedded by an RP on another origin", () => {
  let env: RunningEngine
  let browser: Browser
  let rpOrigin: string
  let strangerOrigin: string
  let rootPem: string
  let documentBytes: Uint8Array
  const servers: Array<{ close: () => Promise<void> }> = []
  const contexts: BrowserContext[] = []

  beforeAll(async () => {
    ;[env, browser] = await Promise.all([startEngine(), launchChromium()])
    const demo = makeRpDemo({ signetOrigin: env.origin, basePath: "/api", clientId: env.rp.clientId, sscSecret: env.rp.sscSecret })
    // The RP demo, plus a bare embedding page on the same (authorised) origin for the error cases.
    const rp = await listen((r) => (new URL(r.url).pathname === "/embed" ? Promise.resolve(embedPage(r)) : demo(r)), 0, "127.0.0.1")
    // A third origin that is not among the RP's signing origins.
    const stranger = await listen((r) => Promise.resolve(embedPage(r)), 0, "127.0.0.1")
    servers.push(rp, stranger)
    rpOrigin = `http://127.0.0.1:${rp.port}`
    strangerOrigin = `http://127.0.0.1:${stranger.port}`
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetSigningOrigins", origins: [env.origin, rpOrigin] }))
    // LOA-4 (a token bound to the signer's passkey) needs a KYC-verified RP.
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetKycVerified", kycVerified: true }))
    rootPem = ((await (await fetch(`${env.origin}/api/v2/ca`)).json()) as { root: { pem: string } }).root.pem
    documentBytes = new Uint8Array(await (await fetch(`${rpOrigin}/document`)).arrayBuffer())
    mkdirSync(SHOTS, { recursive: true })
  })
  afterAll(async () => {
    await browser?.close()
    await Promise.all(servers.map((s) => s.close()))
    await env?.stop()
  })
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()))
  })

  /** A fresh browser profile with a passkey authenticator; collects console errors and uncaught page errors (all frames). */
  const openBrowser = async () => {
    const { context, page, errors } = await openPage(browser, { viewport: { width: 900, height: 1000 } })
    contexts.push(context)
    const authenticator = await addVirtualAuthenticator(page)
    return { context, page, errors, authenticator }
  }

  const enrol = async (page: Page, email: string) => {
    await page.goto(`${env.origin}/api/enrol`)
    await page.fill("#email", email)
    await page.fill("#displayName", "Frame Signer")
    await page.getByRole("button", { name: "Create passkey" }).click()
    await page.locator("#code").waitFor({ state: "visible", timeout: 10_000 })
    await page.fill("#code", await env.codeFor(email))
    await page.getByRole("button", { name: "Create passkey" }).click()
    await expect.poll(() => page.locator("#result").getAttribute("class"), { timeout: 10_000 }).toBe("ok")
  }

  /** Opens the RP demo, asks to sign (with or without an e-mail) and waits for the frame to be ready. */
  const startSigning = async (page: Page, email?: string): Promise<FrameLocator> => {
    await page.goto(`${rpOrigin}/`)
    if (email !== undefined) await page.fill("#email", email)
    await page.getByRole("button", { name: "Sign" }).click()
    const frame = page.frameLocator("iframe")
    await frame.locator('body[data-state="ready"]').waitFor({ timeout: 10_000 })
    return frame
  }

  /** The message the RP demo page received last (it keeps it as JSON in `#result[data-result]`). */
  const parentResult = async (page: Page): Promise<FrameMessage> => {
    const result = page.locator("#result[data-result]")
    await result.waitFor({ timeout: 15_000 })
    return JSON.parse((await result.getAttribute("data-result")) ?? "null") as FrameMessage
  }
  const parentMessages = async (page: Page): Promise<ReadonlyArray<string>> =>
    JSON.parse((await page.locator("#result").getAttribute("data-messages")) ?? "[]") as ReadonlyArray<string>

  it("registered mode (LOA-4): the signer approves in the frame, the parent gets SSC_SIGN_COMPLETE and openssl verifies the signature over the document", async () => {
    const { context, page, errors } = await openBrowser()
    await enrol(page, "lessee@example.com")

    const frame = await startSigning(page, "lessee@example.com")
    await expect.poll(() => frame.locator("#documentHash").textContent()).toBe(sha256(documentBytes))
    expect(await frame.locator("#documentName").textContent()).toBe("lease-flat-3-elm-street.txt")
    expect(await frame.locator("#loa").textContent()).toBe("LOA-4")
    expect(await frame.locator("#signer").textContent()).toBe("lessee@example.com")
    await page.locator("iframe").screenshot({ path: join(SHOTS, "ready.png") })

    // Hold the challenge call so the frame can be seen waiting for the passkey.
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    await context.route(`${env.origin}/api/ssc/challenge`, async (route) => {
      await held
      await route.continue()
    })
    await frame.getByRole("button", { name: "Approve with passkey" }).click()
    await frame.locator('body[data-state="approving"]').waitFor()
    expect(await frame.locator("#approve").isDisabled()).toBe(true)
    expect(await frame.locator("#status").textContent()).toBe("Waiting for your passkey…")
    await page.locator("iframe").screenshot({ path: join(SHOTS, "approving.png") })
    release()

    const message = await parentResult(page)
    expect(message).toMatchObject({
      type: "SSC_SIGN_COMPLETE",
      documentHash: sha256(documentBytes),
      mode: "registered",
      levelOfAssurance: "LOA-4",
      userVerified: true,
    })
    expect(message.signatureId).toEqual(expect.any(String))
    expect(message.credentialId).toEqual(expect.any(String))
    expect(message.timestamp).toEqual(expect.any(Number))
    expect(await parentMessages(page)).toEqual(["SSC_SIGN_READY", "SSC_SIGN_COMPLETE"])
    await frame.locator('body[data-state="done"]').waitFor()
    expect(await frame.locator("#status").textContent()).toBe(`Signed · signature ${message.signatureId}`)
    await page.locator("iframe").screenshot({ path: join(SHOTS, "done.png") })
    await page.screenshot({ path: join(SHOTS, "rp-demo-done.png"), fullPage: true })

    expect(opensslVerifies(message.signatureBase64 ?? "", documentBytes, rootPem)).toBe(true)
    expect(opensslVerifies(message.signatureBase64 ?? "", new TextEncoder().encode("another lease"), rootPem)).toBe(false)
    // The SSC secret stays on the RP's server.
    expect(await page.content()).not.toContain(env.rp.sscSecret)
    expect(errors).toEqual([])
  })

  it("anonymous mode (LOA-2, no e-mail): any enrolled discoverable passkey approves", async () => {
    const { page, errors } = await openBrowser()
    await enrol(page, "anonymous-signer@example.com")
    const frame = await startSigning(page)
    expect(await frame.locator("#loa").textContent()).toBe("LOA-2")
    expect(await frame.locator("#signer").textContent()).toBe("Any passkey enrolled with Signet")
    await frame.getByRole("button", { name: "Approve with passkey" }).click()
    const message = await parentResult(page)
    expect(message).toMatchObject({
      type: "SSC_SIGN_COMPLETE",
      mode: "anonymous",
      levelOfAssurance: "LOA-2",
      userVerified: true,
      documentHash: sha256(documentBytes),
    })
    expect(opensslVerifies(message.signatureBase64 ?? "", documentBytes, rootPem)).toBe(true)
    expect(errors).toEqual([])
  })

  it("a parent origin that is not a signing origin of the RP cannot frame it", async () => {
    const frameUrl = `${env.origin}/api/ssc/frame?client_id=${encodeURIComponent(env.rp.clientId)}`
    const answer = await fetch(frameUrl)
    expect(answer.status).toBe(200)
    const csp = answer.headers.get("content-security-policy") ?? ""
    await answer.body?.cancel()
    const ancestors = csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .find((d) => d[0] === "frame-ancestors")
    expect(ancestors?.slice(1)).toEqual([env.origin, rpOrigin])
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/)
    expect(answer.headers.get("x-frame-options")).toBeNull()

    const unknown = await fetch(`${env.origin}/api/ssc/frame?client_id=no-such-client`)
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    expect(await unknown.text()).toContain("Unknown RP client_id")

    const { page, errors } = await openBrowser()
    const token = (await (await fetch(`${rpOrigin}/token`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as {
      token: string
    }
    const fragment = new URLSearchParams({ token: token.token, documentName: "x.txt", origin: strangerOrigin })
    await page.goto(`${strangerOrigin}/embed?src=${encodeURIComponent(`${frameUrl}#${fragment}`)}`)
    await expect.poll(() => page.locator("body").getAttribute("data-loaded"), { timeout: 10_000 }).toBe("1")
    await page.waitForTimeout(500)
    expect(await page.frameLocator("iframe").locator("body[data-state]").count()).toBe(0)
    expect(page.frames().some((f) => f.url().startsWith(env.origin))).toBe(false)
    expect(JSON.parse((await page.locator("body").getAttribute("data-messages")) ?? "[]")).toEqual([])
    expect(errors.some((e) => e.includes("frame-ancestors"))).toBe(true)
    await page.screenshot({ path: join(SHOTS, "refused-origin.png") })
  })

  it("approves a /v2/sign batch opened by its id, listing every document first", async () => {
    const { page, errors } = await openBrowser()
    await enrol(page, "batch-signer@example.com")
    await page.goto(`${env.origin}/api/signin?client_id=${encodeURIComponent(env.rp.clientId)}`)
    await page.fill("#email", "batch-signer@example.com")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => page.locator("#result").getAttribute("class"), { timeout: 10_000 }).toBe("ok")
    const accessToken = await page.locator("#token").inputValue()
    const me = (await (await fetch(`${env.origin}/api/v2/me`, { headers: { authorization: `Bearer ${accessToken}` } })).json()) as {
      passkeys: Array<{ id: string }>
    }
    const contents = [randomBytes(64), randomBytes(96), randomBytes(128)]
    const documents = contents.map((c, i) => ({
      id: `invoice-${i + 1}`,
      hash: createHash("sha256").update(c).digest("hex"),
      hash_algo: "2.16.840.1.101.3.4.2.1",
    }))
    const created = await fetch(`${env.origin}/api/v2/sign/batch`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ credentialId: me.passkeys[0]!.id, documents }),
    })
    const { batchId } = (await created.json()) as { batchId: string }

    const frameUrl = `${env.origin}/api/ssc/frame?client_id=${encodeURIComponent(env.rp.clientId)}`
    const fragment = new URLSearchParams({ batch: batchId, origin: rpOrigin })
    await page.goto(`${rpOrigin}/embed?src=${encodeURIComponent(`${frameUrl}#${fragment}`)}`)
    const frame = page.frameLocator("iframe")
    await frame.locator('body[data-state="ready"]').waitFor({ timeout: 10_000 })
    expect(await frame.locator("#documents li strong").allTextContents()).toEqual(["invoice-1", "invoice-2", "invoice-3"])
    expect(await frame.locator("#documents li .hash").allTextContents()).toEqual(documents.map((d) => d.hash))
    await page.screenshot({ path: join(SHOTS, "batch-ready.png") })
    await frame.getByRole("button", { name: "Approve with passkey" }).click()
    await frame.locator('body[data-state="done"]').waitFor({ timeout: 15_000 })
    const messages = JSON.parse((await page.locator("body").getAttribute("data-messages")) ?? "[]") as Array<{
      origin: string
      data: { type: string; kind?: string; status?: string; results?: Array<{ documentId: string; status: string; signature: string }> }
    }>
    const complete = messages.find((m) => m.data.type === "SSC_SIGN_COMPLETE")!
    expect(complete.origin).toBe(env.origin)
    expect(complete.data).toMatchObject({ kind: "batch", status: "completed" })
    expect(complete.data.results!.map((r) => [r.documentId, r.status])).toEqual(documents.map((d) => [d.id, "signed"]))
    for (const [i, r] of complete.data.results!.entries()) expect(opensslVerifies(r.signature, contents[i]!, rootPem)).toBe(true)
    await page.screenshot({ path: join(SHOTS, "batch-done.png") })
    expect(errors).toEqual([])
  })

  it("a pending request opened in a frame of another RP shows the request's own RP and cannot be approved there (issue 13 item 16)", async () => {
    // RP "Test RP" creates the request; "Look-alike RP" (same signing origin) opens it in its own frame
    const other = await env.engine.run(registerRelyingParty({ name: "Look-alike RP", status: "approved", signingOrigins: [rpOrigin] }))
    const signer = SoftwarePasskey.create({ origin: env.origin })
    await enrolOverApi(env.client, signer, { email: "frame-owner@example.com" })
    const token = (ok(await signIn(env.client, signer, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    const pending = ok(
      await env.client.raw<{ requestId: string }>("POST", "/v2/sign/single", {
        headers: { authorization: `Bearer ${token}` },
        body: { documentHash: createHash("sha256").update(randomBytes(16)).digest("hex"), credentialId: signer.credentialId },
      }),
    )
    const { page, errors } = await openBrowser()
    const frameUrl = `${env.origin}/api/ssc/frame?client_id=${encodeURIComponent(other.rp.clientId)}`
    await page.goto(`${rpOrigin}/embed?src=${encodeURIComponent(`${frameUrl}#${new URLSearchParams({ request: pending.requestId, origin: rpOrigin })}`)}`)
    const frame = page.frameLocator("iframe")
    await frame.locator('body[data-state="error"]').waitFor({ timeout: 10_000 })
    expect(await frame.locator("#rp").textContent()).toBe("Test RP")
    expect(await frame.locator("#status").textContent()).toBe("This signing request was made by Test RP, not by the site that opened this frame.")
    expect(await frame.locator("#approve").isDisabled()).toBe(true)
    // named in the query, the page itself is the request's RP's: its name and its framing origins
    const direct = await fetch(`${env.origin}/api/ssc/frame?client_id=${encodeURIComponent(other.rp.clientId)}&request=${pending.requestId}`)
    const html = await direct.text()
    expect(html).toContain('<dd id="rp">Test RP</dd>')
    expect(html).not.toContain("Look-alike RP")
    expect(html).toContain(`data-client-id="${env.rp.clientId}"`)
    expect(
      (await fetch(`${env.origin}/api/ssc/frame?client_id=${encodeURIComponent(other.rp.clientId)}&request=00000000-0000-4000-8000-000000000000`)).status,
    ).toBe(404)
    expect(errors.filter((e) => !e.includes("404"))).toEqual([])
  })

  it("Cancel posts SSC_SIGN_CANCELLED to the parent", async () => {
    const { page, errors } = await openBrowser()
    const frame = await startSigning(page)
    await frame.getByRole("button", { name: "Cancel" }).click()
    expect(await parentResult(page)).toEqual({ type: "SSC_SIGN_CANCELLED" })
    expect(await parentMessages(page)).toEqual(["SSC_SIGN_READY", "SSC_SIGN_CANCELLED"])
    expect(await page.locator("iframe").count()).toBe(0)
    expect(errors).toEqual([])
  })

  it("a garbled token shows a visible error in the frame and posts SSC_SIGN_ERROR", async () => {
    const { page } = await openBrowser()
    const frameUrl = `${env.origin}/api/ssc/frame?client_id=${encodeURIComponent(env.rp.clientId)}`
    const fragment = new URLSearchParams({ token: "not.a-valid.token", documentName: "lease.txt", origin: rpOrigin })
    await page.goto(`${rpOrigin}/embed?src=${encodeURIComponent(`${frameUrl}#${fragment}`)}`)
    const frame = page.frameLocator("iframe")
    await frame.locator('body[data-state="error"]').waitFor({ timeout: 10_000 })
    expect(await frame.locator("#status").textContent()).toBe("The signing token is invalid.")
    expect(await frame.locator("#status").isVisible()).toBe(true)
    expect(await frame.locator("#approve").isVisible()).toBe(false)
    await page.locator("iframe").screenshot({ path: join(SHOTS, "error.png") })
    await expect
      .poll(async () => JSON.parse((await page.locator("body").getAttribute("data-messages")) ?? "[]"))
      .toEqual([
        { origin: env.origin, data: { type: "SSC_SIGN_READY" } },
        { origin: env.origin, data: { type: "SSC_SIGN_ERROR", error: "The signing token is invalid." } },
      ])
  })

  it("a token Signet refuses (its payload altered) shows Signet's message without Try again, and the parent gets SSC_SIGN_ERROR", async () => {
    const { page } = await openBrowser()
    const issued = (await (await fetch(`${rpOrigin}/token`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as {
      token: string
    }
    const [header, payload, signature] = issued.token.split(".") as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { exp: number }
    const altered = `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString("base64url")}.${signature}`
    const frameUrl = `${env.origin}/api/ssc/frame?client_id=${encodeURIComponent(env.rp.clientId)}`
    const fragment = new URLSearchParams({ token: altered, documentName: "lease.txt", origin: rpOrigin })
    await page.goto(`${rpOrigin}/embed?src=${encodeURIComponent(`${frameUrl}#${fragment}`)}`)
    const frame = page.frameLocator("iframe")
    await frame.locator('body[data-state="ready"]').waitFor({ timeout: 10_000 })
    await frame.getByRole("button", { name: "Approve with passkey" }).click()
    await frame.locator('body[data-state="error"]').waitFor({ timeout: 10_000 })
    expect(await frame.locator("#status").textContent()).toBe("Invalid or expired token")
    expect(await frame.locator("#retry").isVisible()).toBe(false)
    expect(await frame.locator("#approve").isVisible()).toBe(false)
    expect(await frame.getByRole("button", { name: "Cancel" }).isVisible()).toBe(true)
    await expect
      .poll(async () => (JSON.parse((await page.locator("body").getAttribute("data-messages")) ?? "[]") as Array<{ data: FrameMessage }>).map((m) => m.data))
      .toEqual([{ type: "SSC_SIGN_READY" }, { type: "SSC_SIGN_ERROR", error: "Invalid or expired token" }])
  })

  it("a passkey that cannot approve (none enrolled on this device) shows the error with Try again, and the parent gets SSC_SIGN_ERROR", async () => {
    const { page } = await openBrowser()
    const frame = await startSigning(page)
    await frame.getByRole("button", { name: "Approve with passkey" }).click()
    await frame.locator('body[data-state="error"]').waitFor({ timeout: 20_000 })
    expect(await frame.getByRole("button", { name: "Try again" }).isVisible()).toBe(true)
    const message = await parentResult(page)
    expect(message.type).toBe("SSC_SIGN_ERROR")
    expect(message.error).toBe("The passkey was not used: the request was refused or timed out.")
    await page.locator("iframe").screenshot({ path: join(SHOTS, "error-passkey.png") })
  })
})
