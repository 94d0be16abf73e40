/** Vitest global setup: builds the packages (`tsc -b`, incremental) so tests that spawn the built server or CLI run current code. */
import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"

export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  execFileSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { cwd: new URL("..", import.meta.url).pathname, stdio: "inherit" })
}
