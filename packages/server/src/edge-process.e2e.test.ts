/**
 * The server binary as an attacker meets it (issue 13, items 8 and 12): every endpoint that takes
 * a body gets a 100 MB chunked body (no Content-Length) and answers 4xx while the server's RSS
 * grows by less than 50 MB; and the server's stdout has one JSON line per request, with
 * capability ids in paths redacted.
 */
import { enrol, SignetClient, signInAtConsole, SoftwarePasskey } from "@signet/testkit"
import { LogLevel } from "effect"
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeEngine, type Engine } from "@signet/adapters-http"
import { storageFor } from "./storage.ts"
import { spawnServer, type ServerProcess } from "./test-support/server-process.ts"

const MB = 1024 * 1024
const ADMIN_TOKEN = "edge-test-admin-token-0123456789abcdef"

let server: ServerProcess
let admin: Engine
let accessToken: string
beforeAll(async () => {
  server = await spawnServer({ SIGNET_ENVIRONMENT: "sandbox", SIGNET_ADMIN_TOKEN: ADMIN_TOKEN })
  // The endpoint table, from an in-process engine on the same database (the admin CLI's way).
  admin = await makeEngine({
    ...storageFor(server.database),
    masterKey: Buffer.from(server.masterKey, "hex"),
    logLevel: LogLevel.None,
    deliveries: { worker: false },
    housekeeping: false,
    validateResponses: true,
    settings: {
      environment: "sandbox",
      publicOrigin: server.origin,
      basePath: "/api",
      accessTokenTtlSeconds: 3600,
      ceremonyTtlSeconds: 300,
      sessionTtlSeconds: 3600,
    },
  })
  const client = new SignetClient(`${server.origin}/api`)
  // The sandbox server prints each code it "sends" (docs/configuration.md): read it from its stdout.
  client.mailbox = async (email) => {
    for (let tries = 0; tries < 40; tries++) {
      const line = server.stdout.findLast((l) => l.includes(`[sandbox mail] to ${email.toLowerCase()}:`))
      const code = line?.match(/code: (\d{8})/)?.[1]
      if (code !== undefined) return code
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`no code for ${email} in the server's output`)
  }
  const passkey = SoftwarePasskey.create({ origin: server.origin })
  await enrol(client, passkey, { email: "edge@example.com" })
  // A console token carries every scope, so each endpoint gets as far as reading its body.
  accessToken = await signInAtConsole(client, passkey)
}, 120_000)
afterAll(async () => {
  await admin?.dispose()
  await server?.stop()
})

/** Media types of the endpoints that read their body raw (not through the table's JSON schema). */
const RAW_BODIES: Readonly<Record<string, string>> = {
  "POST /v2/ocsp": "application/ocsp-request",
  "POST /v2/tsa": "application/timestamp-query",
  "POST /oauth/token": "application/x-www-form-urlencoded",
  "POST /oauth/revoke": "application/x-www-form-urlencoded",
  "POST /payments/callback/{provider}": "application/json",
}

/** Streams up to `total` bytes chunked (a generated stream, never in memory); stops writing once the answer comes. */
const sendChunked = (path: string, method: string, headers: Record<string, string>, total: number) =>
  new Promise<{ status: number; sent: number }>((resolve, reject) => {
    const port = new URL(server.origin).port
    const req = httpRequest({ host: "127.0.0.1", port, path, method, headers: { ...headers, "transfer-encoding": "chunked" } })
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let sent = 0
    let answered = false
    const timer = setTimeout(() => reject(new Error(`${method} ${path}: no answer after 60 s (${sent} bytes sent)`)), 60_000)
    req.on("response", (res) => {
      answered = true
      res.resume()
      res.on("end", () => {
        clearTimeout(timer)
        resolve({ status: res.statusCode ?? 0, sent })
      })
    })
    req.on("error", (e) => {
      clearTimeout(timer)
      if (!answered) reject(new Error(`${method} ${path}: ${e.message} after ${sent} bytes`))
    })
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length
        if (!req.write(chunk)) {
          req.once("drain", pump)
          return
        }
      }
      if (!answered) req.end()
    }
    pump()
  })

