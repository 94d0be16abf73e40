/**
 * The rp module's migrations. Frozen once released: a schema change is a new
 * migration with the next global number (see `../migrations.ts`), never an edit.
 */
import type { Migration } from "kysely"
import { type AnyDb, type SqlDialect, typesOf } from "../migration.ts"
import { bumpConfigEpochOn } from "../config-epoch.ts"

// RP platform: redirect URIs, the requested plan and the rotated secrets in their grace period on the RP
// row; the organisation-KYC record of RPs in its own append-only table.
const rpPlatform = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      // One column per statement: SQLite's ALTER TABLE adds one at a time.
      await db.schema
        .alterTable("relying_parties")
        .addColumn("redirect_uris", t.text, (c) => c.notNull().defaultTo("[]"))
        .execute()
      await db.schema.alterTable("relying_parties").addColumn("requested_plan", t.text).execute()
      await db.schema.alterTable("relying_parties").addColumn("retired_client_secret_hash", t.text).execute()
      await db.schema.alterTable("relying_parties").addColumn("retired_client_secret_until", t.bigint).execute()
      await db.schema.alterTable("relying_parties").addColumn("retired_ssc_secret_hash", t.text).execute()
      await db.schema.alterTable("relying_parties").addColumn("retired_ssc_secret_until", t.bigint).execute()

      await db.schema
        .createTable("rp_organisation_checks")
        .addColumn("id", "integer", (c) => (dialect === "postgres" ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()))
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("status", t.text, (c) => c.notNull())
        .addColumn("legal_name", t.text, (c) => c.notNull())
        .addColumn("registration_number", t.text, (c) => c.notNull())
        .addColumn("country", t.text, (c) => c.notNull())
        .addColumn("documents", t.text, (c) => c.notNull())
        .addColumn("submitted_by", t.text)
        .addColumn("checked_by", t.text)
        .addColumn("note", t.text)
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("rp_organisation_checks_client_idx").on("rp_organisation_checks").columns(["client_id", "id"]).execute()
    },
  }
}

/**
 * 0015: each RP's `id_token_signed_response_alg`. RPs registered before RS256 ID tokens existed
 * were given ES256 ones and may have pinned that algorithm, so they keep ES256; new RPs are
 * registered with the OIDC default RS256 (the domain writes it explicitly).
 */
const idTokenAlgorithm = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .alterTable("relying_parties")
        .addColumn("id_token_signed_response_alg", t.text, (c) => c.notNull().defaultTo("ES256"))
        .execute()
    },
  }
}

/** The rp module's migrations for `dialect`, by global name. */
export const rpMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0009_rp_platform": rpPlatform(dialect),
  "0015_id_token_algorithm": idTokenAlgorithm(dialect),
  // RP records are read from the cache at every signature (config-epoch.ts)
  "0018_rp_config_epoch": { up: (db: AnyDb) => bumpConfigEpochOn(db, dialect, "relying_parties") },
})
