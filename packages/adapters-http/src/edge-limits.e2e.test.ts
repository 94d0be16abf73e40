/**
 * Limits and headers at the edge (issue 13, items 6, 11, 14, 16): the enrolment limit, one KYC
 * counter per IP, the selfie/video limit, a per-token counter for registered-mode challenges,
 * `Retry-After` on every 429, X-Forwarded-For believed only from trusted proxies, `nosniff`,
 * `no-store` on hosted HTML, 400 for a malformed Host, and log lines that are printed.
 */
import { configureKyc, RateLimitExceeded } from "@signet/core"
import { enrol, ok, SoftwarePasskey, type ErrorBody } from "@signet/testkit"
import { Effect, LogLevel } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { makeEngine } from "./engine.ts"
import { clientAddress, limitedClient, parseTrustedProxies } from "./http/client-address.ts"
import { endpoint } from "./http/endpoint.ts"
import { storageFor } from "../../server/src/index.ts"
import { freshMinuteWindow } from "./test-support/minute-window.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

let env: RunningEngine
let basic: string
beforeAll(async () => {
  // Loopback is the trusted proxy: each test poses as its own client through X-Forwarded-For.
  env = await startEngine({ trustedProxies: ["127.0.0.1", "::1"] })
  await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
  basic = `Basic ${btoa(`${env.rp.clientId}:${env.rp.clientSecret}`)}`
})
afterAll(async () => env?.stop())

let nextClient = 1
/** A client address of its own (TEST-NET-3), so counters do not meet across tests. */
const newClient = () => `203.0.113.${nextClient++}`

const post = (path: string, body: unknown, headers: Record<string, string>) => env.client.raw<ErrorBody>("POST", path, { body, headers })

const expectRetryAfter = (answer: { status: number; headers: Headers }) => {
  expect(answer.status).toBe(429)
  const seconds = Number(answer.headers.get("retry-after"))
  expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60, `Retry-After ${answer.headers.get("retry-after")}`).toBe(true)
}

describe("POST /enrolment/request: 60 per minute per IP (each call writes a ceremony row)", () => {
  it("the 61st request from one address is 429 with Retry-After; another address is not affected", async () => {
    // one minute window for the whole burst: the counters turn over with the calendar minute
    await freshMinuteWindow()
    const attacker = newClient()
    const answers = await Promise.all(
      Array.from({ length: 61 }, (_, i) => post("/enrolment/request", { email: `flood${i}@example.com` }, { "x-forwarded-for": attacker })),
    )
    // each is counted before anything else: without the e-mail's proof the 60 are 403 (and write nothing)
    expect(answers.filter((a) => a.status === 403)).toHaveLength(60)
    const refused = answers.filter((a) => a.status === 429)
    expect(refused).toHaveLength(1)
    expect(refused[0]!.body).toEqual({ error: "Rate limit exceeded. Please try again later." })
    expectRetryAfter(refused[0]!)
    expect((await post("/enrolment/request", { email: "someone@example.com" }, { "x-forwarded-for": newClient() })).status).toBe(403)
  })
})

describe("IPv6 clients are counted by their /64 network", () => {
  it("61 enrolment requests from 61 addresses of one /64 meet the one counter; the neighbouring /64 has its own", async () => {
    // one minute window for the whole burst: the counters turn over with the calendar minute
    await freshMinuteWindow()
    const answers = await Promise.all(
      Array.from({ length: 61 }, (_, i) =>
        post("/enrolment/request", { email: `v6-${i}@example.com` }, { "x-forwarded-for": `2001:db8:0:64::${(i + 1).toString(16)}` }),
      ),
    )
    expect(answers.filter((a) => a.status === 403)).toHaveLength(60)
    expect(answers.filter((a) => a.status === 429)).toHaveLength(1)
    expect((await post("/enrolment/request", { email: "v6-next@example.com" }, { "x-forwarded-for": "2001:db8:0:65::1" })).status).toBe(403)
  })

  it("an IPv4 client is its address; an IPv6 client its network; what is no address stays as it is", () => {
    expect(limitedClient("203.0.113.9")).toBe("203.0.113.9")
    expect(limitedClient("::ffff:203.0.113.9")).toBe("203.0.113.9")
    expect(limitedClient("2001:db8:0:64:a:b:c:d")).toBe("2001:db8:0:64::/64")
    expect(limitedClient("2001:db8:0:64::1")).toBe(limitedClient("2001:db8::64:ffff:ffff:ffff:ffff"))
    expect(limitedClient("unknown")).toBe("unknown")
  })
})

