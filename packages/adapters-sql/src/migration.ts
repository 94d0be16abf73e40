/**
 * What every module's migrations are written with. Kysely cannot tell the dialect inside a
 * migration, so migrations are built for one: column types differ (SQLite `integer` vs
 * PostgreSQL `bigint` for ms timestamps), the statements do not.
 */
import { type ColumnDataType, type Expression, type Kysely, sql } from "kysely"

/** The two databases the engine runs on. */
export type SqlDialect = "sqlite" | "postgres"

type DataTypeExpression = ColumnDataType | Expression<unknown>

/** The column types of a dialect. */
export interface ColumnTypes {
  /** text; on PostgreSQL with the byte-wise "C" collation so ordering matches SQLite's BINARY */
  readonly text: DataTypeExpression
  /** 64-bit integer: ms timestamps, counters */
  readonly bigint: DataTypeExpression
  /** 0/1 flags and small integers, `integer` on both so the row code is shared */
  readonly int: DataTypeExpression
}

/** The column types migrations use on `dialect`. */
export const typesOf = (dialect: SqlDialect): ColumnTypes =>
  dialect === "postgres"
    ? { text: sql`text collate "C"` as Expression<unknown>, bigint: "bigint", int: "integer" }
    : { text: "text", bigint: "integer", int: "integer" }

/**
 * The database a migration runs on. `Kysely<any>` is what kysely's Migration interface
 * takes; migrations must not depend on the current `Database` type (they are frozen).
 */
export type AnyDb = Kysely<any> // eslint-disable-line @typescript-eslint/no-explicit-any
