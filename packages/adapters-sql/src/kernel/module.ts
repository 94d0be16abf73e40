/**
 * The kernel module of the SQL storage: the unit of work (`Storage`) every repository joins,
 * and the historical migrations that created or altered several modules' tables at once.
 */
import type { AnySqlModule } from "../module.ts"
import { StorageSql } from "../sql-database.ts"
import { historyMigrations } from "./migrations.ts"

/** The kernel module: the historical migrations and the unit of work. */
export const kernelSql = {
  name: "kernel",
  migrations: historyMigrations,
  repositories: StorageSql,
} satisfies AnySqlModule
