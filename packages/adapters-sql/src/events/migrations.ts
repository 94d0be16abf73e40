/**
 * The events module's migrations. Frozen once released: a schema change is a new
 * migration with the next global number (see `../migrations.ts`), never an edit.
 */
import type { ColumnDefinitionBuilder, Migration } from "kysely"
import { type AnyDb, type SqlDialect, typesOf } from "../migration.ts"
import { bumpConfigEpochOn } from "../config-epoch.ts"

const webhooks = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  const autoId = (c: ColumnDefinitionBuilder) => (dialect === "postgres" ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement())
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .createTable("webhook_subscriptions")
        .addColumn("id", "integer", autoId)
        .addColumn("rp_id", "integer", (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("owner_user_id", t.text, (c) => c.notNull())
        .addColumn("url", t.text, (c) => c.notNull())
        .addColumn("events", t.text, (c) => c.notNull())
        .addColumn("secret", t.text, (c) => c.notNull())
        .addColumn("active", t.int, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("webhook_subscriptions_client_idx").on("webhook_subscriptions").columns(["client_id", "active"]).execute()

      await db.schema
        .createTable("deliveries")
        .addColumn("id", "integer", autoId)
        .addColumn("kind", t.text, (c) => c.notNull())
        .addColumn("subscription_id", "integer")
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("url", t.text, (c) => c.notNull())
        .addColumn("event_type", t.text, (c) => c.notNull())
        .addColumn("message_id", t.text, (c) => c.notNull().unique())
        .addColumn("ordering_key", t.text, (c) => c.notNull())
        .addColumn("payload", t.text, (c) => c.notNull())
        .addColumn("status", t.text, (c) => c.notNull())
        .addColumn("attempts", t.int, (c) => c.notNull())
        .addColumn("next_attempt_at", t.bigint, (c) => c.notNull())
        .addColumn("locked_until", t.bigint, (c) => c.notNull())
        .addColumn("last_status", t.int)
        .addColumn("last_error", t.text)
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("delivered_at", t.bigint)
        .execute()
      await db.schema.createIndex("deliveries_due_idx").on("deliveries").columns(["status", "next_attempt_at"]).execute()
      await db.schema.createIndex("deliveries_client_idx").on("deliveries").columns(["client_id", "id"]).execute()
      await db.schema.createIndex("deliveries_order_idx").on("deliveries").columns(["url", "ordering_key", "id"]).execute()

      await db.schema
        .createTable("delivery_attempts")
        .addColumn("delivery_id", "integer", (c) => c.notNull())
        .addColumn("attempt", t.int, (c) => c.notNull())
        .addColumn("at", t.bigint, (c) => c.notNull())
        .addColumn("status_code", t.int)
        .addColumn("error", t.text)
        .addColumn("duration_ms", t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint("delivery_attempts_pk", ["delivery_id", "attempt"])
        .execute()
    },
  }
}

/** The events module's migrations for `dialect`, by global name. */
export const eventsMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0004_webhooks": webhooks(dialect),
  // an RP's webhook subscriptions are read from the cache at every completion (config-epoch.ts)
  "0021_webhooks_config_epoch": { up: (db: AnyDb) => bumpConfigEpochOn(db, dialect, "webhook_subscriptions") },
})
