/**
 * Responses through their contract: every JSON answer is encoded with its endpoint's Schema for
 * its status, so what leaves is what the contract declares (docs/http.md#contracts).
 */
import { Data, Effect, Either, Exit, ParseResult, Schema } from "effect"
import type { Endpoint } from "./endpoint.ts"
import { Reply } from "./respond.ts"

/** An answer that does not match its endpoint's contract: a defect (500), logged with the endpoint and the path of the mismatch. */
export class ResponseContractViolation extends Data.TaggedError("ResponseContractViolation")<{
  readonly endpoint: string
  readonly status: number
  readonly issue: string
}> {
  override get message() {
    return `${this.endpoint} answered ${this.status} outside its contract: ${this.issue}`
  }
}

/** The Schema of an endpoint's JSON answers with `status`, if it declares one. */
export const responseSchemaFor = (endpoint: Endpoint<any, any>, status: number): Schema.Schema<any, any, never> | undefined => {
  const declared = endpoint.responses?.[status]
  if (declared !== undefined) return declared
  return status === (endpoint.status ?? 200) && Schema.isSchema(endpoint.response) ? endpoint.response : undefined
}

const nameOf = (endpoint: Endpoint<any, any>) => `${endpoint.method} ${endpoint.path}`

/** How an answer is encoded: `strict` refuses properties its Schema does not declare, otherwise they are dropped. */
const encodeOptions = (strict: boolean) => ({ errors: "first", onExcessProperty: strict ? "error" : "ignore" }) as const

type Encoder = (value: unknown) => Either.Either<unknown, ParseResult.ParseError>

// Each response Schema's synchronous encoders (lenient, strict), made once: making one per answer cost more than most answers' encoding.
const encoders = new WeakMap<Schema.Schema<any, any, never>, { lenient?: Encoder; strict?: Encoder }>()

const encoderFor = (schema: Schema.Schema<any, any, never>, strict: boolean): Encoder => {
  let both = encoders.get(schema)
  if (both === undefined) {
    both = {}
    encoders.set(schema, both)
  }
  const mode = strict ? "strict" : "lenient"
  const known = both[mode]
  if (known !== undefined) return known
  const made = Schema.encodeUnknownEither(schema, encodeOptions(strict))
  both[mode] = made
  return made
}

/**
 * Encodes what a handler returned. `strict` (engine option `validateResponses`, on in every test
 * engine) also refuses properties the Schema does not declare and JSON built outside the contract;
 * otherwise undeclared properties are dropped. A value that does not match dies either way.
 */
export const encodeResponse = (endpoint: Endpoint<any, any>, result: unknown, strict: boolean): Effect.Effect<Reply | Response> => {
  if (result instanceof Response) {
    const type = result.headers.get("content-type") ?? ""
    if (strict && /^application\/(.+\+)?json/.test(type)) {
      return Effect.die(
        new ResponseContractViolation({
          endpoint: nameOf(endpoint),
          status: result.status,
          issue: "a JSON Response built outside the contract (return the value, or reply(status, body))",
        }),
      )
    }
    return Effect.succeed(result)
  }
  const answer = result instanceof Reply ? result : new Reply(endpoint.status ?? 200, result)
  const schema = responseSchemaFor(endpoint, answer.status)
  if (schema === undefined) {
    return Effect.die(new ResponseContractViolation({ endpoint: nameOf(endpoint), status: answer.status, issue: "no response Schema for this status" }))
  }
  // An answer that encodes at once is an `Exit` (one runtime step); any other takes the effectful
  // encoder below, which names the mismatch (or waits for a transformation that does).
  try {
    const encoded = encoderFor(schema, strict)(answer.body)
    if (Either.isRight(encoded)) return Exit.succeed(new Reply(answer.status, encoded.right, answer.headers))
  } catch {
    // told below
  }
  return Effect.suspend(() => Schema.encodeUnknown(schema, encodeOptions(strict))(answer.body)).pipe(
    Effect.map((body) => new Reply(answer.status, body, answer.headers)),
    Effect.catchAll((error) => {
      const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
      const where = issue === undefined || issue.path.length === 0 ? "body" : issue.path.map(String).join(".")
      return Effect.die(
        new ResponseContractViolation({ endpoint: nameOf(endpoint), status: answer.status, issue: `${where}: ${issue?.message ?? "does not match"}` }),
      )
    }),
  )
}
