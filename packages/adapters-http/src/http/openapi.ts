/** The OpenAPI 3.1 document, generated from the same endpoint table and schemas that validate requests. */
import { INTERFACE_VERSION } from "@signet/core"
import { JSONSchema, Schema } from "effect"
import type { Endpoint } from "./endpoint.ts"

const ErrorBody = Schema.Struct({ error: Schema.String }).annotations({ identifier: "Error", description: "Every failure: `{ \"error\": <message> }`" })

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

/** Builds the document for endpoints mounted at `serverUrl`. */
export const openApiDocument = (endpoints: ReadonlyArray<Endpoint<any, any>>, serverUrl: string, environment: string) => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const schemaOf = (schema: Schema.Schema<any, any, never>) =>
    JSONSchema.fromAST(schema.ast, { definitions, definitionPath: "#/components/schemas/", target: "openApi3.1" })
  const errorSchema = schemaOf(ErrorBody)
  const paths: Record<string, Record<string, unknown>> = {}
  for (const e of endpoints) {
    if (e.hidden) continue
    const responses: Record<string, unknown> = {
      "200": "mediaType" in e.response
        ? { description: "OK", content: { [e.response.mediaType]: {} } }
        : { description: "OK", content: { "application/json": { schema: schemaOf(e.response) } } },
    }
    const errors = [...(e.body ? STANDARD_ERRORS : STANDARD_ERRORS.filter((x) => x.status === 408)),
      ...(e.auth === "bearer" ? BEARER_ERRORS : []), ...(e.errors ?? [])]
    for (const err of errors) {
      const key = String(err.status)
      const prior = responses[key] as { description: string } | undefined
      responses[key] = {
        description: prior ? `${prior.description}; ${err.description}` : err.description,
        content: { "application/json": { schema: errorSchema } },
      }
    }
    const params = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }))
    paths[e.path] = {
      ...paths[e.path],
      [e.method.toLowerCase()]: {
        summary: e.summary,
        tags: [e.tag],
        ...(params.length > 0 ? { parameters: params } : {}),
        ...(e.body ? { requestBody: { required: true, content: { "application/json": { schema: schemaOf(e.body) } } } } : {}),
        ...(e.auth === "bearer" ? { security: [{ bearer: [e.scope ?? "basic"] }] } : e.auth === "bearer-optional" ? { security: [{}, { bearer: [e.scope ?? "basic"] }] } : {}),
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
        basic: { type: "http", scheme: "basic" },
      },
    },
  }
}
