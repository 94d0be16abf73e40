/**
 * Column codecs shared by the row schemas: what a column reads back as on either database,
 * decoded to the domain's type.
 */
import { Effect, Either, Exit, Schema } from "effect"
import { setBounded } from "@signet/core"

/** A `bigint` column: a number on SQLite, a decimal string on PostgreSQL. */
export const DbBigInt = Schema.Union(Schema.Number, Schema.NumberFromString)

/** A boolean stored as 0/1. */
export const DbFlag = Schema.transform(Schema.Literal(0, 1), Schema.Boolean, {
  strict: true,
  decode: (n) => n === 1,
  encode: (b) => (b ? 1 : 0),
})

/** A JSON array of strings stored as text. */
export const DbStringArray = Schema.parseJson(Schema.Array(Schema.String))

/** The 0/1 value of a boolean, for writes. */
export const flag = (b: boolean): 0 | 1 => (b ? 1 : 0)

/**
 * `schema`'s synchronous decoder as an Exit: the value, or the ParseError as a defect. An Exit is
 * an Effect that runs in one runtime step, where `decodeUnknown` and `orDie` take four (a row
 * schema is synchronous: its transformations never wait).
 */
const decodeNow = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema)
  return (row: unknown): Exit.Exit<A> => {
    const decoded = decode(row)
    return Either.isRight(decoded) ? Exit.succeed(decoded.right) : Exit.die(decoded.left)
  }
}

/** Decodes a row (an `unknown` from the driver) with `schema`; a row that does not decode is a defect. */
export const decodeRow = <A, I>(schema: Schema.Schema<A, I>): ((row: unknown) => Effect.Effect<A>) => decodeNow(schema)

/**
 * Every row decoded with `decode`, in order; the first that does not decode is the failure. Rows
 * whose decoder answers at once (an `Exit`, as `decodeRow`'s do) take one runtime step in all,
 * where `Effect.forEach` takes four around them and three for each row; any other decoder goes
 * through `Effect.forEach`.
 */
export const decodeEach = <A>(rows: ReadonlyArray<unknown>, decode: (row: unknown) => Effect.Effect<A>): Effect.Effect<Array<A>> => {
  const values: Array<A> = []
  for (const row of rows) {
    const decoded = decode(row)
    if (!Exit.isExit(decoded)) return Effect.forEach(rows, (r) => decode(r))
    const exit = decoded as Exit.Exit<A>
    if (Exit.isFailure(exit)) return Exit.failCause(exit.cause)
    values.push(exit.value)
  }
  return Exit.succeed(values)
}

/** True when both rows have the same columns holding identical (`===`) values. */
const sameColumns = (a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean => {
  let count = 0
  for (const column in b) {
    if (a[column] !== b[column] || !(column in a)) return false
    count++
  }
  return count === Object.keys(a).length
}

/**
 * `decodeRow` for rows read on nearly every request that rarely change (an RP, a user, a CA
 * certificate): per key (the value of `column`), the last row decoded and its value are kept, and
 * a row whose columns are all identical (`===`) to that one is answered with the same value
 * without decoding again. The row actually read is compared, so a change made anywhere (another
 * node, another process) is decoded afresh; a column that is not a primitive never compares equal.
 * Decoded values are shared between callers: domain values are read-only. At most `capacity` keys
 * are kept, the oldest dropped first.
 */
export const decodeRowRemembered = <A, I>(schema: Schema.Schema<A, I>, column: string, capacity = 1024) => {
  const decode = decodeNow(schema)
  const last = new Map<unknown, { readonly row: Readonly<Record<string, unknown>>; readonly value: A }>()
  return (row: unknown): Effect.Effect<A> => {
    if (typeof row !== "object" || row === null) return decode(row)
    const columns = row as Readonly<Record<string, unknown>>
    const key = columns[column]
    const seen = last.get(key)
    if (seen !== undefined && sameColumns(seen.row, columns)) return Exit.succeed(seen.value)
    const decoded = decode(row)
    // a copy: the driver's object is the caller's to change
    if (Exit.isSuccess(decoded)) setBounded(last, key, { row: { ...columns }, value: decoded.value }, capacity)
    return decoded
  }
}

/**
 * Encodes a domain value to a row for writing. A `DbBigInt` column encodes to a number,
 * though its type also admits the decimal string PostgreSQL returns on reads.
 */
export const rowEncoder =
  <Row>() =>
  <A, I>(schema: Schema.Schema<A, I>) => {
    const encode = Schema.encodeSync(schema)
    return (value: A): Row => encode(value) as unknown as Row
  }
