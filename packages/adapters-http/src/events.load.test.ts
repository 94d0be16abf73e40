/** 1,000 concurrent event-stream clients on one node each see a completion within a second. */
import { enrol, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { createHash, randomBytes } from "node:crypto"
import { Agent, get } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const CLIENTS = 1000

describe("event stream under load", () => {
  let env: RunningEngine
  beforeAll(async () => {
    env = await startEngine()
  })
  afterAll(async () => env?.stop())

  it(`${CLIENTS} clients each receive the completion within one second`, async () => {
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, passkey, { email: "crowd@example.com" })
    const token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
    const url = new URL(`${env.client.baseUrl}/v2/events`)
    const connected: Array<Promise<void>> = []
    const completedAt: Array<number> = new Array<number>(CLIENTS).fill(0)
    const requests: Array<ReturnType<typeof get>> = []
    for (let i = 0; i < CLIENTS; i++) {
      connected.push(new Promise((resolve, reject) => {
        const req = get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
          let text = ""
          res.setEncoding("utf8")
          res.on("data", (chunk: string) => {
            text += chunk
            if (text.includes("event: connected")) resolve()
            if (completedAt[i] === 0 && text.includes("event: signing_request_completed")) completedAt[i] = performance.now()
          })
        })
        req.on("error", reject)
        requests.push(req)
      }))
    }
    await Promise.all(connected)
    const pending = ok(await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
      headers: { authorization: `Bearer ${token}` }, body: { documentHash: createHash("sha256").update(randomBytes(8)).digest("hex"), credentialId: passkey.credentialId },
    }))
    ok(await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, { body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) } }))
    const done = performance.now()
    const deadline = done + 3000
    while (completedAt.some((t) => t === 0) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    requests.forEach((r) => r.destroy())
    agent.destroy()
    const latencies = completedAt.map((t) => (t === 0 ? Infinity : Math.max(0, t - done))).sort((a, b) => a - b)
    const p50 = latencies[Math.floor(CLIENTS / 2)]!
    const max = latencies[CLIENTS - 1]!
    console.log(`event stream: ${CLIENTS} clients, completion seen after p50 ${p50.toFixed(0)} ms, max ${max.toFixed(0)} ms`)
    expect(max).toBeLessThan(1000)
  }, 60_000)
})
