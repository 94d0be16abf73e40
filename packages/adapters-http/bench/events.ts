/**
 * `pnpm bench:events`: how soon 1,000 (or `--clients N`) concurrent event-stream clients on one
 * node see a completion, from the moment the completion is answered: p50, p90 and the slowest.
 * The load test asserts that every client sees it; this prints how soon (the target is 1 s).
 */
import { crowdLatencies } from "../src/test-support/event-crowd.ts"
import { startEngine } from "../src/test-support/running-engine.ts"

const arg = process.argv.indexOf("--clients")
const clients = arg >= 0 ? Number(process.argv[arg + 1]) : 1000

const env = await startEngine()
try {
  const latencies = await crowdLatencies(env, clients, 10_000)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!
  const missed = latencies.filter((ms) => ms === Infinity).length
  console.log(
    `event stream: ${clients} clients, completion seen after p50 ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, max ${at(1).toFixed(0)} ms${missed > 0 ? `; ${missed} saw nothing within 10 s` : ""}`,
  )
} finally {
  await env.stop()
}
