/**
 * Hosted KYC capture in a real headless Chromium with a fake camera (a generated Y4M file):
 * desktop capture to `verified`, and a phone handoff with the desktop page polling. The
 * fake camera's frames carry no sandbox marker, so the sandbox confirms them as a live
 * capture (0.90) of an unknown face, which matches only a document whose face is `*`
 * (docs/kyc.md, "Sandbox fixtures"). Screenshots go to artifacts/kyc-capture/.
 */
import jpeg from "jpeg-js"
import { configureKyc } from "@signet/core"
import { fakeCameraY4m, passport } from "@signet/testkit/kyc"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { CHROMIUM_PATH, openPage, requireBrowser } from "./test-support/chromium.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

// jsqr is CommonJS whose typings declare an ES default export: required, it is the decoder itself.
const jsQR = createRequire(import.meta.url)("jsqr") as typeof import("jsqr").default
const available = requireBrowser("hosted KYC capture")
const ARTIFACTS = fileURLToPath(new URL("../../../artifacts/kyc-capture/", import.meta.url))

type Json = Record<string, unknown>

/** Width, height and the first luminance quantisation value of a baseline/progressive JPEG (libjpeg quality 85 → 5). */
const jpegInfo = (jpeg: Buffer) => {
  let i = 2
  let q0: number | undefined
  while (i + 4 <= jpeg.length && jpeg[i] === 0xff) {
    const type = jpeg[i + 1]!
    const length = jpeg.readUInt16BE(i + 2)
    if (type === 0xdb && q0 === undefined) q0 = jpeg[i + 5]
    if (type === 0xc0 || type === 0xc2) return { height: jpeg.readUInt16BE(i + 5), width: jpeg.readUInt16BE(i + 7), q0 }
    i += 2 + length
  }
  return undefined
}

