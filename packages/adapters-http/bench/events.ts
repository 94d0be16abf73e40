/**
 * `pnpm bench:events`: how soon 1,000 (or `--clients N`) concurrent event-stream clients on one
 * node see a completion, from the moment the completion is answered: p50, p90, p99 and the slowest;
 * and the memory the idle streams hold (the clients run in the same process: an upper bound).
 * The load test asserts that every client sees it; this prints how soon (the target is 1 s).
 */
import { loadavg } from "node:os"
import { crowdLatencies } from "../src/test-support/event-crowd.ts"
import { startEngine } from "../src/test-support/running-engine.ts"

const arg = process.argv.indexOf("--clients")
const clients = arg >= 0 ? Number(process.argv[arg + 1]) : 1000

const memory = () => {
  globalThis.gc?.()
  const m = process.memoryUsage()
  return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers }
}

const env = await startEngine({ housekeeping: false })
try {
  const before = memory()
  let connected = before
  const latencies = await crowdLatencies(env, clients, 10_000, () => {
    connected = memory()
  })
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!
  const missed = latencies.filter((ms) => ms === Infinity).length
  const kib = (bytes: number) => (bytes / clients / 1024).toFixed(1)
  console.log(
    `event stream: ${clients} clients, completion seen after p50 ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, max ${at(1).toFixed(0)} ms${missed > 0 ? `; ${missed} saw nothing within 10 s` : ""}`,
  )
  console.log(
    `event stream: memory per idle client (server and client ends in one process) ${kib(connected.rss - before.rss)} KiB resident, ${kib(connected.heap - before.heap)} KiB heap${globalThis.gc === undefined ? " (run with --expose-gc for steadier figures)" : ""}; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  )
} finally {
  await env.stop()
}
