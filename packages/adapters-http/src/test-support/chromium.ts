/** Test support: headless Debian Chromium (`apt-get install -y chromium`) driven by playwright-core, with a WebAuthn virtual authenticator. */
import { describe, expect, it } from "vitest"
import { existsSync } from "node:fs"
import { chromium, type Browser, type CDPSession, type Page } from "playwright-core"

/** Where the Debian `chromium` package installs its launcher. */
export const CHROMIUM_PATH = "/usr/bin/chromium"

/** Whether the Debian Chromium binary is installed. */
export const chromiumAvailable = (): boolean => existsSync(CHROMIUM_PATH)

/** Launches headless Chromium with no background traffic (no internet is assumed). */
export const launchChromium = (): Promise<Browser> => chromium.launch({
  executablePath: CHROMIUM_PATH,
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic",
  ],
})

/** Attaches a CTAP2 platform authenticator (resident keys, user verification always succeeds) to the page's context. */
export const addVirtualAuthenticator = async (page: Page): Promise<{ readonly cdp: CDPSession; readonly authenticatorId: string }> => {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send("WebAuthn.enable")
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  return { cdp, authenticatorId }
}

/**
 * Declares the browser prerequisite for a suite: when Chromium is missing the suite is skipped
 * with a loud warning, or fails when `SIGNET_REQUIRE_BROWSER=1` (CI). Answers whether it is there.
 */
export const requireBrowser = (what: string): boolean => {
  const available = chromiumAvailable()
  const required = process.env["SIGNET_REQUIRE_BROWSER"] === "1"
  if (!available && !required) {
    console.warn(`\n!!! Chromium not found at ${CHROMIUM_PATH} (apt-get install -y chromium): SKIPPING browser tests of ${what}. Set SIGNET_REQUIRE_BROWSER=1 to make this a failure. !!!\n`)
  }
  describe.runIf(required)(`browser prerequisites for ${what} (SIGNET_REQUIRE_BROWSER=1)`, () => {
    it(`Chromium is installed at ${CHROMIUM_PATH}`, () => {
      expect(available, `Chromium not found at ${CHROMIUM_PATH}; install it with apt-get install -y chromium`).toBe(true)
    })
  })
  return available
}
