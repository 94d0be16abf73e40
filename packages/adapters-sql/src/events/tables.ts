/** The events module's tables: webhook subscriptions and the outbox. */
import type { Generated } from "kysely"
import type { BigIntColumn, NullableBigIntColumn, FlagColumn } from "../columns.ts"

/** `webhook_subscriptions`: events is JSON text. */
export interface WebhookSubscriptionsTable {
  readonly id: Generated<number>
  readonly rp_id: number
  readonly client_id: string
  readonly owner_user_id: string
  readonly url: string
  readonly events: string
  readonly secret: string
  readonly active: FlagColumn
  readonly created_at: BigIntColumn
}

/** `deliveries`: the outbox. */
export interface DeliveriesTable {
  readonly id: Generated<number>
  readonly kind: string
  readonly subscription_id: number | null
  readonly client_id: string
  readonly url: string
  readonly event_type: string
  readonly message_id: string
  readonly ordering_key: string
  readonly payload: string
  readonly status: string
  readonly attempts: number
  readonly next_attempt_at: BigIntColumn
  readonly locked_until: BigIntColumn
  readonly last_status: number | null
  readonly last_error: string | null
  readonly created_at: BigIntColumn
  readonly delivered_at: NullableBigIntColumn
}

/** `delivery_attempts`: one row per attempt. */
export interface DeliveryAttemptsTable {
  readonly delivery_id: number
  readonly attempt: number
  readonly at: BigIntColumn
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: BigIntColumn
}

declare module "../database.ts" {
  interface Database {
    readonly webhook_subscriptions: WebhookSubscriptionsTable
    readonly deliveries: DeliveriesTable
    readonly delivery_attempts: DeliveryAttemptsTable
  }
}
