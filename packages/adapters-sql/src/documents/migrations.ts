/**
 * The documents module's migrations. Frozen once released: a schema change is a new
 * migration with the next global number (see `../migrations.ts`), never an edit.
 */
import type { Migration } from "kysely"
import { type AnyDb, type SqlDialect, typesOf } from "../migration.ts"

const documents = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .createTable("encrypted_files")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("owner_user_id", t.text, (c) => c.notNull())
        .addColumn("name", t.text, (c) => c.notNull())
        .addColumn("size", t.bigint, (c) => c.notNull())
        .addColumn("envelope", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()
      // One row per recipient (the owner included), so "files I can open" is an indexed lookup.
      await db.schema
        .createTable("encrypted_file_recipients")
        .addColumn("file_id", t.text, (c) => c.notNull())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("position", t.int, (c) => c.notNull())
        .addPrimaryKeyConstraint("encrypted_file_recipients_pk", ["file_id", "user_id"])
        .execute()
      await db.schema.createIndex("encrypted_file_recipients_user_idx").on("encrypted_file_recipients").columns(["user_id", "file_id"]).execute()

      await db.schema
        .createTable("signature_images")
        .addColumn("user_id", t.text, (c) => c.primaryKey())
        .addColumn("sealed", t.text, (c) => c.notNull())
        .addColumn("width", t.int, (c) => c.notNull())
        .addColumn("height", t.int, (c) => c.notNull())
        .addColumn("size", t.int, (c) => c.notNull())
        .addColumn("updated_at", t.bigint, (c) => c.notNull())
        .execute()
    },
  }
}

/** The documents module's migrations for `dialect`, by global name. */
export const documentsMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0006_documents": documents(dialect),
})
