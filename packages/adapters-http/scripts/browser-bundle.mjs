// The hosted pages' browser scripts (src/pages/browser/*.ts) bundled with esbuild into one classic
// script each: the one place that says how. Run as a script it writes dist/pages/browser/<name>.js
// (the build); src/pages/browser-scripts.ts imports it to bundle on first use when running from source.
import { build } from "esbuild"
import { mkdir, writeFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"

/** Every script a hosted page loads, by the name of its source file in src/pages/browser/. */
export const BROWSER_SCRIPTS = ["webauthn", "signing-frame", "kyc-capture", "admin-console"]

/** One script bundled (with @simplewebauthn/browser where it imports it) into an IIFE for a `<script src defer>`. */
export const bundleBrowserScript = async (name) => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`../src/pages/browser/${name}.ts`, import.meta.url))],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    // the browsers WebAuthn needs anyway; not minified, so a page's script stays readable in the browser's tools
    target: ["chrome109", "firefox115", "safari16"],
    charset: "utf8",
    legalComments: "none",
    logLevel: "silent",
  })
  const [file] = result.outputFiles
  if (file === undefined) throw new Error(`esbuild wrote nothing for ${name}`)
  return file.text
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = new URL("../dist/pages/browser/", import.meta.url)
  await mkdir(out, { recursive: true })
  for (const name of BROWSER_SCRIPTS) await writeFile(new URL(`${name}.js`, out), await bundleBrowserScript(name))
  console.log(`bundled ${BROWSER_SCRIPTS.length} browser scripts into ${fileURLToPath(out)}`)
}
