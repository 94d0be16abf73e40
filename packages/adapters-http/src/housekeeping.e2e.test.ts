/** The hourly clean-up: expired quota windows and KYC images older than the retention period disappear. */
import { configureKyc, housekeepingRound, QuotaCounters, TokenRevocations } from "@signet/core"
import { passport } from "@signet/testkit/kyc"
import { ManualClock } from "@signet/testkit/models"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const DAY = 86_400_000

describe("housekeeping", () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 1))
  let env: RunningEngine
  beforeAll(async () => {
    env = await startEngine({ clock, housekeeping: false, deliveries: { worker: false } })
  })
  afterAll(async () => env?.stop())

  it("removes quota windows that ended and keeps the current ones", async () => {
    await env.engine.run(
      Effect.flatMap(QuotaCounters, (q) => Effect.all([q.consume("old-window", 1, 10, clock.now - 1), q.consume("current-window", 1, 10, clock.now + 60_000)])),
    )
    const removed = await env.engine.run(housekeepingRound)
    expect(removed.counters).toBeGreaterThanOrEqual(1)
    expect(await env.engine.run(Effect.flatMap(QuotaCounters, (q) => Effect.all([q.peek("old-window"), q.peek("current-window")])))).toEqual([0, 1])
  })

  it("purges document images once they are older than the retention period (30 days by default)", async () => {
    await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
    const basic = `Basic ${btoa(`${env.rp.clientId}:${env.rp.clientSecret}`)}`
    const post = (path: string, body: unknown) => env.client.raw("POST", path, { body, headers: { authorization: basic } })
    expect((await post("/kyc/verifications", { customer_id: "+254712345678", phone_number: "+254712345678" })).status).toBe(200)
    expect((await post("/kyc/customers/document", { customer_id: "+254712345678", images: [passport("alice")] })).status).toBe(200)
    clock.advance(29 * DAY)
    expect((await env.engine.run(housekeepingRound)).images).toBe(0)
    clock.advance(2 * DAY)
    expect((await env.engine.run(housekeepingRound)).images).toBeGreaterThanOrEqual(1)
  })

  it("forgets revoked access tokens once they would have expired anyway", async () => {
    const revocations = (f: (r: TokenRevocations["Type"]) => Effect.Effect<unknown>) => env.engine.run(Effect.flatMap(TokenRevocations, f))
    await revocations((r) => Effect.all([r.revoke("expired-jti", clock.now - 1), r.revoke("live-jti", clock.now + 3_600_000)]))
    expect((await env.engine.run(housekeepingRound)).revocations).toBe(1)
    expect(await revocations((r) => Effect.all([r.isRevoked("expired-jti"), r.isRevoked("live-jti")]))).toEqual([false, true])
  })
})
