import { describe, expect, it } from "vitest"
import { browserScript, type BrowserScript } from "./browser-scripts.ts"

const names: ReadonlyArray<BrowserScript> = ["webauthn", "signing-frame", "kyc-capture", "admin-console"]

describe("hosted pages' browser scripts", () => {
  it.each(names)("%s is bundled into one classic script a page can load under script-src 'self'", async (name) => {
    const text = await browserScript(name)
    // A classic <script src> cannot hold import/export; compiling (not running) it as a function body proves it parses as one.
    expect(() => new Function(text)).not.toThrow()
    expect(text).not.toMatch(/\bimport\s*\(|\beval\(|new Function/)
  })

  it("the passkey pages use @simplewebauthn/browser, bundled in", async () => {
    for (const name of ["webauthn", "signing-frame"] as const) expect(await browserScript(name)).toContain("startAuthentication")
  })

  it("a script is bundled once per process", async () => {
    expect(browserScript("admin-console")).toBe(browserScript("admin-console"))
  })
})
