/**
 * `/metrics` read back as a Prometheus scraper reads it: behind the administrator token, and its
 * counters move with what the engine does (requests, a signature, a quota refusal, an event stream,
 * webhook deliveries and the outbox, a KYC outcome, storage transactions).
 */
import { administerRelyingParty, configureKyc } from "@signet/core"
import { enrol, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { passport } from "@signet/testkit/kyc"
import { createHash, randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import { afterAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const ADMIN = `adm_${randomBytes(32).toString("base64url")}`

/** One sample of the scrape: `name{labels} value` lines, labels matched as a subset. */
const sample = (text: string, name: string, labels: Readonly<Record<string, string>> = {}): number => {
  let total = 0
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (m === null || m[1] !== name) continue
    const found = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]))
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) total += Number(m[3])
  }
  return total
}

let env: RunningEngine
let receiver: Server
afterAll(async () => {
  await env?.stop()
  receiver?.close()
})

describe("GET /metrics", () => {
  it("answers only the administrator token, in the Prometheus text format, and its counters move", async () => {
    receiver = createServer((_req, res) => res.writeHead(204).end())
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`
    env = await startEngine({ adminToken: ADMIN })
    const scrape = async () => {
      const r = await fetch(`${env.origin}/api/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })
      expect(r.status).toBe(200)
      expect(r.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
      return r.text()
    }
    expect((await fetch(`${env.origin}/api/metrics`)).status).toBe(401)
    expect((await fetch(`${env.origin}/api/metrics`, { headers: { authorization: "Bearer adm_wrong" } })).status).toBe(401)

    const before = await scrape()
    expect(before).toContain("# TYPE signet_http_requests_total counter")
    expect(before).toContain("# TYPE signet_outbox_pending gauge")

    await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    const { userId } = await enrol(env.client, passkey, { email: "metrics@example.com" })
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId }))
    const token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    const auth = { authorization: `Bearer ${token}` }
    // One subscription that receives, one that cannot (nothing listens on port 9): it stays pending, retried.
    for (const url of [hook, "http://127.0.0.1:9/hook"]) {
      ok(
        await env.client.raw("POST", "/v2/webhooks/register", {
          headers: auth,
          body: { url, events: ["sign.complete"], secret: `whsec_${randomBytes(32).toString("base64")}` },
        }),
      )
    }
    // An event stream stays open while we scrape.
    const stream = new AbortController()
    const events = await fetch(`${env.origin}/api/v2/events`, { headers: auth, signal: stream.signal })
    expect(events.status).toBe(200)
    const reader = events.body!.getReader()
    await reader.read()

    const pending = ok(
      await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        headers: auth,
        body: { documentHash: createHash("sha256").update(randomBytes(8)).digest("hex"), credentialId: passkey.credentialId },
      }),
    )
    ok(await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, { body: { assertion: passkey.assert({ challenge: pending.challenge }) } }))
    const documents = Array.from({ length: 11 }, (_, i) => ({ id: `d${i}`, hash: "ab".repeat(32), hash_algo: "SHA-256" }))
    expect((await env.client.raw("POST", "/v2/sign/batch", { headers: auth, body: { credentialId: passkey.credentialId, documents } })).status).toBe(429)
    const basic = { authorization: `Basic ${btoa(`${env.rp.clientId}:${env.rp.clientSecret}`)}` }
    ok(await env.client.raw("POST", "/kyc/verifications", { headers: basic, body: { customer_id: "grace@example.com", phone_number: "+254712000001" } }))
    ok(await env.client.raw("POST", "/kyc/customers/document", { headers: basic, body: { customer_id: "grace@example.com", images: [passport("grace")] } }))

    // The worker delivers to the receiver (and keeps the other pending).
    let after = await scrape()
    for (let i = 0; i < 50 && sample(after, "signet_webhook_delivery_lag_seconds_count") <= sample(before, "signet_webhook_delivery_lag_seconds_count"); i++) {
      await new Promise((r) => setTimeout(r, 100))
      after = await scrape()
    }
    const moved = (name: string, labels: Readonly<Record<string, string>> = {}) => sample(after, name, labels) - sample(before, name, labels)

    expect(moved("signet_http_requests_total", { method: "POST", route: "/api/v2/sign/single", status: "200" })).toBe(1)
    expect(moved("signet_http_requests_total", { method: "POST", route: "/api/v2/sign/auth/{requestId}", status: "200" })).toBe(1)
    expect(moved("signet_http_request_duration_seconds_count", { route: "/api/v2/sign/single" })).toBe(1)
    expect(moved("signet_http_errors_total", { route: "/api/v2/sign/batch", error: "BatchSizeExceeded" })).toBe(1)
    expect(moved("signet_quota_refusals_total", { kind: "batch" })).toBe(1)
    expect(moved("signet_signatures_total", { digest: "SHA-256" })).toBe(1)
    expect(sample(after, "signet_sse_clients")).toBeGreaterThanOrEqual(1)
    expect(moved("signet_webhook_delivery_attempts_total", { outcome: "delivered" })).toBeGreaterThanOrEqual(1)
    expect(moved("signet_webhook_delivery_lag_seconds_count")).toBeGreaterThanOrEqual(1)
    expect(sample(after, "signet_outbox_pending")).toBeGreaterThanOrEqual(1)
    expect(sample(after, "signet_outbox_oldest_pending_seconds")).toBeGreaterThan(0)
    expect(moved("signet_kyc_outcomes_total", { status: "document_verified" })).toBe(1)
    expect(moved("signet_db_transaction_duration_seconds_count", { dialect: "sqlite", outcome: "commit" })).toBeGreaterThanOrEqual(2)
    // a COMMIT serves one or more units of work (SQLite's commit groups; a unit that failed was undone
    // to its savepoint and still shares its group's COMMIT), never none
    const commitsMoved = moved("signet_db_commits_total", { dialect: "sqlite" })
    const unitsMoved =
      moved("signet_db_transaction_duration_seconds_count", { dialect: "sqlite", outcome: "commit" }) +
      moved("signet_db_transaction_duration_seconds_count", { dialect: "sqlite", outcome: "rollback" })
    expect(commitsMoved).toBeGreaterThanOrEqual(1)
    expect(commitsMoved).toBeLessThanOrEqual(unitsMoved)
    // A histogram's buckets are cumulative and end with +Inf = count.
    const count = sample(after, "signet_http_request_duration_seconds_count", { route: "/api/v2/sign/single" })
    expect(sample(after, "signet_http_request_duration_seconds_bucket", { route: "/api/v2/sign/single", le: "+Inf" })).toBe(count)

    // The stream closed: the gauge goes back down.
    const open = sample(after, "signet_sse_clients")
    stream.abort()
    await reader.cancel().catch(() => {})
    let closed = await scrape()
    for (let i = 0; i < 50 && sample(closed, "signet_sse_clients") >= open; i++) {
      await new Promise((r) => setTimeout(r, 100))
      closed = await scrape()
    }
    expect(sample(closed, "signet_sse_clients")).toBe(open - 1)
  }, 60_000)
})
