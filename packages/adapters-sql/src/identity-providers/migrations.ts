/**
 * The identity-providers module's migrations. Frozen once released: a schema change is a new
 * migration with the next global number (see `../migrations.ts`), never an edit.
 */
import type { Migration } from "kysely"
import { type AnyDb, type SqlDialect, typesOf } from "../migration.ts"

/** 0008: external identity providers, sign-ins in flight, links and link offers. */
const identityProviders = (dialect: SqlDialect): Migration => {
  const t = typesOf(dialect)
  return {
    up: async (db: AnyDb) => {
      await db.schema
        .createTable("identity_providers")
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

      await db.schema
        .createTable("external_logins")
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

      await db.schema
        .createTable("identity_links")
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

      await db.schema
        .createTable("link_offers")
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

/** The identity-providers module's migrations for `dialect`, by global name. */
export const identityProvidersMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  "0008_identity_providers": identityProviders(dialect),
})
