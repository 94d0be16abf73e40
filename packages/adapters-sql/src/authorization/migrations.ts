/**
 * The authorization module's migrations. Frozen once released: a schema change is a new
 * migration with the next global number (see `../migrations.ts`), never an edit.
 */
import type { Migration } from "kysely"
import { type AnyDb, type SqlDialect, typesOf } from "../migration.ts"

/** 0013: the authorization model: single-use step-up proofs and the audit trail of security events. */
const authorization = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .createTable("step_up_proofs")
        .addColumn("proof_hash", t.text, (c) => c.primaryKey())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("action", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("consumed_at", t.bigint)
        .execute()
      await db.schema.createIndex("step_up_proofs_expires_idx").on("step_up_proofs").column("expires_at").execute()
      await db.schema
        .createTable("audit_events")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("at", t.bigint, (c) => c.notNull())
        .addColumn("action", t.text, (c) => c.notNull())
        .addColumn("actor_user_id", t.text)
        .addColumn("actor_client_id", t.text)
        .addColumn("subject", t.text, (c) => c.notNull())
        .addColumn("detail", t.text, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("audit_events_at_idx").on("audit_events").column("at").execute()
    },
  }
}

/** The authorization module's migrations for `dialect`, by global name. */
export const authorizationMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0013_authorization": authorization(dialect),
})