describe("every body is read through the bounded reader", () => {
  it("a 100 MB chunked body to every endpoint that takes one: each that takes one answers 413, the others answer without reading it, and the server's RSS grows by less than 50 MB", async () => {
    const withBody = admin.endpoints.filter((e) => e.method !== "GET")
    expect(withBody.length).toBeGreaterThan(50)
    const target = (path: string) => `/api${path.replace(/\{\w+\}/g, "x")}`
    const headersOf = (e: (typeof withBody)[number]) => ({
      "content-type": RAW_BODIES[`${e.method} ${e.path}`] ?? "application/json",
      authorization: `Bearer ${accessToken}`,
    })
    // Warm up every path with a small body first, so code loading does not count as growth; then with
    // a body just past its limit, which a correct endpoint reads up to the limit and refuses: the
    // allocator and heap then hold what a refusal needs (the server runs from built JavaScript, with
    // a small heap that a first pass would grow), so the 100 MB pass grows RSS only by what an
    // endpoint reads beyond its limit.
    for (const e of withBody) await sendChunked(target(e.path), e.method, headersOf(e), 4096)
    for (const e of withBody) await sendChunked(target(e.path), e.method, headersOf(e), (e.maxBodyBytes ?? MB) + MB)
    const before = server.rss()
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, server.rss())
    }, 10)
    const results: Array<{ route: string; status: number; sent: number; readsBody: boolean }> = []
    try {
      for (const e of withBody) {
        const { status, sent } = await sendChunked(target(e.path), e.method, headersOf(e), 100 * MB)
        // An endpoint that authenticates an RP's Basic credentials first (`/kyc/*`) answers this bearer caller 401 unread.
        const readsBody = e.client === undefined && (e.body !== undefined || e.maxBodyBytes !== undefined || `${e.method} ${e.path}` in RAW_BODIES)
        results.push({ route: `${e.method} ${e.path}`, status, sent, readsBody })
      }
    } finally {
      clearInterval(sampler)
    }
    peak = Math.max(peak, server.rss())
    const growthMb = (peak - before) / MB
    console.info(
      `body limits: ${results.length} endpoints, RSS ${Math.round(before / MB)} MB before, peak ${Math.round(peak / MB)} MB (+${growthMb.toFixed(1)} MB); ` +
        `largest amount sent before the answer ${Math.round(Math.max(...results.map((r) => r.sent)) / MB)} MB`,
    )
    for (const r of results) {
      // an endpoint that takes a body refuses it once past its limit; one that takes none answers without reading it
      if (r.readsBody) expect(r.status, r.route).toBe(413)
      else expect(r.status, r.route).toBeLessThan(500)
      // nothing read (or waited for) the whole body
      expect(r.sent, r.route).toBeLessThan(100 * MB)
    }
    expect(results.filter((r) => r.readsBody).map((r) => r.route)).toEqual(expect.arrayContaining(Object.keys(RAW_BODIES)))
    expect(growthMb).toBeLessThan(50)
  }, 600_000)
})

describe("logs", () => {
  it("stdout has one JSON line per request with method, path, status and request id; capability ids in paths are redacted", async () => {
    const handoffId = "Zq8Wm3Nv5Bx7Lk2Pj9Hd4Fs6Gt1Rc0Ye"
    const requestId = `edge-log-${Date.now()}`
    const answer = await fetch(`${server.origin}/api/enrolment/email`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": requestId },
      body: JSON.stringify({ email: "logged@example.com" }),
    })
    expect(answer.status).toBe(200)
    expect((await fetch(`${server.origin}/api/kyc/handoff/${handoffId}/status`)).status).toBe(404)
    expect((await fetch(`${server.origin}/api/v2/sign/requests/${handoffId}`)).status).toBeGreaterThanOrEqual(400)
    await new Promise((r) => setTimeout(r, 300))
    const entries = server.stdout
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { message: unknown; logLevel: string; timestamp: string; annotations: Record<string, unknown> })
    const line = entries.find((e) => e.message === "request" && e.annotations["requestId"] === requestId)
    expect(line).toBeDefined()
    expect(line!.logLevel).toBe("INFO")
    expect(line!.annotations).toMatchObject({ method: "POST", path: "/api/enrolment/email", status: 200, requestId })
    expect(typeof line!.annotations["durationMs"]).toBe("number")
    expect(entries.filter((e) => e.message === "request" && e.annotations["requestId"] === requestId)).toHaveLength(1)
    const paths = entries.filter((e) => e.message === "request").map((e) => e.annotations["path"])
    expect(paths).toContain("/api/kyc/handoff/[redacted]/status")
    expect(paths).toContain("/api/v2/sign/requests/[redacted]")
    expect(server.stdout.join("\n")).not.toContain(handoffId)
  }, 60_000)
})
