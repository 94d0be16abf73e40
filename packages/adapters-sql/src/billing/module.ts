/** The billing module of the SQL storage: checkouts and subscriptions. */
import { Layer } from "effect"
import type { AnySqlModule } from "../module.ts"
import { billingMigrations } from "./migrations.ts"
import { CheckoutsSql, SubscriptionsSql } from "./repositories.ts"

export type { CheckoutsTable, SubscriptionsTable } from "./tables.ts"

/** The billing module: its migrations and repositories. */
export const billingSql = {
  name: "billing",
  migrations: billingMigrations,
  repositories: Layer.mergeAll(CheckoutsSql, SubscriptionsSql),
} satisfies AnySqlModule
