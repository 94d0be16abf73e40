/** Turns a Schema decoding failure into a 400 that names the field, or the error the body's contract names for that field. */
import { fieldErrorFor, InvalidRequest, type CataloguedError } from "@signet/core"
import { Effect, ParseResult, Schema } from "effect"

/** Decodes `input` with `schema`; the first issue becomes its field's own error (a `fieldErrors` annotation), else a 400 `<path>: <message>`. */
export const decodeBody = <A>(schema: Schema.Schema<A, any, never>, input: unknown): Effect.Effect<A, CataloguedError> =>
  // suspended: the decoder runs (and may throw) as soon as it is called
  Effect.suspend(() => Schema.decodeUnknown(schema, { errors: "first", onExcessProperty: "ignore" })(input)).pipe(
    Effect.mapError((error) => {
      const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
      if (issue === undefined) return new InvalidRequest({ detail: "invalid request body" })
      // A body that is not even an object is malformed (400), whatever its contract says of its fields.
      const isObject = typeof input === "object" && input !== null && !Array.isArray(input)
      const own = isObject ? fieldErrorFor(schema, issue.path) : undefined
      if (own !== undefined) return own
      const path = issue.path.map(String).join(".")
      const detail = issue._tag === "Missing" ? `${path} is required` : path === "" ? `body: ${issue.message}` : `${path}: ${issue.message}`
      return new InvalidRequest({ detail })
    }),
    // The decoder itself can throw on hostile values (effect 3.22 turns a discriminator with an object
    // whose toString is not a function into a string and fails): that is the body's fault, not ours.
    Effect.catchAllDefect(() => Effect.fail(new InvalidRequest({ detail: "body: values of the wrong types" }))),
  )
