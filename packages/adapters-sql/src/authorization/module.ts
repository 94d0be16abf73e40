/** The authorization module of the SQL storage: single-use step-up proofs and the audit trail of security events. */
import type { AnySqlModule } from "../module.ts"
import { authorizationMigrations } from "./migrations.ts"
import { AuthorizationStorageSql } from "./repositories.ts"

export type { StepUpProofsTable, AuditEventsTable } from "./tables.ts"

/** The authorization module: its migrations and repositories. */
export const authorizationSql = {
  name: "authorization",
  migrations: authorizationMigrations,
  repositories: AuthorizationStorageSql,
} satisfies AnySqlModule
