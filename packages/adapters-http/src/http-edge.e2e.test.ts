/** What every caller meets at the HTTP edge: errors as `{ "error": ... }`, CSRF, limits, deadline, version, OpenAPI. */
import { checkCsrf, HostedSessions, INTERFACE_VERSION, openSignedInSession, signedInUserOf } from "@signet/core"
import { enrol, ok, proveEmail, signIn, signInAtConsole, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { endpoint } from "./http/endpoint.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

let env: RunningEngine
beforeAll(async () => {
  env = await startEngine()
})
afterAll(async () => env?.stop())

describe("bad input is a 4xx with a clear message and changes nothing", () => {
  it("malformed JSON is 400", async () => {
    const r = await env.client.raw("POST", "/enrolment/request", { body: '{"email": ' })
    expect(r.status).toBe(400)
    expect((r.body as { error: string }).error).toMatch(/^Malformed JSON body: /)
  })

  it("a wrong content type is 415", async () => {
    const r = await env.client.raw("POST", "/enrolment/request", { body: "email=a@b.co", headers: { "content-type": "text/plain" } })
    expect(r).toMatchObject({ status: 415, body: { error: "Unsupported content type; expected application/json" } })
  })

  it("an oversized body is 413, whether declared or streamed", async () => {
    const big = JSON.stringify({ email: "a@b.co", displayName: "x".repeat(2 * 1024 * 1024) })
    const r = await env.client.raw("POST", "/enrolment/request", { body: big })
    expect(r).toMatchObject({ status: 413, body: { error: "Request body too large; the limit is 1048576 bytes" } })
  })

  it("a missing or mistyped field is 400 naming the field", async () => {
    const missing = await env.client.raw("POST", "/enrolment/request", { body: {} })
    expect(missing).toMatchObject({ status: 400, body: { error: "email is required" } })
    const typed = await env.client.raw("POST", "/signin/request", { body: { clientId: 42 } })
    expect(typed.status).toBe(400)
    expect((typed.body as { error: string }).error).toMatch(/^clientId: /)
    const notEmail = await env.client.raw("POST", "/enrolment/request", { body: { email: "nobody@localhost" } })
    expect(notEmail).toMatchObject({ status: 400, body: { error: "email must be an e-mail address with a top-level domain" } })
  })

  it("unknown paths are 404 and wrong methods 405, as JSON", async () => {
    expect(await env.client.raw("GET", "/nowhere")).toMatchObject({ status: 404, body: { error: "Route not found" } })
    expect(await env.client.raw("DELETE", "/v2/me")).toMatchObject({ status: 405, body: { error: "Method DELETE not allowed" } })
    const outside = await fetch(`${env.origin}/elsewhere`)
    expect(outside.status).toBe(404)
  })
})

describe("hosted-page sessions and CSRF", () => {
  const session = async () => {
    const r = await fetch(`${env.origin}/api/session`)
    const cookie = r.headers.getSetCookie()[0]!.split(";")[0]!
    const { csrfToken } = (await r.json()) as { csrfToken: string }
    return { cookie, csrfToken }
  }

  it("the session cookie is HttpOnly, SameSite=Lax and scoped to the mount path", async () => {
    const r = await fetch(`${env.origin}/api/session`)
    expect(r.headers.getSetCookie()[0]).toMatch(/^signet_session=[\w-]+; Path=\/api; HttpOnly; SameSite=Lax; Max-Age=3600$/)
  })

  it("a cookie-carrying state change without a valid CSRF token or Authorization header is 403", async () => {
    const { cookie, csrfToken } = await session()
    const body = { email: "csrf@example.com" }
    for (const headers of [{ cookie }, { cookie, "x-csrf-token": "wrong" }, { cookie: "signet_session=unknown", "x-csrf-token": csrfToken }]) {
      const r = await env.client.raw("POST", "/enrolment/request", { body, headers })
      expect(r).toMatchObject({ status: 403, body: { error: "CSRF token validation failed" } })
    }
    const proven = { ...body, emailVerificationId: await proveEmail(env.client, body.email) }
    expect((await env.client.raw("POST", "/enrolment/request", { body: proven, headers: { cookie, "x-csrf-token": csrfToken } })).status).toBe(200)
  })

  // Issue 13, item 16: hosted-session ids were stored in clear, so a copy of the table was a set of live cookies.
  it("a hosted session is stored only as the SHA-256 of its cookie: a leaked row signs nobody in", async () => {
    const user = await enrol(env.client, SoftwarePasskey.create({ origin: env.origin }), { email: "hashed-session@example.com" })
    const opened = await env.engine.run(openSignedInSession(user.userId, "passkey"))
    const stored = createHash("sha256").update(opened.sessionId).digest("hex")
    const rows = await env.engine.run(Effect.flatMap(HostedSessions, (s) => Effect.all([s.findById(opened.sessionId), s.findById(stored)])))
    expect(rows.map(Option.isSome)).toEqual([false, true])
    // The cookie itself is signed in; the stored key presented as a cookie is not, and passes no CSRF check.
    expect(Option.getOrThrow(await env.engine.run(signedInUserOf(opened.sessionId)))).toBe(user.userId)
    expect(Option.isNone(await env.engine.run(signedInUserOf(stored)))).toBe(true)
    const csrf = await env.engine.run(Effect.either(checkCsrf(stored, opened.csrfToken)))
    expect(csrf._tag).toBe("Left")
    const leaked = await env.client.raw("POST", "/enrolment/request", {
      body: { email: "hashed-session@example.com" },
      headers: { cookie: `signet_session=${stored}`, "x-csrf-token": opened.csrfToken },
    })
    expect(leaked).toMatchObject({ status: 403, body: { error: "CSRF token validation failed" } })
  })

  it("a backend call with an Authorization header is not asked for a CSRF token", async () => {
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, passkey, { email: "backend@example.com" })
    const token = await signInAtConsole(env.client, passkey)
    const { cookie } = await session()
    const r = await env.client.raw("POST", "/enrolment/request", {
      body: { email: "backend@example.com" },
      headers: { cookie, authorization: `Bearer ${token}` },
    })
    // The console token is the account's own proof: no e-mail code needed to add a passkey.
    expect(r.status).toBe(200)
  })
})

