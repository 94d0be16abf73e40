/**
 * What contracts share: a request Schema can name, per field, the catalogued error a bad value of
 * that field answers (the spec's 422 `customer_id is required`), instead of the generic 400.
 */
import type { Schema } from "effect"
import type { CataloguedError } from "../errors/catalogue.ts"

/** Annotation key of a body Schema's field errors. */
export const BodyFieldErrors: unique symbol = Symbol.for("@signet/core/BodyFieldErrors")

/** Field name (`""`: the body as a whole) to the error a missing or bad value of it answers. */
export type FieldErrors = Readonly<Record<string, () => CataloguedError>>

/** Annotates a body Schema with its field errors. */
export const withFieldErrors = <S extends Schema.Schema.Any>(schema: S, errors: FieldErrors): S =>
  schema.annotations({ [BodyFieldErrors]: errors }) as S

/** The catalogued error for a decoding issue at `path`, if the Schema names one for its first segment. */
export const fieldErrorFor = (schema: Schema.Schema.Any, path: ReadonlyArray<PropertyKey>): CataloguedError | undefined => {
  const errors = schema.ast.annotations[BodyFieldErrors] as FieldErrors | undefined
  const make = errors?.[path.length === 0 ? "" : String(path[0])]
  return make?.()
}
