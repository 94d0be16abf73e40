/**
 * The transactional outbox. A completion writes its notifications (one per subscription, plus
 * the callback) in the same transaction as the state change; workers on any node claim due
 * deliveries with a lease, post them (Standard Webhooks headers, HMAC-SHA256 with the
 * subscription's secret) and record every attempt, retrying with exponential backoff and
 * jitter. A crash at any moment leaves a delivery pending or leased, so it is delivered at
 * least once; receivers drop duplicates by `webhook-id`.
 */
import { Clock, Duration, Effect, Metric, Stream } from "effect"
import { toBase64, utf8 } from "../kernel/encoding.ts"
import { deliveryAttempts, deliveryLagSeconds, withTags } from "../kernel/metrics.ts"
import { InvalidRequest, ResourceNotFound } from "../kernel/errors.ts"
import { traced } from "../kernel/tracing.ts"
import { EventBus } from "../ports/event-bus.ts"
import { Random, uuid } from "../ports/random.ts"
import { Deliveries, DeliveryPolicy, WebhookSubscriptions, WebhookTransport } from "./ports.ts"
import { webhookSigningKey } from "./webhooks.ts"
import { Storage } from "../ports/storage.ts"
import type { Delivery, WebhookEventType } from "./model.ts"

/** The EventBus topic that wakes delivery workers after a commit. */
export const OUTBOX_TOPIC = "outbox"

/** A completion to notify: what happened, to whom, about which request or batch. */
export interface CompletionNotice {
  readonly clientId: string
  readonly eventType: WebhookEventType
  readonly orderingKey: string
  readonly callbackUrl: string | null
  readonly data: Record<string, unknown>
}

/** Writes a completion's deliveries, in the caller's transaction; answers how many (0: no worker needs waking). */
export const enqueueCompletion = (notice: CompletionNotice) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const deliveries = yield* Deliveries
    const payload = JSON.stringify({ type: notice.eventType, timestamp: new Date(now).toISOString(), data: notice.data })
    const base = {
      clientId: notice.clientId,
      eventType: notice.eventType,
      orderingKey: notice.orderingKey,
      payload,
      status: "pending" as const,
      attempts: 0,
      nextAttemptAt: now,
      lastStatus: null,
      lastError: null,
      createdAt: now,
      deliveredAt: null,
    }
    const subscriptions = yield* Effect.flatMap(WebhookSubscriptions, (s) => s.listFor(notice.clientId, notice.eventType))
    for (const s of subscriptions) {
      yield* deliveries.enqueue({ ...base, kind: "webhook", subscriptionId: s.id, url: s.url, messageId: `msg_${(yield* uuid).replace(/-/g, "")}` })
    }
    if (notice.callbackUrl !== null) {
      yield* deliveries.enqueue({
        ...base,
        kind: "callback",
        subscriptionId: null,
        url: notice.callbackUrl,
        messageId: `msg_${(yield* uuid).replace(/-/g, "")}`,
      })
    }
    return subscriptions.length + (notice.callbackUrl !== null ? 1 : 0)
  })

/** Wakes the delivery workers (after the commit that wrote deliveries). */
export const pokeDeliveries = Effect.flatMap(EventBus, (bus) => bus.publish(OUTBOX_TOPIC, ""))

/** Standard Webhooks signature: `v1,` + base64(HMAC-SHA256(secret, "<id>.<timestamp>.<body>")). */
export const standardWebhookSignature = (secret: Uint8Array, messageId: string, timestamp: number, body: string) =>
  Effect.promise(async () => {
    const key = await globalThis.crypto.subtle.importKey("raw", new Uint8Array(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
    const mac = await globalThis.crypto.subtle.sign("HMAC", key, new Uint8Array(utf8(`${messageId}.${timestamp}.${body}`)))
    return `v1,${toBase64(new Uint8Array(mac))}`
  })

/** When the next attempt is due after `attempts` failures: base × 2^(attempts−1), capped, with ±50 % jitter. */
export const retryDelay = (attempts: number, policy: { readonly baseDelayMs: number; readonly maxDelayMs: number }, jitter: number): number =>
  Math.round(Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1)) * (0.5 + jitter))

/** The longest one attempt may take; past it the attempt counts as failed (the transport's own timeout is per idle period). */
const ATTEMPT_LIMIT_SECONDS = 20
// A claim outlives any attempt, so two nodes never send the same attempt; a crash mid-attempt costs at most this much delay.
const LEASE_MS = 30_000
const BATCH = 16

