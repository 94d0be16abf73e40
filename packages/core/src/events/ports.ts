/** Ports of the events capability: webhook subscriptions and the delivery outbox. */
import { Context, type Effect, type Option } from "effect"
import type { Delivery, DeliveryAttempt, NewDelivery, NewWebhookSubscription, WebhookEventType, WebhookSubscription } from "./model.ts"

/** Webhook subscriptions. */
export class WebhookSubscriptions extends Context.Tag("@signet/core/WebhookSubscriptions")<WebhookSubscriptions, {
  readonly insert: (subscription: NewWebhookSubscription) => Effect.Effect<WebhookSubscription>
  readonly findById: (id: number) => Effect.Effect<Option.Option<WebhookSubscription>>
  /** An RP's active subscriptions, oldest first. */
  readonly listActive: (clientId: string) => Effect.Effect<ReadonlyArray<WebhookSubscription>>
  /** Active subscriptions of an RP that list `eventType`. */
  readonly listFor: (clientId: string, eventType: WebhookEventType) => Effect.Effect<ReadonlyArray<WebhookSubscription>>
  readonly deactivate: (id: number) => Effect.Effect<void>
}>() {}

/** The outbox: deliveries written with the state change, claimed and delivered by workers on any node. */
export class Deliveries extends Context.Tag("@signet/core/Deliveries")<Deliveries, {
  readonly enqueue: (delivery: NewDelivery) => Effect.Effect<Delivery>
  /**
   * Claims up to `limit` due pending deliveries for `leaseMs` (other workers skip them until
   * then), never one whose target has an older pending delivery for the same ordering key.
   */
  readonly claimDue: (now: number, leaseMs: number, limit: number) => Effect.Effect<ReadonlyArray<Delivery>>
  /** Records an attempt and the delivery's new state (delivered, failed, or pending at `nextAttemptAt`). */
  readonly recordAttempt: (attempt: DeliveryAttempt, next: Pick<Delivery, "status" | "nextAttemptAt" | "lastStatus" | "lastError" | "deliveredAt">) => Effect.Effect<void>
  /** An RP's deliveries, newest first, at most `limit`, optionally of one subscription. */
  readonly listForClient: (clientId: string, subscriptionId: number | null, limit: number) => Effect.Effect<ReadonlyArray<Delivery>>
  readonly attemptsOf: (deliveryId: number) => Effect.Effect<ReadonlyArray<DeliveryAttempt>>
}>() {}
