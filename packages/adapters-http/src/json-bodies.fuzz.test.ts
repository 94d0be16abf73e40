/**
 * Fuzzing of JSON bodies through the real handler, in process: every endpoint that takes a
 * JSON body gets hostile JSON (deep nesting, huge numbers, wrong types, odd unicode,
 * prototype-pollution keys, byte mutations of well-formed bodies with the endpoint's own field
 * names). Every answer must be a result or a 4xx, in time, and the process must not be harmed.
 * Seeded; SIGNET_FUZZ_RUNS sets the number of cases (default 20,000).
 */
import { arbitraries, enrol, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { administerRelyingParty } from "@signet/core"
import fc from "fast-check"
import type { SchemaAST } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { storageFor } from "../../server/src/index.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const RUNS = Number(process.env["SIGNET_FUZZ_RUNS"] ?? 20_000)
const SEED = Number(process.env["SIGNET_FUZZ_SEED"] ?? 0x5167_0013)
/** Per-case budget: far above a normal answer (a few ms), far below the 30 s request deadline. */
const CASE_BUDGET_MS = 5_000

let env: RunningEngine
let token = ""
let targets: ReadonlyArray<{ readonly method: string; readonly path: string; readonly fields: ReadonlyArray<string> }> = []

/** Top-level property names of a body schema (structure-aware generation uses the endpoint's own fields). */
const fieldsOf = (ast: SchemaAST.AST): ReadonlyArray<string> => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast.propertySignatures.map((p) => String(p.name))
    case "Transformation":
      return fieldsOf(ast.from)
    case "Refinement":
      return fieldsOf(ast.from)
    case "Union":
      return ast.types.flatMap(fieldsOf)
    case "Suspend":
      return []
    default:
      return []
  }
}

beforeAll(async () => {
  // no loopback switch: a generated URL can never make the engine call anything
  env = await startEngine({ deliveries: { allowLoopbackHttp: false, worker: false }, housekeeping: false, storage: storageFor(":memory:").storage })
  const passkey = SoftwarePasskey.create({ origin: env.origin })
  const enrolled = await enrol(env.client, passkey, { email: "fuzz@example.com" })
  await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId: enrolled.userId }))
  token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
  targets = env.engine.endpoints
    .filter((e) => e.body !== undefined)
    .map((e) => ({
      method: e.method,
      path: e.path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000"),
      fields: [...new Set(fieldsOf(e.body!.ast))],
    }))
})
afterAll(async () => env?.stop())

const hostileScalar = fc.oneof(
  fc.constantFrom("1e999999", "-1e999999", "-0", "1e-400", "123456789012345678901234567890", "9007199254740993", "0.1e1", "1E+2"),
  fc.constantFrom('""', '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"\\u202e\\u2066"', '"ｌｏｃａｌｈｏｓｔ"', '"\\uFEFF"', "true", "false", "null"),
  fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.fullUnicodeString({ maxLength: 20 }).map((s) => JSON.stringify(s)),
  fc.double().map((d) => (Number.isFinite(d) ? String(d) : "0")),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.constantFrom('"https://localhost./"', '"https://[fec0::1]/"', '"http://127.0.0.1:9/"', '"whsec_AAAA"', '"x".repeat'),
)