describe("KYC: one 20-per-minute counter per IP for start, document, session, face, comparison and handoff", () => {
  it("20 calls spread over the six operations use up the one counter; the 21st, of any kind, is 429", async () => {
    // one minute window for the whole burst: the counters turn over with the calendar minute
    await freshMinuteWindow()
    const ip = newClient()
    const headers = { authorization: basic, "x-forwarded-for": ip }
    const paths = [
      "/kyc/verifications",
      "/kyc/customers/document",
      "/kyc/customers/liveness-session",
      "/kyc/customers/face",
      "/kyc/customers/compare",
      "/kyc/handoff",
    ]
    // A body each operation's Schema accepts: a body refused by its Schema (422 `customer_id is required`) is not counted.
    const body = { customer_id: "nobody@example.com", phone_number: "+1", images: ["AAAA"], livenessTransactionId: "unknown" }
    const answers = []
    for (let i = 0; i < 20; i++) answers.push(await post(paths[i % paths.length]!, body, headers))
    // each was counted, then refused by its use case: an unusable phone number (422) or an unknown customer (404)
    expect(answers.map((a) => a.status).filter((s) => s !== 422 && s !== 404)).toEqual([])
    for (const path of paths) expectRetryAfter(await post(path, body, headers))
  })
})

describe("KYC selfie and video: 60 per minute per IP on the capture relay and the face step", () => {
  it("60 frames through the relay, then both the relay and /kyc/customers/face are 429 while the KYC counter still has room", async () => {
    // one minute window for the whole burst: the counters turn over with the calendar minute
    await freshMinuteWindow()
    const ip = newClient()
    const relay = () =>
      env.client.raw<ErrorBody>("POST", "/kyc/faceapi", {
        body: { frames: ["/9j/"] },
        headers: { authorization: "Bearer not-a-session", "x-forwarded-for": ip },
      })
    for (let i = 0; i < 60; i++) expect((await relay()).status).toBe(404)
    expectRetryAfter(await relay())
    expectRetryAfter(
      await post("/kyc/customers/face", { customer_id: "+254700000001", livenessTransactionId: "t" }, { authorization: basic, "x-forwarded-for": ip }),
    )
    // the other KYC operations are still allowed for this address
    expect((await post("/kyc/verifications", {}, { authorization: basic, "x-forwarded-for": ip })).status).toBe(422)
  })
})

describe("registered-mode /ssc/challenge: one signer's token cannot spend the RP-wide allowance", () => {
  it("a token gets 5 challenges a minute; the 6th is 429 and another signer's token still gets its challenge", async () => {
    // one minute window for the whole burst: the counters turn over with the calendar minute
    await freshMinuteWindow()
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, passkey, { email: "frame@example.com" })
    const documentHash = createHash("sha256").update(randomBytes(16)).digest("hex")
    const tokenFor = async () =>
      ok(
        await env.client.raw<{ token: string }>("POST", "/ssc/token", {
          body: { clientId: env.rp.clientId, clientSecret: env.rp.sscSecret, loa: "LOA-2", documentHash, signerEmail: "frame@example.com" },
        }),
      ).token
    const challenge = (token: string) =>
      env.client.raw<ErrorBody>("POST", "/ssc/challenge", {
        body: { documentHash, documentName: "lease.pdf", rpOrigin: env.origin, mode: "registered", token },
      })
    const greedy = await tokenFor()
    for (let i = 0; i < 5; i++) expect((await challenge(greedy)).status).toBe(200)
    // the attack: keep calling with the one token; every further call is refused by its own counter
    const refused = await Promise.all(Array.from({ length: 30 }, () => challenge(greedy)))
    for (const answer of refused) expectRetryAfter(answer)
    expect((await challenge(await tokenFor())).status).toBe(200)
  })
})

