/** The ssc module of the SQL storage: operations of the signing-token flow. */
import type { AnySqlModule } from "../module.ts"
import { sscMigrations } from "./migrations.ts"
import { SscOperationsSql } from "./repositories.ts"

export type { SscOperationsTable } from "./tables.ts"

/** The ssc module: its migrations and repositories. */
export const sscSql = {
  name: "ssc",
  migrations: sscMigrations,
  repositories: SscOperationsSql,
} satisfies AnySqlModule
