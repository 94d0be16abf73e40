/** The billing module's tables: checkouts and subscriptions. */
import type { BigIntColumn, NullableBigIntColumn } from "../columns.ts"

/** `checkouts`: attempts to pay for a plan; `rate_quote` is the JSON of the quote it was priced with. */
export interface CheckoutsTable {
  readonly id: string
  readonly client_id: string
  readonly user_id: string
  readonly plan: string
  readonly period: string
  readonly method: string
  readonly price_usd_minor: BigIntColumn
  readonly currency: string
  readonly amount_minor: BigIntColumn
  readonly rate_quote: string | null
  readonly status: string
  readonly provider_reference: string | null
  readonly failure_reason: string | null
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly updated_at: BigIntColumn
  readonly paid_at: NullableBigIntColumn
}

/** `subscriptions`: paid terms of a plan; `checkout_id` is unique (one term per payment). */
export interface SubscriptionsTable {
  readonly id: string
  readonly client_id: string
  readonly plan: string
  readonly period: string
  readonly checkout_id: string
  readonly starts_at: BigIntColumn
  readonly ends_at: BigIntColumn
  readonly created_at: BigIntColumn
}

/** `usage_days`: one RP's signatures and quota refusals on one UTC day (migration 0016). */
export interface UsageDaysTable {
  readonly client_id: string
  readonly day: string
  readonly signatures: BigIntColumn
  readonly quota_refusals: BigIntColumn
}

declare module "../database.ts" {
  interface Database {
    readonly checkouts: CheckoutsTable
    readonly subscriptions: SubscriptionsTable
    readonly usage_days: UsageDaysTable
  }
}
