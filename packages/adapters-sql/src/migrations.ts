/**
 * Versioned in-code migrations. Kysely cannot tell the dialect inside a migration, so the
 * migrations are built for one: column types differ (SQLite `integer` vs PostgreSQL
 * `bigint` for ms timestamps), the statements do not.
 */
import { Effect } from "effect"
import type { Database } from "./schema.ts"
import { type ColumnDataType, type ColumnDefinitionBuilder, type Expression, type Kysely, type Migration, Migrator, sql } from "kysely"

/** The two databases the engine runs on. */
export type SqlDialect = "sqlite" | "postgres"

type DataTypeExpression = ColumnDataType | Expression<unknown>

interface ColumnTypes {
  /** text; on PostgreSQL with the byte-wise "C" collation so ordering matches SQLite's BINARY */
  readonly text: DataTypeExpression
  /** 64-bit integer: ms timestamps, counters */
  readonly bigint: DataTypeExpression
  /** 0/1 flags and small integers, `integer` on both so the row code is shared */
  readonly int: DataTypeExpression
}

const typesOf = (dialect: SqlDialect): ColumnTypes =>
  dialect === "postgres"
    ? { text: sql`text collate "C"` as Expression<unknown>, bigint: "bigint", int: "integer" }
    : { text: "text", bigint: "integer", int: "integer" }

// Migrations are frozen once released: a schema change is a new entry, never an edit.
// `Kysely<any>` is what kysely's Migration interface takes; migrations must not depend on the current `Database` type.
type AnyDb = Kysely<any> // eslint-disable-line @typescript-eslint/no-explicit-any

