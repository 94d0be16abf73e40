/**
 * The hosted pages' browser scripts (TypeScript in `./browser/`, type-checked with the DOM lib).
 * Built JavaScript serves the bundles the build wrote beside this module (`dist/pages/browser/*.js`);
 * running from source (tests, tsx), the first request bundles the source with esbuild in process.
 */
import { readFile } from "node:fs/promises"
import { Effect } from "effect"
import { baseHeaders } from "../http/respond.ts"

/** A hosted page's script, by the name of its source in `./browser/`. */
export type BrowserScript = "webauthn" | "signing-frame" | "kyc-capture" | "admin-console"

const loaded = new Map<BrowserScript, Promise<string>>()

const load = async (name: BrowserScript): Promise<string> => {
  try {
    return await readFile(new URL(`./browser/${name}.js`, import.meta.url), "utf8")
  } catch (e) {
    if ((e as { code?: unknown }).code !== "ENOENT") throw e
  }
  // No bundle beside this module: running from source, where esbuild (a dev tool) is installed.
  const bundler = new URL("../../scripts/browser-bundle.mjs", import.meta.url).href
  const loaded = (await import(bundler).catch((e: unknown) => {
    throw new Error(`the hosted page script ${name}.js was not built (pnpm build:pages) and cannot be bundled here`, { cause: e })
  })) as { bundleBrowserScript: (name: string) => Promise<string> }
  return loaded.bundleBrowserScript(name)
}

/** The script's text, read or bundled once per process. */
export const browserScript = (name: BrowserScript): Promise<string> => {
  let text = loaded.get(name)
  if (text === undefined) {
    text = load(name)
    // a failed bundle is not cached: the next request tries again
    text.catch(() => loaded.delete(name))
    loaded.set(name, text)
  }
  return text
}

/** The response that serves a hosted page's script from the engine's own origin (the pages' CSP is `script-src 'self'`). */
export const scriptResponse = (name: BrowserScript, requestId: string, cacheControl = "public, max-age=300") =>
  Effect.map(
    Effect.promise(() => browserScript(name)),
    (text) => new Response(text, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": cacheControl, ...baseHeaders(requestId) } }),
  )
