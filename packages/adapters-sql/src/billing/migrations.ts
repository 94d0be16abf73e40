/**
 * The billing module's migrations. Frozen once released: a schema change is a new
 * migration with the next global number (see `../migrations.ts`), never an edit.
 */
import type { Kysely, Migration } from "kysely"
import { type AnyDb, type SqlDialect, typesOf } from "../migration.ts"
import { bumpConfigEpochOn } from "../config-epoch.ts"

/** 0010: checkouts (attempts to pay for a plan) and subscriptions (paid terms, one per paid checkout). */
const plans = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("checkouts")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("plan", t.text, (c) => c.notNull())
        .addColumn("period", t.text, (c) => c.notNull())
        .addColumn("method", t.text, (c) => c.notNull())
        .addColumn("price_usd_minor", t.bigint, (c) => c.notNull())
        .addColumn("currency", t.text, (c) => c.notNull())
        .addColumn("amount_minor", t.bigint, (c) => c.notNull())
        .addColumn("rate_quote", t.text)
        .addColumn("status", t.text, (c) => c.notNull())
        .addColumn("provider_reference", t.text)
        .addColumn("failure_reason", t.text)
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("updated_at", t.bigint, (c) => c.notNull())
        .addColumn("paid_at", t.bigint)
        .execute()
      await db.schema.createIndex("checkouts_client_idx").on("checkouts").columns(["client_id", "created_at"]).execute()

      await db.schema
        .createTable("subscriptions")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("plan", t.text, (c) => c.notNull())
        .addColumn("period", t.text, (c) => c.notNull())
        .addColumn("checkout_id", t.text, (c) => c.notNull().unique())
        .addColumn("starts_at", t.bigint, (c) => c.notNull())
        .addColumn("ends_at", t.bigint, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("subscriptions_client_idx").on("subscriptions").columns(["client_id", "starts_at"]).execute()
    },
  }
}

/** 0016: per-day usage of each RP (signatures, quota refusals), kept after the day's quota counter is purged. */
const usageDays = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("usage_days")
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("day", t.text, (c) => c.notNull())
        .addColumn("signatures", t.bigint, (c) => c.notNull())
        .addColumn("quota_refusals", t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint("usage_days_pk", ["client_id", "day"])
        .execute()
    },
  }
}

/** The billing module's migrations for `dialect`, by global name. */
export const billingMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0010_plans": plans(dialect),
  "0016_usage_days": usageDays(dialect),
  // the plan in force is read from the cache at every signing request (config-epoch.ts)
  "0019_subscriptions_config_epoch": { up: (db: AnyDb) => bumpConfigEpochOn(db, dialect, "subscriptions") },
})