const foundation = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema.createTable("relying_parties")
        .addColumn("id", "integer", (c) =>
          dialect === "postgres" ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement())
        .addColumn("client_id", t.text, (c) => c.notNull().unique())
        .addColumn("name", t.text, (c) => c.notNull())
        .addColumn("environment", t.text, (c) => c.notNull())
        .addColumn("client_secret_hash", t.text, (c) => c.notNull())
        .addColumn("ssc_secret_hash", t.text, (c) => c.notNull())
        .addColumn("status", t.text, (c) => c.notNull())
        .addColumn("max_loa", t.text, (c) => c.notNull())
        .addColumn("kyc_verified", t.int, (c) => c.notNull())
        .addColumn("signing_origins", t.text, (c) => c.notNull())
        .addColumn("webauthn_rp_id", t.text, (c) => c.notNull())
        .addColumn("plan", t.text)
        .addColumn("custom_allowance", t.text)
        .addColumn("contact_user_id", t.text)
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("updated_at", t.bigint, (c) => c.notNull())
        .execute()

      await db.schema.createTable("users")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("email", t.text, (c) => c.notNull().unique())
        .addColumn("display_name", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()

      await db.schema.createTable("passkeys")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("public_key", t.text, (c) => c.notNull())
        .addColumn("algorithm", t.int, (c) => c.notNull())
        .addColumn("counter", t.bigint, (c) => c.notNull())
        .addColumn("rp_id", t.text, (c) => c.notNull())
        .addColumn("transports", t.text, (c) => c.notNull())
        .addColumn("backed_up", t.int, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("last_used_at", t.bigint)
        .execute()
      await db.schema.createIndex("passkeys_user_id_idx").on("passkeys").column("user_id").execute()

      await db.schema.createTable("ceremonies")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("kind", t.text, (c) => c.notNull())
        .addColumn("challenge", t.text, (c) => c.notNull())
        .addColumn("user_id", t.text)
        .addColumn("email", t.text)
        .addColumn("display_name", t.text)
        .addColumn("client_id", t.text)
        .addColumn("rp_id", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("consumed_at", t.bigint)
        .execute()

      await db.schema.createTable("hosted_sessions")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("csrf_token_hash", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .execute()

      await db.schema.createTable("keys")
        .addColumn("key_id", t.text, (c) => c.primaryKey())
        .addColumn("algorithm", t.text, (c) => c.notNull())
        .addColumn("public_jwk", t.text, (c) => c.notNull())
        .addColumn("encrypted_private_key", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()
    },
  }
}

const signing = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  const autoId = (c: ColumnDefinitionBuilder) =>
    dialect === "postgres" ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()
  return {
    up: async (db: AnyDb) => {
      await db.schema.createTable("certificates")
        .addColumn("serial", t.text, (c) => c.primaryKey())
        .addColumn("kind", t.text, (c) => c.notNull())
        .addColumn("environment", t.text, (c) => c.notNull())
        .addColumn("user_id", t.text)
        .addColumn("key_id", t.text, (c) => c.notNull())
        .addColumn("subject", t.text, (c) => c.notNull())
        .addColumn("issuer_serial", t.text)
        .addColumn("der", t.text, (c) => c.notNull())
        .addColumn("not_before", t.bigint, (c) => c.notNull())
        .addColumn("not_after", t.bigint, (c) => c.notNull())
        .addColumn("status", t.text, (c) => c.notNull())
        .addColumn("revoked_at", t.bigint)
        .addColumn("revocation_reason", t.text)
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("certificates_kind_idx").on("certificates").columns(["kind", "environment", "created_at"]).execute()
      await db.schema.createIndex("certificates_user_idx").on("certificates").columns(["user_id", "created_at"]).execute()

      await db.schema.createTable("signing_requests")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("credential_id", t.text, (c) => c.notNull())
        .addColumn("document_hash", t.text, (c) => c.notNull())
        .addColumn("document_name", t.text)
        .addColumn("signature_format", t.text, (c) => c.notNull())
        .addColumn("loa", t.text, (c) => c.notNull())
        .addColumn("callback_url", t.text)
        .addColumn("rp_origin", t.text)
        .addColumn("status", t.text, (c) => c.notNull())
        .addColumn("nonce", t.text, (c) => c.notNull())
        .addColumn("failed_attempts", t.int, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("completed_at", t.bigint)
        .addColumn("signature", t.text)
        .addColumn("certificate_serial", t.text)
        .addColumn("error_message", t.text)
        .execute()
      await db.schema.createIndex("signing_requests_user_idx").on("signing_requests").columns(["user_id", "created_at"]).execute()

      await db.schema.createTable("batches")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("credential_id", t.text, (c) => c.notNull())
        .addColumn("documents", t.text, (c) => c.notNull())
        .addColumn("callback_url", t.text)
        .addColumn("status", t.text, (c) => c.notNull())
        .addColumn("nonce", t.text, (c) => c.notNull())
        .addColumn("failed_attempts", t.int, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("completed_at", t.bigint)
        .addColumn("results", t.text)
        .addColumn("error_message", t.text)
        .execute()

      await db.schema.createTable("signing_events")
        .addColumn("seq", "integer", autoId)
        .addColumn("type", t.text, (c) => c.notNull())
        .addColumn("subject_id", t.text, (c) => c.notNull())
        .addColumn("subject_kind", t.text, (c) => c.notNull())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("status", t.text, (c) => c.notNull())
        .addColumn("document_hash", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("signed_at", t.bigint)
        .addColumn("error_message", t.text)
        .addColumn("recorded_at", t.bigint, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("signing_events_user_idx").on("signing_events").columns(["user_id", "seq"]).execute()
      await db.schema.createIndex("signing_events_subject_idx").on("signing_events").columns(["subject_id", "seq"]).execute()

      await db.schema.createTable("quota_counters")
        .addColumn("key", t.text, (c) => c.primaryKey())
        .addColumn("count", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("quota_counters_expiry_idx").on("quota_counters").column("expires_at").execute()
    },
  }
}

const signingTokenFlow = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema.createTable("ssc_operations")
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

const kyc = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  const real = dialect === "postgres" ? "double precision" : "real"
  const autoId = (c: ColumnDefinitionBuilder) =>
    dialect === "postgres" ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()
  return {
    up: async (db: AnyDb) => {
      await db.schema.createTable("kyc_verifications")
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

      await db.schema.createTable("kyc_captures")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("verification_id", t.text, (c) => c.notNull())
        .addColumn("liveness_score", real, (c) => c.notNull())
        .addColumn("selfie_image_id", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("consumed_at", t.bigint)
        .execute()
      await db.schema.createIndex("kyc_captures_verification_idx").on("kyc_captures").column("verification_id").execute()

      await db.schema.createTable("kyc_images")
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

      await db.schema.createTable("kyc_audit")
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

      await db.schema.createTable("kyc_settings")
        .addColumn("client_id", t.text, (c) => c.primaryKey())
        .addColumn("enabled", t.int, (c) => c.notNull())
        .addColumn("identity_scope", t.text, (c) => c.notNull())
        .addColumn("updated_at", t.bigint, (c) => c.notNull())
        .execute()
    },
  }
}

const webhooks = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  const autoId = (c: ColumnDefinitionBuilder) =>
    dialect === "postgres" ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()
  return {
    up: async (db: AnyDb) => {
      await db.schema.createTable("webhook_subscriptions")
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

      await db.schema.createTable("deliveries")
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

      await db.schema.createTable("delivery_attempts")
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

// RP platform: redirect URIs, the requested plan and the rotated secrets in their grace period on the RP
// row; the organisation-KYC record of RPs in its own append-only table.
const rpPlatform = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      // One column per statement: SQLite's ALTER TABLE adds one at a time.
      await db.schema.alterTable("relying_parties").addColumn("redirect_uris", t.text, (c) => c.notNull().defaultTo("[]")).execute()
      await db.schema.alterTable("relying_parties").addColumn("requested_plan", t.text).execute()
      await db.schema.alterTable("relying_parties").addColumn("retired_client_secret_hash", t.text).execute()
      await db.schema.alterTable("relying_parties").addColumn("retired_client_secret_until", t.bigint).execute()
      await db.schema.alterTable("relying_parties").addColumn("retired_ssc_secret_hash", t.text).execute()
      await db.schema.alterTable("relying_parties").addColumn("retired_ssc_secret_until", t.bigint).execute()

      await db.schema.createTable("rp_organisation_checks")
        .addColumn("id", "integer", (c) =>
          dialect === "postgres" ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement())
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

/** 0010: checkouts (attempts to pay for a plan) and subscriptions (paid terms, one per paid checkout). */
const plans = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable("checkouts")
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

      await db.schema.createTable("subscriptions")
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

// OpenID provider: post-logout redirect URIs on the RP row (its redirect URIs come with 0009), codes,
// refresh-token families, consents, revocations, signing keys and the sign-ins of hosted sessions.
const openidProvider = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema.alterTable("relying_parties").addColumn("post_logout_redirect_uris", t.text, (c) => c.notNull().defaultTo("[]")).execute()

      await db.schema.createTable("oidc_codes")
        .addColumn("code_hash", t.text, (c) => c.primaryKey())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("redirect_uri", t.text, (c) => c.notNull())
        .addColumn("scope", t.text, (c) => c.notNull())
        .addColumn("nonce", t.text)
        .addColumn("code_challenge", t.text, (c) => c.notNull())
        .addColumn("auth_time", t.bigint, (c) => c.notNull())
        .addColumn("amr", t.text, (c) => c.notNull())
        .addColumn("family_id", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("consumed_at", t.bigint)
        .execute()

      await db.schema.createTable("oidc_refresh_tokens")
        .addColumn("token_hash", t.text, (c) => c.primaryKey())
        .addColumn("family_id", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("scope", t.text, (c) => c.notNull())
        .addColumn("auth_time", t.bigint, (c) => c.notNull())
        .addColumn("amr", t.text, (c) => c.notNull())
        .addColumn("access_jti", t.text, (c) => c.notNull())
        .addColumn("access_expires_at", t.bigint, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("used_at", t.bigint)
        .addColumn("revoked_at", t.bigint)
        .execute()
      await db.schema.createIndex("oidc_refresh_tokens_family_idx").on("oidc_refresh_tokens").column("family_id").execute()

      await db.schema.createTable("oidc_consents")
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("scope", t.text, (c) => c.notNull())
        .addColumn("granted_at", t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint("oidc_consents_pk", ["user_id", "client_id"])
        .execute()

      await db.schema.createTable("oidc_revocations")
        .addColumn("jti", t.text, (c) => c.primaryKey())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .execute()

      await db.schema.createTable("oidc_signing_keys")
        .addColumn("key_id", t.text, (c) => c.primaryKey())
        .addColumn("environment", t.text, (c) => c.notNull())
        .addColumn("seq", t.int, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addUniqueConstraint("oidc_signing_keys_seq_unique", ["environment", "seq"])
        .execute()

      await db.schema.createTable("session_sign_ins")
        .addColumn("session_id", t.text, (c) => c.primaryKey())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("auth_time", t.bigint, (c) => c.notNull())
        .addColumn("amr", t.text, (c) => c.notNull())
        .execute()
    },
  }
}

/** 0008: external identity providers, sign-ins in flight, links and link offers. */
const identityProviders = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema.createTable("identity_providers")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("owner_client_id", t.text)
        .addColumn("name", t.text, (c) => c.notNull())
        .addColumn("issuer", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("client_secret_sealed", t.text, (c) => c.notNull())
        .addColumn("scopes", t.text, (c) => c.notNull())
        .addColumn("authorization_endpoint", t.text, (c) => c.notNull())
        .addColumn("token_endpoint", t.text, (c) => c.notNull())
        .addColumn("jwks_uri", t.text, (c) => c.notNull())
        .addColumn("userinfo_endpoint", t.text)
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()

      await db.schema.createTable("external_logins")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("provider_id", t.text, (c) => c.notNull())
        .addColumn("nonce", t.text, (c) => c.notNull())
        .addColumn("code_verifier", t.text, (c) => c.notNull())
        .addColumn("browser_binding_hash", t.text, (c) => c.notNull())
        .addColumn("return_to", t.text, (c) => c.notNull())
        .addColumn("link_user_id", t.text)
        .addColumn("client_id", t.text)
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("consumed_at", t.bigint)
        .execute()

      await db.schema.createTable("identity_links")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("provider_id", t.text, (c) => c.notNull())
        .addColumn("issuer", t.text, (c) => c.notNull())
        .addColumn("subject", t.text, (c) => c.notNull())
        .addColumn("email", t.text)
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addUniqueConstraint("identity_links_identity_key", ["issuer", "subject"])
        .execute()
      await db.schema.createIndex("identity_links_user_idx").on("identity_links").columns(["user_id", "created_at"]).execute()

      await db.schema.createTable("link_offers")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("provider_id", t.text, (c) => c.notNull())
        .addColumn("issuer", t.text, (c) => c.notNull())
        .addColumn("subject", t.text, (c) => c.notNull())
        .addColumn("email", t.text)
        .addColumn("browser_binding_hash", t.text, (c) => c.notNull())
        .addColumn("return_to", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text)
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("consumed_at", t.bigint)
        .execute()
    },
  }
}

const documents = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema.createTable("encrypted_files")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("owner_user_id", t.text, (c) => c.notNull())
        .addColumn("name", t.text, (c) => c.notNull())
        .addColumn("size", t.bigint, (c) => c.notNull())
        .addColumn("envelope", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()
      // One row per recipient (the owner included), so "files I can open" is an indexed lookup.
      await db.schema.createTable("encrypted_file_recipients")
        .addColumn("file_id", t.text, (c) => c.notNull())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("position", t.int, (c) => c.notNull())
        .addPrimaryKeyConstraint("encrypted_file_recipients_pk", ["file_id", "user_id"])
        .execute()
      await db.schema.createIndex("encrypted_file_recipients_user_idx").on("encrypted_file_recipients").columns(["user_id", "file_id"]).execute()

      await db.schema.createTable("signature_images")
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

const preparedPdfs = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema.createTable("prepared_pdfs")
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
      await db.schema.alterTable("prepared_pdfs")
        .addColumn("level", t.text, (c) => c.notNull().defaultTo("PAdES-BASELINE-B"))
        .execute()
    },
  }
}

/** 0013: the authorization model: single-use step-up proofs and the audit trail of security events. */
const authorization = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema.createTable("step_up_proofs")
        .addColumn("proof_hash", t.text, (c) => c.primaryKey())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("action", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("consumed_at", t.bigint)
        .execute()
      await db.schema.createIndex("step_up_proofs_expires_idx").on("step_up_proofs").column("expires_at").execute()
      await db.schema.createTable("audit_events")
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

/**
 * 0014: accounts that cannot be taken. Users record when their e-mail was proven; enrolment
 * ceremonies name the e-mail verification they use up; one-time e-mail codes; hosted sessions
 * are stored by the SHA-256 of the cookie (the clear ids are deleted: a copy of the table must
 * not sign anyone in, and SQLite cannot hash them in SQL; people sign in again once).
 */
const accounts = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema.alterTable("users").addColumn("email_verified_at", t.bigint).execute()
      await db.schema.alterTable("ceremonies").addColumn("email_verification_id", t.text).execute()
      await db.schema.createTable("email_verifications")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("email", t.text, (c) => c.notNull())
        .addColumn("code_hash", t.text, (c) => c.notNull())
        .addColumn("attempts", t.int, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .addColumn("verified_at", t.bigint)
        .addColumn("consumed_at", t.bigint)
        .execute()
      await db.schema.createIndex("email_verifications_email_idx").on("email_verifications").columns(["email", "created_at"]).execute()
      await db.deleteFrom("session_sign_ins").execute()
      await db.deleteFrom("hosted_sessions").execute()
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
      await db.schema.alterTable("relying_parties").addColumn("id_token_signed_response_alg", t.text, (c) => c.notNull().defaultTo("ES256")).execute()
    },
  }
}

/** Every migration of the engine for `dialect`, by name; names sort in the order they run. */
export const migrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0001_foundation": foundation(dialect),
  "0002_signing": signing(dialect),
  "0003_signing_token_flow": signingTokenFlow(dialect),
  "0004_webhooks": webhooks(dialect),
  "0005_kyc": kyc(dialect),
  "0006_documents": documents(dialect),
  "0007_openid_provider": openidProvider(dialect),
  "0008_identity_providers": identityProviders(dialect),
  "0009_rp_platform": rpPlatform(dialect),
  "0010_plans": plans(dialect),
  "0011_prepared_pdfs": preparedPdfs(dialect),
  "0012_pades_levels": padesLevels(dialect),
  "0013_authorization": authorization(dialect),
  "0014_accounts": accounts(dialect),
  "0015_id_token_algorithm": idTokenAlgorithm(dialect),
})

/** Where kysely keeps its bookkeeping tables; on PostgreSQL pass the schema the tables live in. */
export interface MigrateOptions {
  readonly migrationTableSchema?: string
}

/**
 * Brings the database to the latest migration. Safe when several processes start at
 * once: kysely's migration lock (PostgreSQL advisory lock; SQLite write lock taken by the
 * dialect's `begin immediate`) serialises them and the late ones find nothing to do.
 * A failed migration is a defect: the engine must not run on a half-known schema.
 */
export const migrateToLatest = (db: Kysely<Database>, dialect: SqlDialect, options: MigrateOptions = {}): Effect.Effect<void> =>
  Effect.promise(async () => {
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations(dialect) },
      ...(options.migrationTableSchema === undefined ? {} : { migrationTableSchema: options.migrationTableSchema }),
    })
    const { error, results } = await migrator.migrateToLatest()
    if (error !== undefined) {
      const failed = results?.find((r) => r.status === "Error")?.migrationName
      throw new Error(`migration ${failed ?? "(setup)"} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
  })
