/** Webhook subscriptions and the outbox of deliveries (webhooks and callbacks). */
import { Schema } from "effect"

/** Event types a subscription can list. */
export const WebhookEventType = Schema.Literal("sign.complete", "batch.complete", "kyc.reviewed")
/** Event types a subscription can list. */
export type WebhookEventType = typeof WebhookEventType.Type

/** A webhook subscription of an RP, managed by its contact account. */
export const WebhookSubscription = Schema.Struct({
  id: Schema.Int,
  rpId: Schema.Int,
  clientId: Schema.String,
  ownerUserId: Schema.String,
  url: Schema.String,
  events: Schema.Array(WebhookEventType),
  /** the Standard Webhooks secret, sealed in the Vault (`sealed:v2:<base64>`; `sealed:v1:` before caller-chosen secrets), to sign deliveries */
  secret: Schema.String,
  active: Schema.Boolean,
  createdAt: Schema.Number,
})
/** A webhook subscription. */
export type WebhookSubscription = typeof WebhookSubscription.Type
/** A subscription before storage gives it its id. */
export type NewWebhookSubscription = Omit<WebhookSubscription, "id">

/** A notification waiting in (or done with) the outbox. */
export const Delivery = Schema.Struct({
  id: Schema.Int,
  kind: Schema.Literal("webhook", "callback"),
  subscriptionId: Schema.NullOr(Schema.Int),
  clientId: Schema.String,
  url: Schema.String,
  eventType: WebhookEventType,
  /** the Standard Webhooks `webhook-id`: the same on every attempt, so receivers can drop duplicates */
  messageId: Schema.String,
  /** the request or batch it is about; deliveries to one target are ordered per key */
  orderingKey: Schema.String,
  /** the exact JSON body */
  payload: Schema.String,
  status: Schema.Literal("pending", "delivered", "failed"),
  attempts: Schema.Int,
  nextAttemptAt: Schema.Number,
  lastStatus: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  deliveredAt: Schema.NullOr(Schema.Number),
})
/** A notification in the outbox. */
export type Delivery = typeof Delivery.Type
/** A delivery before storage gives it its id. */
export type NewDelivery = Omit<Delivery, "id">

/** One delivery attempt and its outcome. */
export const DeliveryAttempt = Schema.Struct({
  deliveryId: Schema.Int,
  attempt: Schema.Int,
  at: Schema.Number,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  durationMs: Schema.Number,
})
/** One delivery attempt and its outcome. */
export type DeliveryAttempt = typeof DeliveryAttempt.Type
