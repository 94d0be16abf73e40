/** The pades module of the SQL storage: PDFs prepared for PAdES signing. */
import type { AnySqlModule } from "../module.ts"
import { padesMigrations } from "./migrations.ts"
import { PreparedPdfsSql } from "./repositories.ts"

export type { PreparedPdfsTable } from "./tables.ts"

/** The pades module: its migrations and repositories. */
export const padesSql = {
  name: "pades",
  migrations: padesMigrations,
  repositories: PreparedPdfsSql,
} satisfies AnySqlModule
