/**
 * Column codecs shared by the row schemas: what a column reads back as on either database,
 * decoded to the domain's type.
 */
import { Effect, Schema } from "effect"

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

/** Decodes a row (an `unknown` from the driver) with `schema`; a row that does not decode is a defect. */
export const decodeRow = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(schema)
  return (row: unknown) => decode(row).pipe(Effect.orDie)
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
