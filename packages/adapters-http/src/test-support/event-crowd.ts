/**
 * A crowd of event-stream clients on one engine: they connect to `/v2/events`, one signer
 * completes a request, and each client notes when it saw the completion. Shared by the load
 * test (everyone sees it) and `pnpm bench:events` (how soon).
 */
import { enrol, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { createHash, randomBytes } from "node:crypto"
import { Agent, get } from "node:http"
import type { RunningEngine } from "./running-engine.ts"

const WAVE = 250

/** Milliseconds from the completion's answer to each client's sight of it, sorted; Infinity for a client that saw nothing within `waitMs`. */
export const crowdLatencies = async (env: RunningEngine, clients: number, waitMs: number, onConnected?: () => void): Promise<ReadonlyArray<number>> => {
  const passkey = SoftwarePasskey.create({ origin: env.origin })
  await enrol(env.client, passkey, { email: `crowd-${randomBytes(4).toString("hex")}@example.com` })
  const token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
  const url = new URL(`${env.client.baseUrl}/v2/events`)
  const connected: Array<Promise<void>> = []
  const completedAt: Array<number> = new Array<number>(clients).fill(0)
  const requests: Array<ReturnType<typeof get>> = []
  for (let i = 0; i < clients; i++) {
    // In waves: thousands of connections opened at once overflow the listen backlog (ECONNRESET).
    if (i > 0 && i % WAVE === 0) await Promise.all(connected.slice(i - WAVE, i))
    connected.push(
      new Promise((resolve, reject) => {
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
      }),
    )
  }
  await Promise.all(connected)
  onConnected?.()
  const pending = ok(
    await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
      headers: { authorization: `Bearer ${token}` },
      body: { documentHash: createHash("sha256").update(randomBytes(8)).digest("hex"), credentialId: passkey.credentialId },
    }),
  )
  ok(
    await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
      body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
    }),
  )
  const done = performance.now()
  const deadline = done + waitMs
  while (completedAt.some((t) => t === 0) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10))
  for (const r of requests) r.destroy()
  agent.destroy()
  return completedAt.map((t) => (t === 0 ? Infinity : Math.max(0, t - done))).sort((a, b) => a - b)
}