describe("version, health and the OpenAPI document", () => {
  it("every answer carries the interface version and a request id", async () => {
    for (const r of [await env.client.raw("GET", "/health"), await env.client.me(), await env.client.raw("GET", "/nowhere")]) {
      expect(r.headers.get("signet-version")).toBe(INTERFACE_VERSION)
      expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
    }
    const echoed = await env.client.raw("GET", "/health", { headers: { "x-request-id": "trace-123" } })
    expect(echoed.headers.get("x-request-id")).toBe("trace-123")
  })

  it("a JSON answer is the same over HTTP as from engine.handler in process: status, headers and body", async () => {
    // The Node host writes the engine's JSON answers without making a web Response of them.
    const headers = { "x-request-id": "same-answer" }
    const overHttp = await fetch(`${env.client.baseUrl}/health`, { headers })
    const inProcess = await env.engine.handler(new Request(`${env.client.baseUrl}/health`, { headers }))
    const named = (r: Response) =>
      Object.fromEntries([...r.headers].filter(([name]) => !["date", "connection", "keep-alive", "content-length", "transfer-encoding"].includes(name)))
    expect(overHttp.status).toBe(inProcess.status)
    expect(named(overHttp)).toEqual(named(inProcess))
    expect(named(overHttp)).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      "x-content-type-options": "nosniff",
      "x-request-id": "same-answer",
    })
    expect(await overHttp.json()).toEqual(await inProcess.json())
  })

  it("health answers with the environment", async () => {
    expect(await env.client.raw("GET", "/health")).toMatchObject({ status: 200, body: { status: "ok", environment: "sandbox", version: INTERFACE_VERSION } })
  })

  it("liveness answers without I/O; readiness checks storage, keys and the worker, and is 503 once draining", async () => {
    const own = await startEngine()
    try {
      expect(await own.client.raw("GET", "/health/live")).toMatchObject({ status: 200, body: { status: "live" } })
      // a new database has issued no token yet: no key to unseal
      expect(await own.client.raw("GET", "/health/ready")).toMatchObject({
        status: 200,
        body: { status: "ready", checks: { storage: "ok", keys: "none yet", worker: "running", draining: false } },
      })
      const passkey = SoftwarePasskey.create({ origin: own.origin })
      await enrol(own.client, passkey, { email: "ready@example.com" })
      ok(await signIn(own.client, passkey, { clientId: own.rp.clientId }))
      expect(await own.client.raw("GET", "/health/ready")).toMatchObject({ status: 200, body: { checks: { keys: "ok" } } })
      await own.engine.drain()
      expect(await own.engine.workerStopped(5000)).toBe(true)
      expect(await own.client.raw("GET", "/health/ready")).toMatchObject({
        status: 503,
        body: { status: "not_ready", checks: { storage: "ok", keys: "ok", worker: "stopped", draining: true } },
      })
      // draining ends nothing else: requests are still served until the host stops taking them
      expect(await own.client.raw("GET", "/health/live")).toMatchObject({ status: 200 })
    } finally {
      await own.stop()
    }
  })

  it("the OpenAPI 3.1 document is generated from the validating schemas", async () => {
    const doc = ok(
      await env.client.raw<{
        openapi: string
        info: { version: string }
        servers: Array<{ url: string }>
        paths: Record<string, Record<string, { requestBody?: { content: { "application/json": { schema: unknown } } } }>>
      }>("GET", "/openapi.json"),
    )
    expect(doc.openapi).toBe("3.1.0")
    expect(doc.info.version).toBe(INTERFACE_VERSION)
    expect(doc.servers[0]!.url).toBe(`${env.origin}/api`)
    for (const path of [
      "/enrolment/request",
      "/enrolment/verify",
      "/signin/request",
      "/signin/verify",
      "/oauth/token",
      "/v2/me",
      "/health",
      "/.well-known/jwks.json",
    ]) {
      expect(Object.keys(doc.paths)).toContain(path)
    }
    expect(Object.keys(doc.paths)).not.toContain("/enrol")
    const schema = JSON.stringify(doc.paths["/signin/verify"]!["post"]!.requestBody!.content["application/json"].schema)
    expect(schema).toContain("Assertion")
    expect(JSON.stringify(doc)).toContain('"required":["email"]')
    // KYC bodies are Schemas too: their required fields answer the spec's 422s and are documented as required
    const components = (doc as unknown as { components: { schemas: Record<string, { required?: Array<string>; properties?: Record<string, unknown> }> } })
      .components.schemas
    expect(components["KycStart"]!.required).toEqual(["customer_id", "phone_number"])
    expect(Object.keys(components["KycCompare"]!.properties!)).toEqual(["customer_id", "rp_urn", "checks"])
  })
})

