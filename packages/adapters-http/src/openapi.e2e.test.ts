/** The OpenAPI document a client generator reads: security per endpoint, typed path parameters, bodies from the decoding Schemas. */
import { ok } from "@signet/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

type Json = Record<string, any>
interface Operation {
  readonly security?: ReadonlyArray<Record<string, ReadonlyArray<string>>>
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string; readonly required: boolean; readonly schema?: Json }>
  readonly requestBody?: { readonly content: Record<string, { readonly schema: Json }> }
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema?: Json }> }>
}

let env: RunningEngine
let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> } }

beforeAll(async () => {
  env = await startEngine({ housekeeping: false, deliveries: { worker: false } })
  doc = ok(await env.client.raw("GET", "/openapi.json"))
})
afterAll(async () => env?.stop())

/** Follows `$ref`s into `components.schemas`, keeping the referring schema's own keywords. */
const resolve = (schema: Json): Json => {
  if (typeof schema["$ref"] !== "string") return schema
  const { $ref, ...rest } = schema
  return { ...resolve(doc.components.schemas[($ref as string).replace("#/components/schemas/", "")]!), ...rest }
}
const operations = () =>
  Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ path, method: method.toUpperCase(), op })))
const op = (method: string, path: string) => {
  const found = doc.paths[path]?.[method.toLowerCase()]
  if (found === undefined) throw new Error(`${method} ${path} is not in the document`)
  return found
}

describe("the OpenAPI document", () => {
  it("declares a security requirement on every operation: basic for RP credentials on /kyc/*, bearer with its scope, none for public ones", () => {
    for (const { path, method, op: o } of operations()) expect(o.security, `${method} ${path}`).toBeDefined()
    const rpCredentials = [
      "/kyc/verifications",
      "/kyc/customers/document",
      "/kyc/customers/liveness-session",
      "/kyc/customers/face",
      "/kyc/customers/verification",
      "/kyc/customers/compare",
      "/kyc/customers/review",
      "/kyc/customers/erase",
      "/kyc/handoff",
    ]
    for (const path of rpCredentials) expect(op("POST", path).security, path).toEqual([{ basic: [] }])
    // The rest of /kyc/* is the browser's: a capture-session token, or the handoff id in the path (the capability).
    for (const [method, path] of [
      ["POST", "/kyc/faceapi"],
      ["GET", "/kyc/capture/status"],
      ["POST", "/kyc/capture/finish"],
    ] as const) {
      expect(op(method, path).security, path).toEqual([{ captureToken: [] }])
    }
    expect(op("GET", "/kyc/handoff/{id}/status").security).toEqual([])
    const kycPaths = operations().filter((o) => o.path.startsWith("/kyc/"))
    expect(
      kycPaths
        .filter((o) => o.op.security!.length === 0)
        .map((o) => o.path)
        .sort(),
    ).toEqual(["/kyc/handoff/{id}/document", "/kyc/handoff/{id}/status"])

    expect(op("POST", "/v2/sign/single").security).toEqual([{ bearer: ["basic"] }])
    expect(op("GET", "/v2/files/{id}").security).toEqual([{ bearer: ["files"] }])
    expect(op("GET", "/v2/certificates/{serial}").security).toEqual([{ bearer: ["certificates"] }])
    expect(op("GET", "/userinfo").security).toEqual([{ bearer: ["openid"] }])
    expect(op("GET", "/admin/api/relying-parties").security).toEqual([{ adminToken: [] }])
    for (const path of ["/health", "/v2/ca", "/.well-known/jwks.json"]) expect(op("GET", path).security, path).toEqual([])
    expect(op("POST", "/v2/sign/auth/{requestId}").security).toEqual([])
    // Every scheme named is defined.
    const named = new Set(operations().flatMap((o) => o.op.security!.flatMap((s) => Object.keys(s))))
    for (const name of named) expect(doc.components.securitySchemes[name], name).toBeDefined()
    expect(doc.components.securitySchemes["basic"]).toMatchObject({ type: "http", scheme: "basic" })
  })

  it("types every path parameter; the webhook id is an integer", () => {
    for (const { path, method, op: o } of operations()) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])
      expect(o.parameters?.filter((p) => p.in === "path").map((p) => p.name) ?? [], `${method} ${path}`).toEqual(names)
      for (const p of o.parameters ?? []) {
        expect(p.required).toBe(true)
        expect(resolve(p.schema ?? {})["type"], `${method} ${path} {${p.name}}`).toMatch(/^(string|integer)$/)
      }
    }
    const id = op("DELETE", "/v2/webhooks/{id}").parameters!.find((p) => p.name === "id")!
    expect(resolve(id.schema!)).toMatchObject({ type: "integer", minimum: 1 })
  })

  it("documents KYC bodies and answers from the Schemas that decode and encode them", () => {
    const start = resolve(op("POST", "/kyc/verifications").requestBody!.content["application/json"]!.schema)
    expect(Object.keys(start["properties"])).toEqual(expect.arrayContaining(["customer_id", "phone_number", "rp_urn"]))
    const review = resolve(op("POST", "/kyc/customers/review").requestBody!.content["application/json"]!.schema)
    expect(review["required"]).toEqual(["customer_id", "decision"])
    const verdict = resolve(op("POST", "/kyc/customers/verification").responses["200"]!.content!["application/json"]!.schema!)
    expect(verdict["required"]).toEqual(expect.arrayContaining(["customer_id", "status", "reasons", "face_match_score"]))
    // An RP registration answers 201, and OAuth endpoints document their own error body.
    expect(Object.keys(op("POST", "/v2/relying-parties").responses)).toContain("201")
    expect(resolve(op("POST", "/oauth/token").responses["400"]!.content!["application/json"]!.schema!)["required"]).toEqual(["error", "error_description"])
  })
})
