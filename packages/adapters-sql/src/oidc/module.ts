/** The oidc module of the SQL storage: the OpenID provider's codes, refresh tokens, consents, revocations, signing keys and hosted-session sign-ins. */
import { type AnySqlModule, noMigrations } from "../module.ts"
import { OidcStorageSql } from "./repositories.ts"

export type { OidcCodesTable, OidcRefreshTokensTable, OidcConsentsTable, OidcRevocationsTable, OidcSigningKeysTable, SessionSignInsTable } from "./tables.ts"

/** The oidc module: its migrations and repositories. */
export const oidcSql = {
  name: "oidc",
  migrations: noMigrations,
  repositories: OidcStorageSql,
} satisfies AnySqlModule