describe("processing deadline", () => {
  it("a request past the deadline is 408 with an error body; its work is stopped, and the next request is served", async () => {
    let stopped = false
    const slow = endpoint({
      method: "POST",
      path: "/test/slow",
      tag: "Test",
      auth: "none",
      summary: "sleeps",
      body: Schema.Struct({}),
      response: Schema.Struct({}),
      handle: () =>
        Effect.sleep("2 seconds").pipe(
          Effect.as({}),
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              stopped = true
            }),
          ),
        ),
    })
    const quick = endpoint({
      method: "POST",
      path: "/test/quick",
      tag: "Test",
      auth: "none",
      summary: "answers at once",
      body: Schema.Struct({}),
      response: Schema.Struct({ ok: Schema.Boolean }),
      handle: () => Effect.succeed({ ok: true }),
    })
    const short = await startEngine({ deadlineMs: 100, extraEndpoints: [slow, quick] })
    try {
      const r = await short.client.raw("POST", "/test/slow", { body: {} })
      expect(r).toMatchObject({ status: 408, body: { error: "Processing deadline exceeded; read the operation state before retrying" } })
      expect(r.headers.get("x-content-type-options")).toBe("nosniff")
      expect(stopped).toBe(true)
      expect(await short.client.raw("POST", "/test/quick", { body: {} })).toMatchObject({ status: 200, body: { ok: true } })
    } finally {
      await short.stop()
    }
  })
})

describe("sandbox and production refuse each other", () => {
  it("a sandbox token, client secret or RP is refused by a production engine on the same database", async () => {
    const { storageFor } = await import("../../server/src/index.ts")
    const { mkdtempSync } = await import("node:fs")
    const { join } = await import("node:path")
    const { tmpdir } = await import("node:os")
    const file = join(mkdtempSync(join(tmpdir(), "signet-env-")), "shared.db")
    const masterKey = globalThis.crypto.getRandomValues(new Uint8Array(32))
    const sandbox = await startEngine({ storage: storageFor(file).storage, masterKey })
    const production = await startEngine({ environment: "production", storage: storageFor(file).storage, masterKey })
    try {
      expect(sandbox.rp.clientId).toMatch(/^rp_sbx_/)
      expect(production.rp.clientId).toMatch(/^rp_prd_/)
      expect(sandbox.rp.clientSecret).toMatch(/^sk_sbx_/)
      const passkey = SoftwarePasskey.create({ origin: sandbox.origin })
      await enrol(sandbox.client, passkey, { email: "env@example.com" })
      const token = ok(await signIn(sandbox.client, passkey, { clientId: sandbox.rp.clientId })) as TokenAnswer
      expect((await sandbox.client.me(token.access_token)).status).toBe(200)
      expect(await production.client.me(token.access_token)).toMatchObject({ status: 401, body: { error: "Invalid or expired token" } })
      expect((await production.client.clientToken(sandbox.rp.clientId, sandbox.rp.clientSecret)).status).toBe(401)
      expect(await production.client.signinRequest({ clientId: sandbox.rp.clientId })).toMatchObject({ status: 403, body: { error: "Unknown RP client_id" } })
    } finally {
      await sandbox.stop()
      await production.stop()
    }
  })
})