describe("Retry-After on every 429", () => {
  it("the catalogue's per-minute error carries the seconds to the window's end; without them the header says 60", async () => {
    const { errorResponse } = await import("./http/respond.ts")
    expect(errorResponse(new RateLimitExceeded({ retryAfterSeconds: 17 }), "r").headers.get("retry-after")).toBe("17")
    expect(errorResponse(new RateLimitExceeded(), "r").headers.get("retry-after")).toBe("60")
  })
})

describe("client address behind a reverse proxy (SIGNET_TRUSTED_PROXIES)", () => {
  const trusted = parseTrustedProxies(["10.0.0.0/8", "192.168.1.7", "2001:db8::/32"])

  it("believes X-Forwarded-For only when the peer is a trusted proxy, and takes the rightmost untrusted hop", () => {
    // no trusted proxies: the header is ignored
    expect(clientAddress("198.51.100.9", "1.2.3.4", undefined)).toBe("198.51.100.9")
    // a peer that is not trusted cannot choose its address
    expect(clientAddress("198.51.100.9", "1.2.3.4", trusted)).toBe("198.51.100.9")
    // through two trusted proxies; the client's own forged entries on the left are not believed
    expect(clientAddress("10.0.0.2", "6.6.6.6, 203.0.113.5, 192.168.1.7", trusted)).toBe("203.0.113.5")
    expect(clientAddress("::ffff:10.0.0.2", "203.0.113.5", trusted)).toBe("203.0.113.5")
    expect(clientAddress("2001:db8::1", "2001:db9::5", trusted)).toBe("2001:db9::5")
    // garbage in a hop: the last trusted address is what we know
    expect(clientAddress("10.0.0.2", "203.0.113.5, not-an-ip", trusted)).toBe("10.0.0.2")
  })

  it("without trusted proxies every X-Forwarded-For is ignored: a client cannot escape its counter by inventing addresses", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "signet-")), "signet.db")
    const engine = await makeEngine({
      settings: {
        environment: "sandbox",
        publicOrigin: "http://localhost",
        basePath: "/api",
        accessTokenTtlSeconds: 3600,
        ceremonyTtlSeconds: 300,
        sessionTtlSeconds: 3600,
      },
      storage: storageFor(file).storage,
      masterKey: randomBytes(32),
      logLevel: LogLevel.None,
      clientIp: () => "198.51.100.20",
      validateResponses: true,
    })
    try {
      const statuses = []
      for (let i = 0; i < 61; i++) {
        const r = await engine.handler(
          new Request("http://localhost/api/enrolment/request", {
            method: "POST",
            headers: { "content-type": "application/json", "x-forwarded-for": `192.0.2.${i}` },
            body: JSON.stringify({ email: `x${i}@example.com` }),
          }),
        )
        statuses.push(r.status)
      }
      // counted first, then refused for the missing e-mail proof (403); the 61st is over the one counter
      expect(statuses.slice(0, 60).every((s) => s === 403)).toBe(true)
      expect(statuses[60]).toBe(429)
    } finally {
      await engine.dispose()
    }
  })
})