describe.skipIf(!available)("hosted KYC capture in Chromium with a fake camera", () => {
  let env: RunningEngine
  let browser: Browser
  let basic: string
  const contexts: BrowserContext[] = []
  let n = 0

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    const clip = join(mkdtempSync(join(tmpdir(), "signet-camera-")), "camera.y4m")
    writeFileSync(clip, fakeCameraY4m())
    ;[env, browser] = await Promise.all([
      startEngine(),
      chromium.launch({
        executablePath: CHROMIUM_PATH,
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          "--disable-quic",
          "--use-fake-ui-for-media-stream",
          "--use-fake-device-for-media-stream",
          `--use-file-for-fake-video-capture=${clip}`,
        ],
      }),
    ])
    await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
    basic = `Basic ${btoa(`${env.rp.clientId}:${env.rp.clientSecret}`)}`
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await env?.stop()
  })
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()))
  })

  /** The RP's backend: HTTP Basic. */
  const rp = (path: string, body: unknown) => env.client.raw<Json>("POST", path, { body, headers: { authorization: basic } })
  const customerWithDocument = async (withDocument: boolean) => {
    const customer = `+2547${String(33000000 + ++n).padStart(8, "0")}`
    expect((await rp("/kyc/verifications", { customer_id: customer, phone_number: customer })).status).toBe(200)
    if (withDocument)
      expect((await rp("/kyc/customers/document", { customer_id: customer, images: [passport("*")] })).body).toMatchObject({ status: "document_verified" })
    return customer
  }

  const open = async (viewport = { width: 900, height: 900 }) => {
    const { context, page, errors } = await openPage(browser, { viewport })
    contexts.push(context)
    return { page, errors }
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, name), fullPage: true })
  const verdictOf = async (page: Page) => {
    await page.locator("body[data-verdict]").waitFor({ timeout: 20_000 })
    return { verdict: await page.getAttribute("body", "data-verdict"), text: (await page.textContent("#verdict")) ?? "" }
  }

  it("desktop: the RP opens the page with the session token; the person captures their face; verified", async () => {
    const customer = await customerWithDocument(true)
    const session = await rp("/kyc/customers/liveness-session", { customer_id: customer })
    const token = session.body["token"] as string
    const { page, errors } = await open()
    const response = await page.goto(`${env.origin}/api/kyc/capture#token=${token}`)
    expect(response?.status()).toBe(200)
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'")
    expect(response?.headers()["content-security-policy"]).not.toMatch(/script-src[^;]*'unsafe-inline'/)
    expect(page.url()).not.toContain(token) // the fragment is cleared from the address bar
    const capture = page.getByRole("button", { name: "Capture my face" })
    await capture.waitFor({ state: "visible", timeout: 15_000 })
    await expect.poll(() => page.evaluate(() => (document.getElementById("video") as HTMLVideoElement).videoWidth)).toBeGreaterThan(0)
    expect(await page.textContent("#guide")).toContain("Centre your face")
    await shot(page, "01-desktop-face-camera.png")
    await capture.click()
    const result = await verdictOf(page)
    await shot(page, "02-desktop-verified.png")
    expect(result).toEqual({ verdict: "verified", text: "Identity verified" })

    // The RP backend reads the full verdict: a fake-camera frame is a live capture (0.90) of a face that matches a `*` document.
    const read = await rp("/kyc/customers/verification", { customer_id: customer, return_selfie: true })
    expect(read.body).toMatchObject({ status: "verified", liveness_score: 0.9, face_match_score: 0.95, reasons: [] })
    // What the browser uploaded: a JPEG at quality 0.85 whose long edge is 1280 px (face frames; the fake camera is 640×480).
    const selfie = Buffer.from((read.body["selfie"] as Json)["data"] as string, "base64")
    expect(jpegInfo(selfie)).toEqual({ width: 1280, height: 960, q0: 5 })
    expect(errors).toEqual([])
  }, 60_000)

  it("desktop: the page tells the RP page that opened it the transaction id and the outcome, at the origin it named", async () => {
    const customer = await customerWithDocument(true)
    const token = (await rp("/kyc/customers/liveness-session", { customer_id: customer })).body["token"] as string
    const { page: rpPage } = await open()
    await rpPage.goto(`${env.origin}/api/`) // stands in for the RP's page (same origin here)
    await rpPage.evaluate(() => {
      const w = window as unknown as { received: unknown[] }
      w.received = []
      window.addEventListener("message", (e) => w.received.push({ origin: e.origin, data: e.data }))
    })
    const popup = rpPage.context().waitForEvent("page")
    await rpPage.evaluate((url) => void window.open(url), `${env.origin}/api/kyc/capture#token=${token}&origin=${encodeURIComponent(env.origin)}`)
    const capturePage = await popup
    const button = capturePage.getByRole("button", { name: "Capture my face" })
    await button.waitFor({ state: "visible", timeout: 15_000 })
    await button.click()
    expect((await verdictOf(capturePage)).verdict).toBe("verified")
    const received = await rpPage.evaluate(() => (window as unknown as { received: Array<{ origin: string; data: Json }> }).received)
    expect(received.map((m) => m.data["type"])).toEqual(["SIGNET_KYC_CAPTURED", "SIGNET_KYC_RESULT"])
    expect(received.every((m) => m.origin === env.origin)).toBe(true)
    expect(received[0]!.data["transactionId"]).toMatch(/^[0-9a-f-]{36}$/)
    expect(received[1]!.data).toEqual({ type: "SIGNET_KYC_RESULT", status: "verified", reasons: [] })
  }, 60_000)

  it("desktop: an expired or replaced token shows a clear error and no camera", async () => {
    const customer = await customerWithDocument(true)
    const old = (await rp("/kyc/customers/liveness-session", { customer_id: customer })).body["token"] as string
    await rp("/kyc/customers/liveness-session", { customer_id: customer })
    const { page } = await open()
    await page.goto(`${env.origin}/api/kyc/capture#token=${old}`)
    await page.locator("body[data-state=error]").waitFor()
    expect(await page.textContent("#status")).toContain("expired or was replaced")
    expect(await page.isVisible("#stage")).toBe(false)
    await shot(page, "03-desktop-expired.png")
  }, 30_000)

  it("phone handoff: the desktop waits, the phone captures the document and the face, both show verified", async () => {
    const customer = await customerWithDocument(false)
    const handoff = await rp("/kyc/handoff", { customer_id: customer })
    expect(handoff.status).toBe(200)
    const { handoffId, url, code } = handoff.body as { handoffId: string; url: string; code: string }

    const desktop = await open()
    await desktop.page.goto(`${env.origin}/api/kyc/capture#handoff=${handoffId}`)
    await expect.poll(() => desktop.page.textContent("#code")).toBe(`Code ${code}`)
    expect(await desktop.page.textContent("#phoneUrl")).toBe(`${env.origin}${url}`)
    // The QR code beside it, read back from a screenshot of the page as a phone's camera would.
    const shotOfQr = jpeg.decode(await desktop.page.locator("#phoneQr").screenshot({ type: "jpeg", quality: 100 }), { useTArray: true })
    expect(jsQR(new Uint8ClampedArray(shotOfQr.data), shotOfQr.width, shotOfQr.height)?.data).toBe(`${env.origin}${url}`)
    await shot(desktop.page, "04-desktop-waiting-for-phone.png")

    const phone = await open({ width: 390, height: 844 })
    await phone.page.goto(`${env.origin}${url}`)
    expect(await phone.page.textContent("#code")).toBe(`Code ${code}`)
    const documentButton = phone.page.getByRole("button", { name: "Capture the photo page" })
    await documentButton.waitFor({ state: "visible", timeout: 15_000 })
    await expect.poll(() => phone.page.evaluate(() => (document.getElementById("video") as HTMLVideoElement).videoWidth)).toBeGreaterThan(0)
    expect(await phone.page.textContent("#guide")).toContain("All four edges")
    await shot(phone.page, "05-phone-document-camera.png")
    // The fake camera shows no document: the sandbox reader cannot read it, and the page asks again.
    const upload = phone.page.waitForRequest((r) => r.url().endsWith(`/kyc/handoff/${handoffId}/document`))
    await documentButton.click()
    const sent = JSON.parse((await upload).postData() ?? "{}") as { images: string[] }
    expect(sent.images.length).toBe(1)
    expect(jpegInfo(Buffer.from(sent.images[0]!, "base64"))).toEqual({ width: 1600, height: 1200, q0: 5 })
    await expect.poll(() => phone.page.textContent("#status"), { timeout: 15_000 }).toContain("not accepted (document_not_authentic)")
    await shot(phone.page, "06-phone-document-refused.png")
    await expect.poll(() => desktop.page.textContent("#status"), { timeout: 10_000 }).toContain("On the phone: failed")

    // A readable document arrives through the same handoff endpoint the page uses; the phone page continues with the face.
    const doc = await env.client.raw<Json>("POST", `/kyc/handoff/${handoffId}/document`, { body: { images: [passport("*")] } })
    expect(doc).toMatchObject({ status: 200, body: { status: "document_verified", reasons: [] } })
    await phone.page.reload()
    const faceButton = phone.page.getByRole("button", { name: "Capture my face" })
    await faceButton.waitFor({ state: "visible", timeout: 15_000 })
    await shot(phone.page, "07-phone-face-camera.png")
    await faceButton.click()
    expect(await verdictOf(phone.page)).toEqual({ verdict: "verified", text: "Identity verified" })
    await shot(phone.page, "08-phone-verified.png")
    expect(await verdictOf(desktop.page)).toEqual({ verdict: "verified", text: "Identity verified" })
    await shot(desktop.page, "09-desktop-verified-after-phone.png")
    expect((await rp("/kyc/customers/verification", { customer_id: customer })).body).toMatchObject({ status: "verified", liveness_score: 0.9 })
    expect(phone.errors).toEqual([])
    expect(desktop.errors).toEqual([])
  }, 90_000)
})
