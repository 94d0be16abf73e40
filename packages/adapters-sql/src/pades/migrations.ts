/**
 * The pades module's migrations. Frozen once released: a schema change is a new
 * migration with the next global number (see `../migrations.ts`), never an edit.
 */
import type { Migration } from "kysely"
import { type AnyDb, type SqlDialect, typesOf } from "../migration.ts"

const preparedPdfs = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .createTable("prepared_pdfs")
        .addColumn("request_id", t.text, (c) => c.primaryKey())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("sealed", dialect === "postgres" ? "bytea" : "blob", (c) => c.notNull())
        .addColumn("contents_offset", t.bigint, (c) => c.notNull())
        .addColumn("contents_bytes", t.int, (c) => c.notNull())
        .addColumn("field_name", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("prepared_pdfs_created_idx").on("prepared_pdfs").column("created_at").execute()
    },
  }
}

/** 0012: the PAdES level asked for with a prepared PDF (-B for the rows made before). */
const padesLevels = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .alterTable("prepared_pdfs")
        .addColumn("level", t.text, (c) => c.notNull().defaultTo("PAdES-BASELINE-B"))
        .execute()
    },
  }
}

/** The pades module's migrations for `dialect`, by global name. */
export const padesMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0011_prepared_pdfs": preparedPdfs(dialect),
  "0012_pades_levels": padesLevels(dialect),
})