describe("headers", () => {
  it("static scripts, JSON answers and errors carry nosniff; hosted HTML is never cached", async () => {
    for (const path of ["/pages/webauthn.js", "/ssc/frame.js", "/kyc/capture.js", "/admin/console.js", "/health", "/openapi.json", "/nowhere"]) {
      const r = await fetch(`${env.origin}/api${path}`)
      expect(r.headers.get("x-content-type-options"), path).toBe("nosniff")
    }
    for (const path of ["/", "/enrol", "/signin", "/kyc/capture", "/admin", `/ssc/frame?client_id=${env.rp.clientId}`]) {
      const r = await fetch(`${env.origin}/api${path}`)
      expect(r.headers.get("content-type"), path).toMatch(/^text\/html/)
      expect(r.headers.get("cache-control"), path).toBe("no-store")
      expect(r.headers.get("x-content-type-options"), path).toBe("nosniff")
    }
  })

  it("a malformed Host header is 400, not 500; a broken percent-encoding in the path is 400", async () => {
    const port = new URL(env.origin).port
    for (const host of ["bad host", "[::1", "localhost:99999", "a/b", "a@b", "x:y"]) {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, path: "/api/health", method: "GET", headers: { host } }, (res) => {
          let body = ""
          res.on("data", (c: Buffer) => (body += c.toString()))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
        })
        req.on("error", reject)
        req.end()
      })
      expect(answer.status, host).toBe(400)
      expect(JSON.parse(answer.body), host).toEqual({ error: "malformed Host header" })
    }
    expect(await env.client.raw("GET", "/v2/sign/requests/%E0%A4%A")).toMatchObject({ status: 400, body: { error: "the path has malformed percent-encoding" } })
  })
})

describe("logs", () => {
  it("an unexpected failure prints one JSON line with its cause and request id; the request line follows; capabilities in paths are redacted", async () => {
    const printed: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      printed.push(args.map(String).join(" "))
    })
    const file = join(mkdtempSync(join(tmpdir(), "signet-")), "signet.db")
    const engine = await makeEngine({
      settings: {
        environment: "sandbox",
        publicOrigin: "http://localhost",
        basePath: "/api",
        accessTokenTtlSeconds: 3600,
        ceremonyTtlSeconds: 300,
        sessionTtlSeconds: 3600,
      },
      storage: storageFor(file).storage,
      masterKey: randomBytes(32),
      clientIp: () => "198.51.100.30",
      deliveries: { worker: false },
      housekeeping: false,
      validateResponses: true,
      extraEndpoints: [
        endpoint({
          method: "GET",
          path: "/test/boom",
          tag: "Test",
          auth: "none",
          summary: "fails",
          response: { mediaType: "text/plain" },
          handle: () => Effect.die(new Error("disk on fire")),
        }),
      ],
    })
    try {
      const failed = await engine.handler(new Request("http://localhost/api/test/boom", { headers: { "x-request-id": "req-boom" } }))
      expect(failed.status).toBe(500)
      const handoffId = "hX7pQ2vN9sLm4KwR8tYb3ZcD6fGj1A5e"
      expect((await engine.handler(new Request(`http://localhost/api/kyc/handoff/${handoffId}/status`))).status).toBe(404)
      const entries = printed.map((line) => JSON.parse(line) as { message: unknown; logLevel: string; annotations: Record<string, unknown> })
      const failure = entries.find((e) => e.logLevel === "ERROR")!
      expect(failure.annotations).toMatchObject({ requestId: "req-boom", method: "GET", path: "/api/test/boom" })
      expect(JSON.stringify(failure.message)).toContain("disk on fire")
      expect(entries.find((e) => e.message === "request" && e.annotations["requestId"] === "req-boom")!.annotations).toMatchObject({ status: 500 })
      const handoff = entries.find((e) => e.message === "request" && e.annotations["status"] === 404)!
      expect(handoff.annotations["path"]).toBe("/api/kyc/handoff/[redacted]/status")
      expect(printed.join("\n")).not.toContain(handoffId)
    } finally {
      spy.mockRestore()
      await engine.dispose()
    }
  })
})
