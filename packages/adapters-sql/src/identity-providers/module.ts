/** The identity-providers module of the SQL storage: external identity providers, sign-ins in flight, identity links and link offers. */
import type { AnySqlModule } from "../module.ts"
import { identityProvidersMigrations } from "./migrations.ts"
import { IdentityProviderStorageSql } from "./repositories.ts"

export type { IdentityProvidersTable, ExternalLoginsTable, IdentityLinksTable, LinkOffersTable } from "./tables.ts"

/** The identity-providers module: its migrations and repositories. */
export const identityProvidersSql = {
  name: "identity-providers",
  migrations: identityProvidersMigrations,
  repositories: IdentityProviderStorageSql,
} satisfies AnySqlModule
