/**
 * The column types the modules' tables are written in (each module declares its tables in
 * its own `tables.ts`; `database.ts` is the interface they merge into). Row types are not
 * domain types: a `bigint` column reads back as a number on SQLite and a string on
 * PostgreSQL, JSON is text and booleans are 0/1, so every row is decoded through a Schema
 * (see `rows.ts`) before the domain sees it.
 */
import type { ColumnType } from "kysely"

/** A `bigint` column (ms timestamps, counters): number on SQLite, string on PostgreSQL; written as a number. */
export type BigIntColumn = ColumnType<number | string, number, number>

/** A nullable `bigint` column. */
export type NullableBigIntColumn = ColumnType<number | string | null, number | null, number | null>

/** A boolean stored as integer 0/1 on both databases. */
export type FlagColumn = ColumnType<number, number, number>
