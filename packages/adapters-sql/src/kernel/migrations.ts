/**
 * Migrations released before the engine was split into modules that touch the tables of
 * several modules at once (0001 and 0002 created the first modules' tables together, 0007
 * and 0014 altered tables of other modules). Existing databases have them applied, so they
 * stay here, frozen, under their original names; every later migration lives in its module.
 */
import type { ColumnDefinitionBuilder, Migration } from "kysely"
import { type AnyDb, type SqlDialect, typesOf } from "../migration.ts"
import { createConfigEpoch } from "../config-epoch.ts"

const foundation = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .createTable("relying_parties")
        .addColumn("id", "integer", (c) => (dialect === "postgres" ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()))
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

      await db.schema
        .createTable("users")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("email", t.text, (c) => c.notNull().unique())
        .addColumn("display_name", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .execute()

      await db.schema
        .createTable("passkeys")
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

      await db.schema
        .createTable("ceremonies")
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

      await db.schema
        .createTable("hosted_sessions")
        .addColumn("id", t.text, (c) => c.primaryKey())
        .addColumn("csrf_token_hash", t.text, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .execute()

      await db.schema
        .createTable("keys")
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
  const autoId = (c: ColumnDefinitionBuilder) => (dialect === "postgres" ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement())
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .createTable("certificates")
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

      await db.schema
        .createTable("signing_requests")
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

      await db.schema
        .createTable("batches")
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

      await db.schema
        .createTable("signing_events")
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

      await db.schema
        .createTable("quota_counters")
        .addColumn("key", t.text, (c) => c.primaryKey())
        .addColumn("count", t.bigint, (c) => c.notNull())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .execute()
      await db.schema.createIndex("quota_counters_expiry_idx").on("quota_counters").column("expires_at").execute()
    },
  }
}

// OpenID provider: post-logout redirect URIs on the RP row (its redirect URIs come with 0009), codes,
// refresh-token families, consents, revocations, signing keys and the sign-ins of hosted sessions.
const openidProvider = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .alterTable("relying_parties")
        .addColumn("post_logout_redirect_uris", t.text, (c) => c.notNull().defaultTo("[]"))
        .execute()

      await db.schema
        .createTable("oidc_codes")
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

      await db.schema
        .createTable("oidc_refresh_tokens")
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

      await db.schema
        .createTable("oidc_consents")
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("client_id", t.text, (c) => c.notNull())
        .addColumn("scope", t.text, (c) => c.notNull())
        .addColumn("granted_at", t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint("oidc_consents_pk", ["user_id", "client_id"])
        .execute()

      await db.schema
        .createTable("oidc_revocations")
        .addColumn("jti", t.text, (c) => c.primaryKey())
        .addColumn("expires_at", t.bigint, (c) => c.notNull())
        .execute()

      await db.schema
        .createTable("oidc_signing_keys")
        .addColumn("key_id", t.text, (c) => c.primaryKey())
        .addColumn("environment", t.text, (c) => c.notNull())
        .addColumn("seq", t.int, (c) => c.notNull())
        .addColumn("created_at", t.bigint, (c) => c.notNull())
        .addUniqueConstraint("oidc_signing_keys_seq_unique", ["environment", "seq"])
        .execute()

      await db.schema
        .createTable("session_sign_ins")
        .addColumn("session_id", t.text, (c) => c.primaryKey())
        .addColumn("user_id", t.text, (c) => c.notNull())
        .addColumn("auth_time", t.bigint, (c) => c.notNull())
        .addColumn("amr", t.text, (c) => c.notNull())
        .execute()
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
      await db.schema
        .createTable("email_verifications")
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

/** The history module's migrations for `dialect`, by global name. */
export const historyMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0001_foundation": foundation(dialect),
  "0002_signing": signing(dialect),
  "0007_openid_provider": openidProvider(dialect),
  "0014_accounts": accounts(dialect),
  // The counter of changes to rarely changing rows (config-epoch.ts); each owning module adds its trigger.
  "0017_config_epoch": { up: (db: AnyDb) => createConfigEpoch(db, dialect) },
})
