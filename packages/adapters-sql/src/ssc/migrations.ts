/**
 * The ssc module's migrations. Frozen once released: a schema change is a new
 * migration with the next global number (see `../migrations.ts`), never an edit.
 */
import type { Migration } from "kysely"
import { type AnyDb, type SqlDialect, typesOf } from "../migration.ts"

const signingTokenFlow = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .createTable("ssc_operations")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("token_id", t.text, (c) => c.notNull())
        .addColumn("document_hash", t.text, (c) => c.notNull())
        .addColumn("document_name", t.text, (c) => c.notNull())
        .addColumn("loa", t.text, (c) => c.notNull())
        .addColumn("mode", t.text, (c) => c.notNull())
        .addColumn("rp_origin", t.text, (c) => c.notNull())
        .addColumn("user_id", t.text)
        .addColumn("credential_id", t.text)
        .addColumn("status", t.text, (c) => c.notNull())
        .addColumn("nonce", t.text, (c) => c.notNull())
        .addColumn("failed_attempts", t.int, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("completed_at", t.bigint)
        .addColumn("signature_id", t.text)
        .addColumn("signature", t.text)
        .addColumn("certificate_serial", t.text)
        .addColumn("error_message", t.text)
        .execute()
      await db.schema.createIndex("ssc_operations_client_idx").on("ssc_operations").columns(["client_id", "created_at"]).execute()
    },
  }
}

/** The ssc module's migrations for `dialect`, by global name. */
export const sscMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0003_signing_token_flow": signingTokenFlow(dialect),
})
