/** The OpenAPI 3.1 document, generated from the same endpoint table and schemas that validate requests. */
import { INTERFACE_VERSION } from "@signet/core"
import { JSONSchema, Schema } from "effect"
import type { Endpoint } from "./endpoint.ts"

const ErrorBody = Schema.Struct({ error: Schema.String }).annotations({ identifier: "Error", description: 'Every failure: `{ "error": <message> }`' })

const STANDARD_ERRORS: ReadonlyArray<{ readonly status: number; readonly description: string }> = [
  { status: 400, description: "A required field or format is wrong; `error` names it (also malformed JSON)" },
  { status: 408, description: "Processing deadline exceeded; read the operation state before retrying" },
  { status: 413, description: "Body too large" },
  { status: 415, description: "Wrong content type (JSON expected)" },
]

const BEARER_ERRORS = [
  { status: 401, description: "`Missing Authorization header`, `Invalid or expired token` or `Token missing subject claim`" },
  { status: 403, description: "`CSRF token validation failed`, or the token lacks the `basic` scope" },
]

const CLIENT_ERRORS = [{ status: 401, description: "`invalid_client`: missing or wrong client credentials (HTTP Basic)" }]

/** The security requirement an endpoint's declared authentication means (an empty object: may also be called without). */
export const securityOf = (e: Endpoint<any, any>): ReadonlyArray<Record<string, ReadonlyArray<string>>> => {
  switch (e.auth) {
    case "bearer":
      return [{ bearer: [e.scope ?? "basic"] }]
    case "bearer-optional":
      return [{}, { bearer: [e.scope ?? "basic"] }]
    case "basic":
      return [{ basic: [] }]
    // client_secret_post sends the credentials in the form instead
    case "oauth-client":
      return [{ basic: [] }, {}]
    case "admin":
      return [{ adminToken: [] }]
    case "capture-token":
      return [{ captureToken: [] }]
    case "none":
      return []
  }
}

/** Builds the document for endpoints mounted at `serverUrl`. */
export const openApiDocument = (endpoints: ReadonlyArray<Endpoint<any, any>>, serverUrl: string, environment: string) => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const schemaOf = (schema: Schema.Schema<any, any, never>) =>
    JSONSchema.fromAST(schema.ast, { definitions, definitionPath: "#/components/schemas/", target: "openApi3.1" })
  const errorSchema = schemaOf(ErrorBody)
  const paths: Record<string, Record<string, unknown>> = {}
  for (const e of endpoints) {
    if (e.hidden) continue
    const success = String(e.status ?? 200)
    const responses: Record<string, unknown> = {
      [success]:
        "mediaType" in e.response
          ? { description: "OK", content: { [e.response.mediaType]: {} } }
          : { description: "OK", content: { "application/json": { schema: schemaOf(e.response) } } },
    }
    const errors = [
      ...(e.body ? STANDARD_ERRORS : STANDARD_ERRORS.filter((x) => x.status === 408)),
      ...(e.auth === "bearer" ? BEARER_ERRORS : e.auth === "basic" || e.auth === "oauth-client" ? CLIENT_ERRORS : []),
      ...(e.errors ?? []),
    ]
    for (const err of errors) {
      const key = String(err.status)
      const prior = responses[key] as { description: string } | undefined
      // An endpoint that answers a status itself (OAuth errors) documents that body, not `{ error }`.
      const own = e.responses?.[err.status]
      responses[key] = {
        description: prior ? `${prior.description}; ${err.description}` : err.description,
        content: { "application/json": { schema: own === undefined ? errorSchema : schemaOf(own) } },
      }
    }
    const params = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => {
      const declared = e.params?.[m[1]!]
      return { name: m[1], in: "path", required: true, schema: declared === undefined ? { type: "string" } : schemaOf(declared) }
    })
    const security = securityOf(e)
    paths[e.path] = {
      ...paths[e.path],
      [e.method.toLowerCase()]: {
        summary: e.summary,
        tags: [e.tag],
        ...(params.length > 0 ? { parameters: params } : {}),
        ...(e.body ? { requestBody: { required: true, content: { "application/json": { schema: schemaOf(e.body) } } } } : {}),
        security,
        responses,
      },
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Signet",
      version: INTERFACE_VERSION,
      description: `Identity verification and passkey-approved signing (${environment}). Interface version ${INTERFACE_VERSION}; every answer carries it in the Signet-Version header.`,
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: definitions,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        basic: { type: "http", scheme: "basic", description: "an RP's client id and client secret" },
        adminToken: { type: "http", scheme: "bearer", description: "the engine's administrator token" },
        captureToken: { type: "http", scheme: "bearer", description: "a KYC liveness-session token (also accepted as `token` in the body)" },
      },
    },
  }
}
