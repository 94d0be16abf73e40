/**
 * Regenerates `src/openapi.ts` from the OpenAPI document a running engine serves (`GET /api/openapi.json`):
 *   pnpm --filter @signet/client generate
 * `openapi.e2e.test.ts` fails when the committed file differs from what this writes.
 */
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { startEngine } from "../../../adapters-http/src/test-support/running-engine.ts"
import { typesOf } from "./types-of.ts"

const running = await startEngine({ housekeeping: false })
try {
  const document = (await (await fetch(`${running.origin}/api/openapi.json`)).json()) as Record<string, unknown>
  const file = fileURLToPath(new URL("../openapi.ts", import.meta.url))
  writeFileSync(file, await typesOf(document))
  console.log(`wrote ${file}`)
} finally {
  await running.stop()
}
