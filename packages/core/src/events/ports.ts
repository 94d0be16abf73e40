/** Ports of the events capability: webhook subscriptions, the delivery outbox, the transport and the delivery policy. */
import { Context, type Effect, type Option, Schema } from "effect"
import type { Delivery, DeliveryAttempt, NewDelivery, NewWebhookSubscription, WebhookEventType, WebhookSubscription } from "./model.ts"

/** Webhook subscriptions. */
export class WebhookSubscriptions extends Context.Tag("@signet/core/WebhookSubscriptions")<
  WebhookSubscriptions,
  {
    readonly insert: (subscription: NewWebhookSubscription) => Effect.Effect<WebhookSubscription>
    readonly findById: (id: number) => Effect.Effect<Option.Option<WebhookSubscription>>
    /** An RP's active subscriptions, oldest first. */
    readonly listActive: (clientId: string) => Effect.Effect<ReadonlyArray<WebhookSubscription>>
    /** Active subscriptions of an RP that list `eventType`. */
    readonly listFor: (clientId: string, eventType: WebhookEventType) => Effect.Effect<ReadonlyArray<WebhookSubscription>>
    readonly deactivate: (id: number) => Effect.Effect<void>
  }
>() {}

/** The outbox: deliveries written with the state change, claimed and delivered by workers on any node. */
export class Deliveries extends Context.Tag("@signet/core/Deliveries")<
  Deliveries,
  {
    readonly enqueue: (delivery: NewDelivery) => Effect.Effect<Delivery>
    /**
     * Claims up to `limit` due pending deliveries for `leaseMs` (other workers skip them until
     * then), never one whose target has an older pending delivery for the same ordering key.
     */
    readonly claimDue: (now: number, leaseMs: number, limit: number) => Effect.Effect<ReadonlyArray<Delivery>>
    /** Records an attempt and the delivery's new state (delivered, failed, or pending at `nextAttemptAt`). */
    readonly recordAttempt: (
      attempt: DeliveryAttempt,
      next: Pick<Delivery, "status" | "nextAttemptAt" | "lastStatus" | "lastError" | "deliveredAt">,
    ) => Effect.Effect<void>
    /** An RP's deliveries, newest first, at most `limit`, optionally of one subscription. */
    readonly listForClient: (clientId: string, subscriptionId: number | null, limit: number) => Effect.Effect<ReadonlyArray<Delivery>>
    readonly attemptsOf: (deliveryId: number) => Effect.Effect<ReadonlyArray<DeliveryAttempt>>
    /** How many deliveries are pending, and when the oldest of them was enqueued (null: none); the outbox depth of `/metrics`. */
    readonly pendingSummary: () => Effect.Effect<{ readonly count: number; readonly oldestCreatedAt: number | null }>
    /** Puts a `failed` delivery back to pending, due at `now` (an administrator's retry); false when it was not failed. */
    readonly retry: (deliveryId: number, now: number) => Effect.Effect<boolean>
  }
>() {}

/** A delivery attempt that did not reach the receiver (refused address, network, timeout). */
export class TransportFailure extends Schema.TaggedError<TransportFailure>()("TransportFailure", { reason: Schema.String }) {}

/** Posts one delivery: the adapter enforces the address guard on resolved addresses and follows no redirects. */
export class WebhookTransport extends Context.Tag("@signet/core/WebhookTransport")<
  WebhookTransport,
  {
    readonly post: (url: string, headers: Readonly<Record<string, string>>, body: string) => Effect.Effect<{ readonly status: number }, TransportFailure>
  }
>() {}

/** How deliveries are made and retried (configuration, not domain rules). */
export interface DeliverySettings {
  /** development switch: http to loopback addresses is allowed (tests, local setups) */
  readonly allowLoopbackHttp: boolean
  /** first retry delay; each next one doubles, with jitter */
  readonly baseDelayMs: number
  /** longest wait between two attempts */
  readonly maxDelayMs: number
  /** attempts before a delivery is given up as failed */
  readonly maxAttempts: number
}

/** How deliveries are made and retried. */
export class DeliveryPolicy extends Context.Tag("@signet/core/DeliveryPolicy")<DeliveryPolicy, DeliverySettings>() {}
