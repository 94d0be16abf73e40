/**
 * 1,000 concurrent event-stream clients on one node all see a completion. How soon is a
 * figure of `pnpm bench:events`, not an assertion: a loaded machine must not flake this test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { crowdLatencies } from "./test-support/event-crowd.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const CLIENTS = 1000

describe("event stream under load", () => {
  let env: RunningEngine
  beforeAll(async () => {
    env = await startEngine()
  })
  afterAll(async () => env?.stop())

  it(`${CLIENTS} clients each receive the completion`, async () => {
    // The wait is a liveness bound (the stream re-reads every few seconds at worst), not a latency target.
    const latencies = await crowdLatencies(env, CLIENTS, 20_000)
    expect(latencies.filter((ms) => ms === Infinity)).toHaveLength(0)
  }, 60_000)
})
