/** Turns a Schema decoding failure into a 400 that names the field, or the error the body's contract names for that field. */
import { fieldErrorFor, InvalidRequest, type CataloguedError } from "@signet/core"
import { Effect, Either, Exit, ParseResult, Schema } from "effect"

const OPTIONS = { errors: "first", onExcessProperty: "ignore" } as const

// Each body Schema's synchronous decoder, made once (making one per request cost more than most bodies' decoding).
const decoders = new WeakMap<Schema.Schema<any, any, never>, (input: unknown) => Either.Either<any, ParseResult.ParseError>>()

/**
 * Decodes `input` with `schema`; the first issue becomes its field's own error (a `fieldErrors` annotation), else a 400 `<path>: <message>`.
 * A body that decodes at once is answered as an `Exit` (one runtime step); any other (a refusal, a
 * transformation that waits, a decoder that throws) takes the effectful decoder, which tells why.
 */
export const decodeBody = <A>(schema: Schema.Schema<A, any, never>, input: unknown): Effect.Effect<A, CataloguedError> => {
  let decode = decoders.get(schema)
  if (decode === undefined) {
    decode = Schema.decodeUnknownEither(schema, OPTIONS)
    decoders.set(schema, decode)
  }
  try {
    const decoded = decode(input)
    if (Either.isRight(decoded)) return Exit.succeed(decoded.right as A)
  } catch {
    // told below, by the effectful decoder
  }
  return decodeExplained(schema, input)
}

/** The effectful decoder: the value, or the error that names what is wrong with the body. */
const decodeExplained = <A>(schema: Schema.Schema<A, any, never>, input: unknown): Effect.Effect<A, CataloguedError> =>
  // suspended: the decoder runs (and may throw) as soon as it is called
  Effect.suspend(() => Schema.decodeUnknown(schema, OPTIONS)(input)).pipe(
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
