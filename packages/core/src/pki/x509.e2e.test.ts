/** Importing the core patches no global: the x509 libraries (and their Reflect polyfill) load on first use only. */
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

const at = (path: string) => JSON.stringify(new URL(path, import.meta.url).href)

// A fresh Node process imports the built package (vitest's global setup builds it) as an embedder
// would; then it loads x509 as the first certificate does, which brings the polyfill.
const probe = `
const before = Object.getOwnPropertyNames(Reflect).sort().join()
const core = await import(${at("../../dist/index.js")})
const afterImport = Object.getOwnPropertyNames(Reflect).sort().join()
const { Effect } = await import(${at("../../node_modules/effect/dist/esm/index.js")})
const { loadX509 } = await import(${at("../../dist/pki/x509.js")})
const x509 = await Effect.runPromise(loadX509)
console.log(JSON.stringify({ exports: Object.keys(core).length, before, afterImport, afterLoad: typeof Reflect.getMetadata, x509: typeof x509.X509Certificate }))
`

describe("importing @signet/core", () => {
  it("leaves Reflect alone; the x509 library and its polyfill come with the first certificate", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", probe])
    const seen = JSON.parse(stdout) as { exports: number; before: string; afterImport: string; afterLoad: string; x509: string }
    expect(seen.exports).toBeGreaterThan(100)
    expect(seen.afterImport).toBe(seen.before)
    expect(seen.afterImport).not.toContain("getMetadata")
    expect([seen.afterLoad, seen.x509]).toEqual(["function", "function"])
  })
})
