/** The architecture check catches each kind of breach on a small tree, and passes the tree without it. */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const script = path.join(import.meta.dirname, "check-architecture.ts")
const made: Array<string> = []
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

const manifest = (name: string, dependencies: Record<string, string> = {}, devDependencies: Record<string, string> = {}) =>
  JSON.stringify({ name: `@signet/${name}`, type: "module", exports: { ".": "./src/index.ts" }, dependencies, devDependencies })

// A tree that keeps every rule: two capabilities (b uses a), a kernel, an adapter, the testkit, an example.
const BASE: Record<string, string> = {
  "packages/core/package.json": manifest("core"),
  "packages/core/src/index.ts": `export * from "./a/index.ts"\nexport * from "./b/index.ts"\n`,
  "packages/core/src/kernel/util.ts": `export const k = 1\nexport const at = (ms: number) => new Date(ms)\n`,
  "packages/core/src/a/index.ts": `export { f } from "./impl.ts"\nexport type { APort } from "./ports.ts"\n`,
  "packages/core/src/a/ports.ts": `export interface APort { readonly x: number }\n`,
  "packages/core/src/a/impl.ts": `import { k } from "../kernel/util.ts"\nexport const f = () => k\n`,
  "packages/core/src/b/index.ts": `export { g } from "./impl.ts"\n`,
  "packages/core/src/b/ports.ts": `export const B_PORT = "b"\n`,
  "packages/core/src/b/impl.ts": `import { f } from "../a/impl.ts"\nconst settings = { process: 1 }\nexport const g = () => f() + settings.process\n`,
  "packages/adapters-sql/package.json": manifest("adapters-sql", { "@signet/core": "workspace:*" }, { "@signet/testkit": "workspace:*" }),
  "packages/adapters-sql/src/index.ts": `import { f } from "@signet/core"\nexport const sql = f\n`,
  "packages/adapters-sql/src/index.test.ts": `import { kit } from "@signet/testkit"\nexport const t = kit\n`,
  "packages/testkit/package.json": manifest("testkit", { "@signet/core": "workspace:*" }),
  "packages/testkit/src/index.ts": `import { g } from "@signet/core"\nexport const kit = g\n`,
  "examples/express/server.ts": `import { f } from "@signet/core"\nexport const app = f\n`,
}

const run = (changes: Record<string, string>) => {
  const dir = mkdtempSync(path.join(tmpdir(), "arch-"))
  made.push(dir)
  for (const [file, text] of Object.entries({ ...BASE, ...changes })) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), text)
  }
  const result = spawnSync(process.execPath, ["--import", "tsx", script, "--root", dir], { encoding: "utf8" })
  return { status: result.status, output: `${result.stdout}${result.stderr}` }
}

describe("scripts/check-architecture.ts", () => {
  it("passes a tree that keeps the rules", () => {
    const { status, output } = run({})
    expect(output).toContain("architecture check passed")
    expect(status).toBe(0)
  })

  it.each([
    [
      "a file-level cycle",
      {
        "packages/core/src/a/x.ts": `import { y } from "./y.ts"\nexport const x = () => y`,
        "packages/core/src/a/y.ts": `import type { x } from "./x.ts"\nexport const y = 1\nexport type X = typeof x`,
      },
      "import cycle: packages/core/src/a/x.ts",
    ],
    [
      "a capability cycle through implementation files",
      { "packages/core/src/a/impl.ts": `import { g } from "../b/impl.ts"\nexport const f = () => 1\nexport const h = g` },
      "capability cycle outside declared ports: a -> b",
    ],
    [
      "the kernel importing a capability",
      { "packages/core/src/kernel/util.ts": `import { f } from "../a/impl.ts"\nexport const k = 1\nexport const kf = f` },
      "the kernel imports the a capability",
    ],
    [
      "a capability importing the composition root",
      { "packages/core/src/a/impl.ts": `import { g } from "../index.ts"\nexport const f = () => 1\nexport const h = g` },
      "imports the composition file index.ts",
    ],
    [
      "a contract file importing an implementation",
      { "packages/core/src/a/ports.ts": `import { g } from "../b/impl.ts"\nexport const P = g` },
      "contract file a/ports.ts imports b/impl.ts as a value",
    ],
    ["Date.now() in the core", { "packages/core/src/a/impl.ts": `export const f = () => Date.now()` }, "the core calls Date.now()"],
    ["new Date() in the core", { "packages/core/src/a/impl.ts": `export const f = () => new Date().getTime()` }, "new Date() without an argument"],
    ["Math.random() in the core", { "packages/core/src/a/impl.ts": `export const f = () => Math.random()` }, "the core calls Math.random()"],
    ["process in the core", { "packages/core/src/a/impl.ts": `export const f = () => process.env["X"]` }, "the core reads `process`"],
    [
      "a node: import in the core",
      { "packages/core/src/a/impl.ts": `import { readFileSync } from "node:fs"\nexport const f = () => readFileSync` },
      "the core imports node:fs",
    ],
    [
      "the core importing an adapter",
      { "packages/core/src/a/impl.ts": `import { sql } from "@signet/adapters-sql"\nexport const f = () => sql` },
      "@signet/core production code may not import @signet/adapters-sql",
    ],
    [
      "production code importing the testkit",
      { "packages/adapters-sql/src/index.ts": `import { kit } from "@signet/testkit"\nexport const sql = kit` },
      "production code imports @signet/testkit",
    ],
    [
      "an import its package.json does not declare",
      { "packages/testkit/package.json": manifest("testkit") },
      "@signet/core is imported but not in packages/testkit/package.json dependencies",
    ],
    [
      "a package without a boundary rule",
      {
        "packages/mystery/package.json": manifest("mystery", { "@signet/core": "workspace:*" }),
        "packages/mystery/src/index.ts": `import { f } from "@signet/core"\nexport const m = f`,
      },
      "no boundary rule for packages/mystery",
    ],
    [
      "a relative import into another package",
      { "packages/adapters-sql/src/index.ts": `import { f } from "../../core/src/a/impl.ts"\nexport const sql = f` },
      "leaves packages/adapters-sql",
    ],
    [
      "an example reaching into packages/",
      { "examples/express/server.ts": `import { f } from "../../packages/core/src/a/impl.ts"\nexport const app = f` },
      "leaves examples/express",
    ],
    [
      "a JavaScript example reaching into packages/",
      { "examples/hono/server.js": `import { f } from "../../packages/core/src/a/impl.ts"\nexport const app = f\n` },
      "leaves examples/hono",
    ],
    [
      "a subpath that is not an export",
      { "examples/express/server.ts": `import { f } from "@signet/core/src/a/impl.ts"\nexport const app = f` },
      "is not an export of @signet/core",
    ],
  ])("fails on %s", (_what, changes, message) => {
    const { status, output } = run(changes)
    expect(output).toContain(message)
    expect(status).toBe(1)
  })

  it("allows what the rules declare: type-only and port imports across capabilities, time from an argument, tests importing the testkit", () => {
    const { status, output } = run({
      "packages/core/src/b/other.ts": `export interface Other { readonly n: number }\nexport const other = 2`,
      "packages/core/src/a/impl.ts": `import type { Other } from "../b/other.ts"\nimport { B_PORT } from "../b/ports.ts"\nexport const f = () => new Date(0).getTime() + B_PORT.length\nexport type O = Other`,
    })
    expect(output).toContain("architecture check passed")
    expect(status).toBe(0)
  })
})