const deliverOne = (d: Delivery) =>
  Effect.gen(function* () {
    const policy = yield* DeliveryPolicy
    const transport = yield* WebhookTransport
    const started = yield* Clock.currentTimeMillis
    const timestamp = Math.floor(started / 1000)
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "Signet-Webhooks/1",
      "webhook-id": d.messageId,
      "webhook-timestamp": String(timestamp),
    }
    let outcome: { status: number | null; error: string | null }
    const subscription = d.subscriptionId === null ? undefined : yield* Effect.flatMap(WebhookSubscriptions, (s) => s.findById(d.subscriptionId!))
    if (subscription !== undefined && (subscription._tag === "None" || !subscription.value.active)) {
      outcome = { status: null, error: "subscription deleted" }
    } else {
      if (subscription !== undefined && subscription._tag === "Some") {
        headers["webhook-signature"] = yield* standardWebhookSignature(yield* webhookSigningKey(subscription.value), d.messageId, timestamp, d.payload)
      }
      outcome = yield* transport.post(d.url, headers, d.payload).pipe(
        Effect.match({
          onSuccess: (r): { status: number | null; error: string | null } => ({
            status: r.status,
            error: r.status >= 200 && r.status < 300 ? null : `receiver answered ${r.status}`,
          }),
          onFailure: (e) => ({ status: null, error: e.reason }),
        }),
        Effect.timeoutTo({
          duration: Duration.seconds(ATTEMPT_LIMIT_SECONDS),
          onSuccess: (o) => o,
          onTimeout: () => ({ status: null, error: `no answer within ${ATTEMPT_LIMIT_SECONDS} s` }),
        }),
      )
    }
    const finished = yield* Clock.currentTimeMillis
    const attempt = d.attempts + 1
    const delivered = outcome.error === null
    const gaveUp = !delivered && (attempt >= policy.maxAttempts || outcome.error === "subscription deleted")
    const jitter = yield* Effect.flatMap(Random, (r) => r.bytes(1)).pipe(Effect.map((b) => b[0]! / 256))
    // The attempt and the delivery's next state commit together (a crash between them would reuse the attempt number).
    yield* Effect.flatMap(Storage, (storage) =>
      storage.transaction(
        Effect.flatMap(Deliveries, (q) =>
          q.recordAttempt(
            { deliveryId: d.id, attempt, at: started, statusCode: outcome.status, error: outcome.error, durationMs: finished - started },
            {
              status: delivered ? "delivered" : gaveUp ? "failed" : "pending",
              nextAttemptAt: delivered || gaveUp ? finished : finished + retryDelay(attempt, policy, jitter),
              lastStatus: outcome.status,
              lastError: outcome.error,
              deliveredAt: delivered ? finished : null,
            },
          ),
        ),
      ),
    )
    yield* Metric.increment(withTags(deliveryAttempts, { outcome: delivered ? "delivered" : gaveUp ? "failed" : "retry" }))
    if (delivered) yield* Metric.update(deliveryLagSeconds, Math.max(0, finished - d.createdAt) / 1000)
    return delivered
  }).pipe(
    traced("webhook.deliver", {
      kind: "producer",
      attributes: { "signet.delivery_id": d.id, "signet.delivery_kind": d.kind, "signet.event_type": d.eventType, "signet.attempt": d.attempts + 1 },
    }),
  )

/** One round: claims due deliveries and attempts them; answers how many it claimed. */
export const deliverDue = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  const due = yield* Effect.flatMap(Deliveries, (q) => q.claimDue(now, LEASE_MS, BATCH))
  yield* Effect.forEach(due, deliverOne, { concurrency: 8, discard: true })
  return due.length
})

/**
 * The worker: delivers whatever is due, then waits for a poke or a second; once `stopping` answers
 * true it finishes the round in hand and ends (a graceful shutdown). Run it scoped.
 */
export const deliveryWorkerUntil = (stopping: Effect.Effect<boolean>) =>
  Effect.gen(function* () {
    const pokes = yield* Effect.flatMap(EventBus, (bus) => bus.subscribe(OUTBOX_TOPIC))
    const wake = Stream.merge(pokes, Stream.tick(Duration.seconds(1)))
    yield* wake.pipe(
      Stream.takeUntilEffect(() => stopping),
      Stream.runForEach(() =>
        Effect.gen(function* () {
          // Keep going while rounds are full: a backlog drains without waiting for ticks.
          while (!(yield* stopping) && (yield* deliverDue) === BATCH) {
            /* next round */
          }
        }).pipe(Effect.catchAllCause((cause) => Effect.logError("delivery round failed", cause))),
      ),
    )
  })

/** The worker that runs as long as its scope: delivers whatever is due, then waits for a poke or a second. */
export const deliveryWorker = deliveryWorkerUntil(Effect.succeed(false))

/**
 * An administrator's retry of a failed delivery of RP `clientId`: back to pending, due now, for
 * one more attempt (the attempt count goes on). 404 when it is not the RP's, 400 when not failed.
 */
export const retryFailedDelivery = (clientId: string, deliveryId: number) =>
  Effect.gen(function* () {
    const outbox = yield* Deliveries
    const own = (yield* outbox.listForClient(clientId, null, 1000)).find((d) => d.id === deliveryId)
    if (own === undefined) return yield* new ResourceNotFound({ what: "Delivery" })
    if (!(yield* outbox.retry(deliveryId, yield* Clock.currentTimeMillis))) {
      return yield* new InvalidRequest({ detail: `Only a failed delivery can be retried; this one is ${own.status}` })
    }
    yield* pokeDeliveries
    return { id: deliveryId, status: "pending" as const }
  })
