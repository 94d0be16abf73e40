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

/**
 * The annotation naming a body's field errors, to spread into the body Schema's one
 * `annotations` call (annotating an annotated Schema again loses its identifier in the JSON Schema).
 */
export const fieldErrors = (errors: FieldErrors): { readonly [BodyFieldErrors]: FieldErrors } => ({ [BodyFieldErrors]: errors })

/** The catalogued error for a decoding issue at `path`, if the Schema names one for its first segment. */
export const fieldErrorFor = (schema: Schema.Schema.Any, path: ReadonlyArray<PropertyKey>): CataloguedError | undefined => {
  const errors = schema.ast.annotations[BodyFieldErrors] as FieldErrors | undefined
  const make = errors?.[path.length === 0 ? "" : String(path[0])]
  return make?.()
}
