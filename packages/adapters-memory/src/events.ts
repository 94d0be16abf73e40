/** Webhook subscriptions and the outbox of deliveries in memory. */
import { Context, Option } from "effect"
import { Deliveries, WebhookSubscriptions, type Delivery, type DeliveryAttempt, type WebhookSubscription } from "@signet/core"
import { type MemoryDatabase, Sequence, Table } from "./memory-database.ts"
import { orderBy } from "./order.ts"

/** A delivery as stored: with the lease that keeps other workers off it. */
interface StoredDelivery extends Delivery {
  readonly lockedUntil: number
}

const withoutLease = ({ lockedUntil: _, ...delivery }: StoredDelivery): Delivery => delivery

/** Subscriptions and deliveries over `db`. */
export const eventsMemory = (db: MemoryDatabase) => {
  const subscriptions = new Table<number, WebhookSubscription>()
  const subscriptionIds = new Sequence()
  const deliveries = new Table<number, StoredDelivery>()
  const deliveryIds = new Sequence()
  const attempts = new Table<string, DeliveryAttempt>()
  const active = (clientId: string) => subscriptions.where((s) => s.clientId === clientId && s.active).sort(orderBy([(s) => s.id, "asc"]))

  return Context.make(
    WebhookSubscriptions,
    WebhookSubscriptions.of({
      insert: (input) =>
        db.run((j) => {
          const subscription: WebhookSubscription = { ...input, id: subscriptionIds.next() }
          subscriptions.set(j, subscription.id, subscription)
          return subscription
        }),
      findById: (id) => db.run(() => Option.fromNullable(subscriptions.get(id))),
      listActive: (clientId) => db.run(() => active(clientId)),
      listFor: (clientId, eventType) => db.run(() => active(clientId).filter((s) => s.events.includes(eventType))),
      deactivate: (id) =>
        db.run((j) => {
          const s = subscriptions.get(id)
          if (s !== undefined) subscriptions.set(j, id, { ...s, active: false })
        }),
    }),
  ).pipe(
    Context.add(
      Deliveries,
      Deliveries.of({
        enqueue: (input) =>
          db.run((j) => {
            if (deliveries.find((d) => d.messageId === input.messageId) !== undefined) {
              throw new Error(`delivery message id ${input.messageId} is taken`)
            }
            const delivery: StoredDelivery = { ...input, id: deliveryIds.next(), lockedUntil: 0 }
            deliveries.set(j, delivery.id, delivery)
            return withoutLease(delivery)
          }),
        // Due, not leased, and first in line for its target and ordering key; each claim takes the lease.
        claimDue: (now, leaseMs, limit) =>
          db.run((j) => {
            const pending = deliveries.where((d) => d.status === "pending").sort(orderBy([(d) => d.id, "asc"]))
            const due = pending.filter(
              (d) => d.nextAttemptAt <= now && d.lockedUntil <= now && !pending.some((e) => e.url === d.url && e.orderingKey === d.orderingKey && e.id < d.id),
            )
            const claimed = due.slice(0, Math.max(0, limit))
            for (const d of claimed) deliveries.set(j, d.id, { ...d, lockedUntil: now + leaseMs })
            return claimed.map(withoutLease)
          }),
        retry: (deliveryId, now) =>
          db.run((j) => {
            const d = deliveries.get(deliveryId)
            if (d === undefined || d.status !== "failed") return false
            deliveries.set(j, d.id, { ...d, status: "pending", nextAttemptAt: now, lockedUntil: 0 })
            return true
          }),
        recordAttempt: (a, next) =>
          db.run((j) => {
            const key = `${a.deliveryId}/${a.attempt}`
            if (attempts.has(key)) throw new Error(`attempt ${a.attempt} of delivery ${a.deliveryId} is recorded already`)
            attempts.set(j, key, a)
            const d = deliveries.get(a.deliveryId)
            if (d !== undefined) {
              deliveries.set(j, d.id, {
                ...d,
                status: next.status,
                attempts: a.attempt,
                nextAttemptAt: next.nextAttemptAt,
                lockedUntil: 0,
                lastStatus: next.lastStatus,
                lastError: next.lastError,
                deliveredAt: next.deliveredAt,
              })
            }
          }),
        listForClient: (clientId, subscriptionId, limit) =>
          db.run(() =>
            deliveries
              .where((d) => d.clientId === clientId && (subscriptionId === null || d.subscriptionId === subscriptionId))
              .sort(orderBy([(d) => d.id, "desc"]))
              .slice(0, Math.max(0, limit))
              .map(withoutLease),
          ),
        attemptsOf: (deliveryId) => db.run(() => attempts.where((a) => a.deliveryId === deliveryId).sort(orderBy([(a) => a.attempt, "asc"]))),
        pendingSummary: () =>
          db.run(() => {
            const pending = deliveries.where((d) => d.status === "pending")
            return { count: pending.length, oldestCreatedAt: pending.length === 0 ? null : Math.min(...pending.map((d) => d.createdAt)) }
          }),
      }),
    ),
  )
}
