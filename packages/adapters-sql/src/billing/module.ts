/** The billing module of the SQL storage: checkouts, subscriptions and per-day usage. */
import { Layer } from "effect"
import type { AnySqlModule } from "../module.ts"
import { billingMigrations } from "./migrations.ts"
import { CheckoutsSql, SubscriptionsSql, UsageHistorySql } from "./repositories.ts"

export type { CheckoutsTable, SubscriptionsTable, UsageDaysTable } from "./tables.ts"

/** The billing module: its migrations and repositories. */
export const billingSql = {
  name: "billing",
  migrations: billingMigrations,
  repositories: Layer.mergeAll(CheckoutsSql, SubscriptionsSql, UsageHistorySql),
} satisfies AnySqlModule
