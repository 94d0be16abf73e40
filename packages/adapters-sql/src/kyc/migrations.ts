/**
 * The kyc module's migrations. Frozen once released: a schema change is a new
 * migration with the next global number (see `../migrations.ts`), never an edit.
 */
import type { ColumnDefinitionBuilder, Migration } from "kysely"
import { type AnyDb, type SqlDialect, typesOf } from "../migration.ts"

const kyc = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  const real = dialect === "postgres" ? "double precision" : "real"
  const autoId = (c: ColumnDefinitionBuilder) => (dialect === "postgres" ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement())
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .createTable("kyc_verifications")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("customer_id", t.text, (c) => c.notNull())
        .addColumn("phone_number", t.text, (c) => c.notNull())
        .addColumn("rp_urn", t.text)
        .addColumn("status", t.text, (c) => c.notNull())
        .addColumn("document", t.text)
        .addColumn("liveness_score", real)
        .addColumn("face_match_score", real)
        .addColumn("reasons", t.text, (c) => c.notNull())
        .addColumn("session_token_hash", t.text)
        .addColumn("session_expires_at", t.bigint)
        .addColumn("selfie_image_id", t.text)
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("updated_at", t.bigint, (c) => c.notNull())
        .addColumn("version", t.int, (c) => c.notNull())
        .execute()
      // One customer, one phone number and one rp_urn per RP (NULL rp_urns never collide).
      await db.schema.createIndex("kyc_verifications_customer_uq").on("kyc_verifications").columns(["client_id", "customer_id"]).unique().execute()
      await db.schema.createIndex("kyc_verifications_phone_uq").on("kyc_verifications").columns(["client_id", "phone_number"]).unique().execute()
      await db.schema.createIndex("kyc_verifications_urn_uq").on("kyc_verifications").columns(["client_id", "rp_urn"]).unique().execute()
      await db.schema.createIndex("kyc_verifications_session_idx").on("kyc_verifications").column("session_token_hash").execute()
      await db.schema.createIndex("kyc_verifications_customer_idx").on("kyc_verifications").columns(["customer_id", "status"]).execute()

      await db.schema
        .createTable("kyc_captures")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("verification_id", t.text, (c) => c.notNull())
        .addColumn("liveness_score", real, (c) => c.notNull())
        .addColumn("selfie_image_id", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("consumed_at", t.bigint)
        .execute()
      await db.schema.createIndex("kyc_captures_verification_idx").on("kyc_captures").column("verification_id").execute()

      await db.schema
        .createTable("kyc_images")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("verification_id", t.text, (c) => c.notNull())
        .addColumn("kind", t.text, (c) => c.notNull())
        .addColumn("position", t.int, (c) => c.notNull())
        .addColumn("content_type", t.text, (c) => c.notNull())
        .addColumn("ciphertext", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("kyc_images_verification_idx").on("kyc_images").columns(["verification_id", "kind"]).execute()
      await db.schema.createIndex("kyc_images_created_idx").on("kyc_images").column("created_at").execute()

      await db.schema
        .createTable("kyc_audit")
        .addColumn("seq", "integer", autoId)
        .addColumn("verification_id", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("action", t.text, (c) => c.notNull())
        .addColumn("from_status", t.text)
        .addColumn("to_status", t.text)
        .addColumn("reasons", t.text, (c) => c.notNull())
        .addColumn("at", t.bigint, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("kyc_audit_verification_idx").on("kyc_audit").columns(["verification_id", "seq"]).execute()

      await db.schema
        .createTable("kyc_settings")
        .addColumn("client_id", t.text, (c) => c.primaryKey())
        .addColumn("enabled", t.int, (c) => c.notNull())
        .addColumn("identity_scope", t.text, (c) => c.notNull())
        .addColumn("updated_at", t.bigint, (c) => c.notNull())
        .execute()
    },
  }
}

/** The kyc module's migrations for `dialect`, by global name. */
export const kycMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0005_kyc": kyc(dialect),
})
