/**
 * `pnpm bench:poison` (second half): the hostile PDFs of issue 13 sent 8 at a time to
 * `POST /v2/validate` of a running engine (PDF work in its worker threads) while `/health` is
 * polled every 100 ms: how long each poison takes to be refused and how slow `/health` got.
 * The e2e test (`pdf-workers/poison.e2e.test.ts`) asserts the answers; this prints the times.
 */
import { toBase64 } from "@signet/core"
import { deepNestingPdf, poisonPdfs } from "@signet/testkit/pdf"
import { startEngine } from "../src/test-support/running-engine.ts"

const env = await startEngine({ housekeeping: false })
const api = `${env.origin}/api`
try {
  const health = { slowest: 0, checks: 0, failures: 0 }
  let polling = true
  const poller = (async () => {
    while (polling) {
      const started = performance.now()
      const answer = await fetch(`${api}/health`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined)
      health.slowest = Math.max(health.slowest, performance.now() - started)
      health.checks++
      if (answer?.status !== 200) health.failures++
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  for (const { name, pdf } of [...poisonPdfs(), { name: "arrays nested 100,000 deep", pdf: deepNestingPdf() }]) {
    const body = JSON.stringify({ pdf: toBase64(pdf) })
    const answers = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const started = performance.now()
        const response = await fetch(`${api}/v2/validate`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(30_000),
        })
        await response.arrayBuffer()
        return { status: response.status, ms: performance.now() - started }
      }),
    )
    const ms = answers.map((a) => a.ms).sort((a, b) => a - b)
    console.log(
      `HTTP, 8 at a time: ${name}: ${[...new Set(answers.map((a) => a.status))].join("/")} after median ${ms[4]!.toFixed(0)} ms, slowest ${ms[7]!.toFixed(0)} ms`,
    )
  }
  polling = false
  await poller
  console.log(`/health meanwhile: ${health.checks} checks, ${health.failures} failed, slowest ${health.slowest.toFixed(0)} ms (target: under 1 s)`)
} finally {
  await env.stop()
}
