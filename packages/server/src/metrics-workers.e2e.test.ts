/**
 * `/metrics` with `SIGNET_WORKERS=2` on SQLite (docs/operations.md#workers): signatures made through
 * connections held by each worker, then every scrape, whichever worker takes it, reports their total
 * (not the answering worker's share), with no worker missing; a worker that cannot answer (stopped)
 * is left out and counted missing, and counted again once it answers.
 */
import { Deliveries } from "@signet/core"
import { ok, type SoftwarePasskey } from "@signet/testkit"
import { createHash, randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { Agent } from "node:http"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Engine } from "@signet/adapters-http"
import { WORKER_HEADER } from "./cluster.ts"
import { freePort, spawnServer, type ServerProcess } from "./test-support/server-process.ts"
import { administer, contactSigner, exchange } from "./test-support/signer.ts"

const ADMIN = `adm_${randomBytes(32).toString("base64url")}`

/** The value of one sample of a Prometheus exposition (`name{labels}`, exactly as written), undefined when absent. */
const sample = (text: string, key: string): number | undefined => {
  const line = text.split("\n").find((l) => l.startsWith(`${key} `))
  return line === undefined ? undefined : Number(line.slice(key.length + 1))
}

describe("/metrics over two workers (SQLite)", () => {
  let server: ServerProcess
  let admin: Engine
  let api: string
  let token: string
  let passkey: SoftwarePasskey

  beforeAll(async () => {
    server = await spawnServer({ SIGNET_ENVIRONMENT: "sandbox", SIGNET_WORKERS: "2", SIGNET_ADMIN_TOKEN: ADMIN, SIGNET_WEBHOOKS_ALLOW_LOOPBACK: "1" })
    api = `${server.origin}/api`
    // Administration in process on the same database (the admin CLI's way), without a delivery worker.
    const administration = await administer(server)
    admin = administration.admin
    const signer = await contactSigner(server, admin, administration.mailbox, "Metrics RP", "metrics-workers@example.com")
    passkey = signer.passkey
    token = signer.token
    const client = signer.client
    // A webhook to a port nobody listens on: each signature leaves a delivery pending in the shared outbox.
    ok(
      await client.raw("POST", "/v2/webhooks/register", {
        headers: { authorization: `Bearer ${token}` },
        body: { url: `http://127.0.0.1:${await freePort()}/hook`, events: ["sign.complete"], secret: `whsec_${randomBytes(32).toString("base64")}` },
      }),
    )
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await admin?.dispose()
  })

  /** A kept-alive connection held by `worker` (the cluster hands new connections out in turn; worker 2 may still be starting). */
  const connectionTo = async (worker: string): Promise<Agent> => {
    for (let tries = 0; tries < 100; tries++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      const probe = await exchange(agent, `${api}/health`, "GET")
      if (probe.headers[WORKER_HEADER] === worker) return agent
      agent.destroy()
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`no connection reached worker ${worker}`)
  }

  it("every scrape, whichever worker answers it, counts the signatures made on both", async () => {
    const made = { "1": 2, "2": 3 }
    // One passkey signs on both workers in turn: approvals one at a time (its signature counter).
    for (const [worker, count] of Object.entries(made)) {
      const agent = await connectionTo(worker)
      for (let i = 0; i < count; i++) {
        const created = await exchange(
          agent,
          `${api}/v2/sign/single`,
          "POST",
          { documentHash: createHash("sha256").update(randomBytes(16)).digest("hex"), credentialId: passkey.credentialId },
          { authorization: `Bearer ${token}` },
        )
        expect(created.status).toBe(200)
        const pending = JSON.parse(created.text) as { requestId: string; challenge: string }
        const done = await exchange(agent, `${api}/v2/sign/auth/${pending.requestId}`, "POST", { assertion: passkey.assert({ challenge: pending.challenge }) })
        expect(done.status).toBe(200)
        expect(done.headers[WORKER_HEADER]).toBe(worker)
      }
      agent.destroy()
    }

    // Scrapes on fresh connections, until each worker has answered three.
    const answeredBy = new Map<string, number>()
    for (let scrape = 0; scrape < 30 && !(answeredBy.get("1")! >= 3 && answeredBy.get("2")! >= 3); scrape++) {
      const agent = new Agent({ keepAlive: false })
      const r = await exchange(agent, `${api}/metrics`, "GET", undefined, { authorization: `Bearer ${ADMIN}` })
      agent.destroy()
      expect(r.status).toBe(200)
      const worker = String(r.headers[WORKER_HEADER])
      answeredBy.set(worker, (answeredBy.get(worker) ?? 0) + 1)
      expect({ worker, signatures: sample(r.text, 'signet_signatures_total{digest="SHA-256"}') }).toEqual({ worker, signatures: 5 })
      expect(sample(r.text, "signet_metrics_workers_missing")).toBe(0)
      // The outbox is read from the shared database by each worker: taken once, not doubled.
      const pending = await admin.run(Effect.flatMap(Deliveries, (d) => d.pendingSummary()))
      expect(pending.count).toBeGreaterThan(0)
      expect(sample(r.text, "signet_outbox_pending")).toBe(pending.count)
      // One family per name, even though two processes wrote it.
      expect(r.text.split("\n").filter((l) => l === "# TYPE signet_signatures_total counter")).toHaveLength(1)
    }
    expect(answeredBy.get("1")).toBeGreaterThanOrEqual(3)
    expect(answeredBy.get("2")).toBeGreaterThanOrEqual(3)
  }, 60_000)

  /** The process id of the worker in `slot`: the primary's child whose environment gives it that slot (Linux /proc). */
  const workerPid = (slot: string): number => {
    const primary = server.child.pid!
    const children = readFileSync(`/proc/${primary}/task/${primary}/children`, "utf8").trim().split(/\s+/).map(Number)
    const found = children.find((pid) => readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`SIGNET_WORKER_SLOT=${slot}`))
    if (found === undefined) throw new Error(`no worker in slot ${slot} among ${children.join(", ")}`)
    return found
  }

  it("a worker that does not answer is left out of the scrape and counted missing", async () => {
    const agent = await connectionTo("1")
    const scrape = () => exchange(agent, `${api}/metrics`, "GET", undefined, { authorization: `Bearer ${ADMIN}` })
    const stopped = workerPid("2")
    process.kill(stopped, "SIGSTOP")
    try {
      const started = performance.now()
      const r = await scrape()
      console.log(`[metrics-workers] scrape with worker 2 stopped answered in ${(performance.now() - started).toFixed(0)} ms`)
      expect(r.status).toBe(200)
      expect(r.headers[WORKER_HEADER]).toBe("1")
      expect(sample(r.text, "signet_metrics_workers_missing")).toBe(1)
      // Worker 1's own share only (2 of the 5 signatures of the test above).
      expect(sample(r.text, 'signet_signatures_total{digest="SHA-256"}')).toBe(2)
    } finally {
      process.kill(stopped, "SIGCONT")
    }
    const again = await scrape()
    expect(sample(again.text, "signet_metrics_workers_missing")).toBe(0)
    expect(sample(again.text, 'signet_signatures_total{digest="SHA-256"}')).toBe(5)
    agent.destroy()
  }, 30_000)
})
