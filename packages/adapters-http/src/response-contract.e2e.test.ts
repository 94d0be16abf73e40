/** Answers go through their contract: a mismatch is a 500 with a logged defect naming endpoint and field, never a silent wrong answer. */
import { Effect, Schema } from "effect"
import { mkdtempSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { makeEngine, type Engine } from "./engine.ts"
import { endpoint } from "./http/endpoint.ts"
import { reply } from "./http/respond.ts"
import { storageFor } from "../../server/src/index.ts"

const Answer = Schema.Struct({ id: Schema.Int, name: Schema.String })

// Each test endpoint answers what the query asks for, so one engine shows every case.
const probe = endpoint({
  method: "GET",
  path: "/test/answer",
  tag: "Test",
  auth: "none",
  summary: "answers what it is told",
  response: Answer,
  responses: { 202: Schema.Struct({ queued: Schema.Boolean }) },
  handle: ({ query }) =>
    Effect.succeed(
      query.get("case") === "extra"
        ? { id: 1, name: "a", secret: "never shown" }
        : query.get("case") === "wrong"
          ? { id: "1", name: "a" }
          : query.get("case") === "queued"
            ? reply(202, { queued: true })
            : query.get("case") === "undeclared-status"
              ? reply(201, { id: 1, name: "a" })
              : query.get("case") === "raw-json"
                ? new Response(JSON.stringify({ id: 1 }), { headers: { "content-type": "application/json" } })
                : { id: 1, name: "a" },
    ),
})

const engines: Array<Engine> = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const e of engines.splice(0)) await e.dispose()
})

const start = async (validateResponses: boolean) => {
  const engine = await makeEngine({
    settings: {
      environment: "sandbox",
      publicOrigin: "http://localhost",
      basePath: "/api",
      accessTokenTtlSeconds: 3600,
      ceremonyTtlSeconds: 300,
      sessionTtlSeconds: 3600,
    },
    storage: storageFor(join(mkdtempSync(join(tmpdir(), "signet-")), "signet.db")).storage,
    masterKey: randomBytes(32),
    deliveries: { worker: false },
    housekeeping: false,
    validateResponses,
    extraEndpoints: [probe],
  })
  engines.push(engine)
  const printed: Array<string> = []
  vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => void printed.push(args.map(String).join(" ")))
  const get = async (c: string) => {
    const r = await engine.handler(new Request(`http://localhost/api/test/answer?case=${c}`))
    return { status: r.status, body: (await r.json()) as Record<string, unknown> }
  }
  const errors = () =>
    printed
      .map((l) => JSON.parse(l) as { logLevel: string; message: unknown })
      .filter((e) => e.logLevel === "ERROR")
      .map((e) => JSON.stringify(e.message))
  return { get, errors }
}

describe("response contracts", () => {
  it("with validateResponses (every test engine): undeclared properties, wrong types, statuses without a Schema and hand-built JSON are 500s naming endpoint and field", async () => {
    const { get, errors } = await start(true)
    expect(await get("ok")).toEqual({ status: 200, body: { id: 1, name: "a" } })
    expect(await get("queued")).toEqual({ status: 202, body: { queued: true } })
    const extra = await get("extra")
    expect(extra.status).toBe(500)
    expect(extra.body["detail"]).toMatch(/^GET \/test\/answer answered 200 outside its contract: secret: is unexpected/)
    expect((await get("wrong")).body["detail"]).toMatch(/^GET \/test\/answer answered 200 outside its contract: id: Expected number, actual "1"/)
    expect((await get("undeclared-status")).body["detail"]).toBe("GET /test/answer answered 201 outside its contract: no response Schema for this status")
    expect((await get("raw-json")).body["detail"]).toMatch(/a JSON Response built outside the contract/)
    // Each mismatch is logged as a defect with its endpoint and field.
    expect(errors().some((e) => e.includes("GET /test/answer answered 200 outside its contract: id: Expected number"))).toBe(true)
  })

  it("in production mode undeclared properties are dropped, and a wrong type is still a 500 (logged, no detail in the answer)", async () => {
    const { get, errors } = await start(false)
    expect(await get("extra")).toEqual({ status: 200, body: { id: 1, name: "a" } })
    const wrong = await get("wrong")
    expect(wrong.status).toBe(500)
    expect(wrong.body).not.toHaveProperty("detail")
    expect(errors().some((e) => e.includes("GET /test/answer answered 200 outside its contract: id: Expected number"))).toBe(true)
  })
})
