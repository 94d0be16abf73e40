/** Test support: headless Debian Chromium (`apt-get install -y chromium`) driven by playwright-core, with a WebAuthn virtual authenticator. */
import { describe, expect, it } from "vitest"
import { existsSync } from "node:fs"
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from "playwright-core"

/** Where the Debian `chromium` package installs its launcher. */
export const CHROMIUM_PATH = "/usr/bin/chromium"

/** Whether the Debian Chromium binary is installed. */
export const chromiumAvailable = (): boolean => existsSync(CHROMIUM_PATH)

/** Launches headless Chromium with no background traffic (no internet is assumed). */
export const launchChromium = (): Promise<Browser> =>
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
    ],
  })

/** Attaches a CTAP2 platform authenticator (resident keys, user verification always succeeds) to the page's context. */
export const addVirtualAuthenticator = async (page: Page): Promise<{ readonly cdp: CDPSession; readonly authenticatorId: string }> => {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send("WebAuthn.enable")
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  return { cdp, authenticatorId }
}

/**
 * A fresh browser profile and page that collects uncaught page errors and console errors; the
 * browser's own `/favicon.ico` probe never counts (Signet is mounted at `/api`, not the origin root),
 * and `counts` can narrow the console errors further (by their source URL and text).
 */
export const openPage = async (
  browser: Browser,
  options: { readonly viewport?: { readonly width: number; readonly height: number }; readonly counts?: (url: string, text: string) => boolean } = {},
): Promise<{ readonly context: BrowserContext; readonly page: Page; readonly errors: Array<string> }> => {
  const context = await browser.newContext(options.viewport === undefined ? {} : { viewport: options.viewport })
  const page = await context.newPage()
  const errors: Array<string> = []
  page.on("console", (m) => {
    const url = m.location().url
    if (m.type() === "error" && !url.endsWith("/favicon.ico") && (options.counts?.(url, m.text()) ?? true)) errors.push(m.text())
  })
  page.on("pageerror", (e) => errors.push(String(e)))
  return { context, page, errors }
}

/**
 * Declares the browser prerequisite for a suite: when Chromium is missing the suite is skipped
 * with a loud warning, or fails when `SIGNET_REQUIRE_BROWSER=1` (CI). Answers whether it is there.
 */
export const requireBrowser = (what: string): boolean => {
  const available = chromiumAvailable()
  const required = process.env["SIGNET_REQUIRE_BROWSER"] === "1"
  if (!available && !required) {
    console.warn(
      `\n!!! Chromium not found at ${CHROMIUM_PATH} (apt-get install -y chromium): SKIPPING browser tests of ${what}. Set SIGNET_REQUIRE_BROWSER=1 to make this a failure. !!!\n`,
    )
  }
  describe.runIf(required)(`browser prerequisites for ${what} (SIGNET_REQUIRE_BROWSER=1)`, () => {
    it(`Chromium is installed at ${CHROMIUM_PATH}`, () => {
      expect(available, `Chromium not found at ${CHROMIUM_PATH}; install it with apt-get install -y chromium`).toBe(true)
    })
  })
  return available
}
