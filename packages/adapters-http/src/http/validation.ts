/** Turns a Schema decoding failure into a 400 that names the field. */
import { InvalidRequest } from "@signet/core"
import { Effect, ParseResult, Schema } from "effect"

/** Decodes `input` with `schema`; the first issue becomes `<path>: <message>`. */
export const decodeBody = <A>(schema: Schema.Schema<A, any, never>, input: unknown): Effect.Effect<A, InvalidRequest> =>
  Schema.decodeUnknown(schema, { errors: "first", onExcessProperty: "ignore" })(input).pipe(
    Effect.mapError((error) => {
      const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
      if (issue === undefined) return new InvalidRequest({ detail: "invalid request body" })
      const path = issue.path.map(String).join(".")
      const detail = issue._tag === "Missing" ? `${path} is required` : path === "" ? `body: ${issue.message}` : `${path}: ${issue.message}`
      return new InvalidRequest({ detail })
    }))
