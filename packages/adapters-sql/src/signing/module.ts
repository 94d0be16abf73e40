/** The signing module of the SQL storage: hash signing requests, batches, the signing event log and quota counters. */
import { Layer } from "effect"
import { type AnySqlModule, noMigrations } from "../module.ts"
import { BatchesSql, QuotaCountersSql, SigningEventsSql, SigningRequestsSql } from "./repositories.ts"

export type { SigningRequestsTable, BatchesTable, SigningEventsTable, QuotaCountersTable } from "./tables.ts"

/** The signing module: its migrations and repositories. */
export const signingSql = {
  name: "signing",
  migrations: noMigrations,
  repositories: Layer.mergeAll(SigningRequestsSql, BatchesSql, SigningEventsSql, QuotaCountersSql),
} satisfies AnySqlModule
