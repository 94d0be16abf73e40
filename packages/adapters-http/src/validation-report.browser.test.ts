/**
 * The HTML validation report (`POST /v2/validate?format=html`, docs/validation.md) rendered in
 * headless Chromium: the page shows each signature's indication, the signer and the chain, asks
 * for nothing over the network, runs no script, and an attacker's certificate subject stays text.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, launchChromium } from "./test-support/chromium.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const dir = mkdtempSync(join(tmpdir(), "signet-report-"))
const at = (name: string) => join(dir, name)
const openssl = (...args: Array<string>) => execFileSync("openssl", args, { stdio: "pipe" })

let env: RunningEngine
beforeAll(async () => {
  env = await startEngine()
})
afterAll(async () => env?.stop())

describe.skipIf(!chromiumAvailable())("the HTML validation report in Chromium", () => {
  it("renders the indication, the signer and the chain of a detached CMS made by openssl; no request, no script, the hostile subject is text", async () => {
    // a signer under a CA the engine does not trust, with a subject that is markup
    openssl(
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-subj",
      "/CN=<img src=x onerror=alert(1)>",
      "-days",
      "2",
      "-keyout",
      at("k.pem"),
      "-out",
      at("c.pem"),
    )
    const data = new Uint8Array(Buffer.from("a document of the test"))
    writeFileSync(at("data.bin"), data)
    openssl(
      "cms",
      "-sign",
      "-binary",
      "-in",
      at("data.bin"),
      "-signer",
      at("c.pem"),
      "-inkey",
      at("k.pem"),
      "-md",
      "sha384",
      "-outform",
      "DER",
      "-out",
      at("s.der"),
    )
    const documentHash = execFileSync("openssl", ["dgst", "-sha384", "-r", at("data.bin")])
      .toString()
      .split(" ")[0]!
    const response = await fetch(`${env.origin}/api/v2/validate?format=html`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ signature: readFileSync(at("s.der")).toString("base64"), documentHash }),
    })
    expect(response.status).toBe(200)
    const html = await response.text()

    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      const requests: Array<string> = []
      const dialogs: Array<string> = []
      page.on("request", (r) => requests.push(r.url()))
      page.on("dialog", (d) => {
        dialogs.push(d.message())
        void d.dismiss()
      })
      await page.setContent(html, { waitUntil: "load" })
      const text = await page.locator("body").innerText()
      expect(text).toContain("Signature validation report")
      expect(text).toContain("signature-1: INDETERMINATE NO_CERTIFICATE_CHAIN_FOUND")
      expect(text).toContain("ECDSA P-256 with SHA-384")
      // the subject as RFC 4514 writes it (a backslash before < and >), shown as text
      expect(text).toMatch(/\\?<img src=x onerror=alert\(1\)\\?>/)
      expect(await page.locator("img").count()).toBe(0)
      expect(await page.evaluate(() => document.scripts.length)).toBe(0)
      expect(await page.locator("table.chain tr").count()).toBeGreaterThanOrEqual(2)
      expect((await page.screenshot()).length).toBeGreaterThan(1000)
      expect(requests).toEqual([])
      expect(dialogs).toEqual([])
    } finally {
      await browser.close()
    }
  }, 60_000)
})