/** JSON text of a hostile value, with the endpoint's field names among the keys. */
const hostileText = (fields: ReadonlyArray<string>): fc.Arbitrary<string> => {
  const key = fc.oneof(
    fc.constantFrom(...(fields.length > 0 ? fields : ["x"])),
    fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", ""),
    fc.string({ maxLength: 8 }),
  )
  const value: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
    v: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      hostileScalar,
      fc.array(tie("v"), { maxLength: 4 }).map((a) => `[${a.join(",")}]`),
      fc.array(fc.tuple(key, tie("v")), { maxLength: 5 }).map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
    ),
  })).v
  const object = fc.array(fc.tuple(key, value), { minLength: 0, maxLength: 8 }).map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`)
  const deep = fc
    .tuple(fc.oneof(fc.integer({ min: 60, max: 70 }), fc.integer({ min: 70, max: 200_000 })), fc.constantFrom("[", '{"a":'), fc.boolean())
    .map(([n, open, closed]) => {
      const close = open === "[" ? "]" : "}"
      return open.repeat(n) + "1" + (closed ? close.repeat(n) : "")
    })
  // byte mutations of well-formed text: flip, insert, delete, truncate
  const mutated = fc
    .tuple(object, arbitraries.byteEdits({ kinds: ["flip", "insert", "delete", "truncate"], minLength: 0 }))
    .map(([text, edits]) => new TextDecoder().decode(arbitraries.applyByteEdits(new TextEncoder().encode(text), edits)))
  return fc.oneof({ arbitrary: object, weight: 5 }, { arbitrary: value, weight: 2 }, { arbitrary: mutated, weight: 4 }, { arbitrary: deep, weight: 1 })
}

/** One case: the answer's status and how long it took. */
const send = async (target: { readonly method: string; readonly path: string }, text: string, withToken: boolean) => {
  const started = performance.now()
  const response = await env.engine.handler(
    new Request(`${env.origin}/api${target.path}`, {
      method: target.method,
      body: text,
      headers: { "content-type": "application/json", ...(withToken ? { authorization: `Bearer ${token}` } : {}) },
    }),
  )
  const body = await response.text()
  return { status: response.status, body, ms: performance.now() - started }
}

describe("JSON bodies under fuzzing (issue 13: never a 5xx)", () => {
  it("the regression: 200,000 nested arrays are a 400 that says why, not a 500", async () => {
    const webhook = targets.find((t) => t.path === "/v2/webhooks/register")!
    for (const text of ["[".repeat(200_000) + "]".repeat(200_000), '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000), "[".repeat(65) + "]".repeat(65)]) {
      const answer = await send(webhook, text, true)
      expect(answer.status).toBe(400)
      expect(JSON.parse(answer.body)).toEqual({ error: "Malformed JSON body: nesting deeper than 64 levels" })
    }
    // at the budget it is read as usual (and refused for what it says, not for its shape)
    expect((await send(webhook, "[".repeat(64) + "]".repeat(64), true)).status).toBe(400)
  })

  it("pinned: the fuzzer's first find (seed 0x51670013, case 6249), a discriminator holding an object whose toString is a number, is a 400", async () => {
    // effect's union decoder called String() on it and threw: a 500 from the admin command endpoint
    const commands = targets.find((t) => t.path.endsWith("/commands"))!
    const webhook = targets.find((t) => t.path === "/v2/webhooks/register")!
    for (const target of [commands, webhook]) {
      for (const text of ['{"_tag":[{"toString":5}]}', '{"_tag":{"valueOf":"x","toString":-1}}', '{"events":[{"toString":1}],"url":{"toString":2}}']) {
        const answer = await send(target, text, true)
        expect([target.path, text, answer.status]).toEqual([target.path, text, 400])
      }
    }
  })

  it("prototype keys are refused before anything reads the body", async () => {
    const webhook = targets.find((t) => t.path === "/v2/webhooks/register")!
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const answer = await send(
        webhook,
        `{"url":"https://hooks.rp.example/","events":["sign.complete"],"secret":"0123456789abcdefXYZ","x":{"${key}":{"polluted":true}}}`,
        true,
      )
      expect(answer.status).toBe(400)
      expect(JSON.parse(answer.body)).toEqual({ error: `Malformed JSON body: the key ${key} is not allowed` })
    }
    // The same keys written with an escape are the same keys.
    for (const [written, key] of [
      ["\\u005f_proto__", "__proto__"],
      ["constructo\\u0072", "constructor"],
      ["\\u0070rototype", "prototype"],
    ]) {
      const answer = await send(
        webhook,
        `{"url":"https://hooks.rp.example/","events":["sign.complete"],"secret":"0123456789abcdefXYZ","x":{"${written}":{}}}`,
        true,
      )
      expect([written, answer.status, JSON.parse(answer.body)]).toEqual([written, 400, { error: `Malformed JSON body: the key ${key} is not allowed` }])
    }
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
  })

  it(
    `${RUNS} generated hostile bodies over every endpoint with a JSON body end in a result or a 4xx, within ${CASE_BUDGET_MS} ms each`,
    async () => {
      expect(targets.length).toBeGreaterThan(20)
      const heapBefore = process.memoryUsage().heapUsed
      const started = performance.now()
      const statuses = new Map<number, number>()
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: targets.length - 1 }).chain((i) => fc.tuple(fc.constant(targets[i]!), hostileText(targets[i]!.fields), fc.boolean())),
          async ([target, text, withToken]) => {
            const answer = await send(target, text, withToken)
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
            if (answer.status >= 500) throw new Error(`${target.method} ${target.path} answered ${answer.status} ${answer.body} to ${text.slice(0, 300)}`)
            if (answer.ms > CASE_BUDGET_MS) throw new Error(`${target.method} ${target.path} took ${Math.round(answer.ms)} ms for ${text.slice(0, 300)}`)
          },
        ),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
      const seconds = (performance.now() - started) / 1000
      const heapGrowthMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20
      console.info(
        `JSON fuzz: ${RUNS} cases over ${targets.length} endpoints in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries(statuses))}; heap +${heapGrowthMb.toFixed(0)} MiB`,
      )
      expect(heapGrowthMb).toBeLessThan(512)
    },
    30 * 60_000,
  )
})
