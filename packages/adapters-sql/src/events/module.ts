/** The events module of the SQL storage: webhook subscriptions and the delivery outbox. */
import { Layer } from "effect"
import type { AnySqlModule } from "../module.ts"
import { eventsMigrations } from "./migrations.ts"
import { DeliveriesSql, WebhookSubscriptionsSql } from "./repositories.ts"

export type { WebhookSubscriptionsTable, DeliveriesTable, DeliveryAttemptsTable } from "./tables.ts"

/** The events module: its migrations and repositories. */
export const eventsSql = {
  name: "events",
  migrations: eventsMigrations,
  repositories: Layer.mergeAll(WebhookSubscriptionsSql, DeliveriesSql),
} satisfies AnySqlModule
