/** Storage conformance of the events module: webhook subscriptions and the delivery outbox. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Deliveries, type NewDelivery, type NewWebhookSubscription, WebhookSubscriptions } from "@signet/core"
import { FAR_FUTURE_MS } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

const sampleSubscription = (overrides: Partial<NewWebhookSubscription> = {}): NewWebhookSubscription => ({
  rpId: 1,
  clientId: "rp_a",
  ownerUserId: "usr_1",
  url: "https://hooks.example.com/ä?x=1",
  events: ["sign.complete"],
  secret: "sealed:v2:c2VjcmV0",
  active: true,
  createdAt: FAR_FUTURE_MS,
  ...overrides,
})

const sampleDelivery = (overrides: Partial<NewDelivery> = {}): NewDelivery => ({
  kind: "webhook",
  subscriptionId: null,
  clientId: "rp_a",
  url: "https://hooks.example.com/in",
  eventType: "sign.complete",
  messageId: "msg_1",
  orderingKey: "req_1",
  payload: '{"type":"sign.complete","note":"署名 ü"}',
  status: "pending",
  attempts: 0,
  nextAttemptAt: 100,
  lastStatus: null,
  lastError: null,
  createdAt: 100,
  deliveredAt: null,
  ...overrides,
})

/** The events module's repositories against the storage contract. */
export const eventsConformance = conformanceSuite<WebhookSubscriptions | Deliveries>()("events", ({ test }) => {
  describe("WebhookSubscriptions", () => {
    test("insert assigns ids; active ones list per RP oldest first, by event type; deactivate takes one out", () =>
      Effect.gen(function* () {
        const subscriptions = yield* WebhookSubscriptions
        const first = yield* subscriptions.insert(sampleSubscription())
        const second = yield* subscriptions.insert(sampleSubscription({ events: ["sign.complete", "batch.complete"], url: "https://b.example.com/" }))
        const other = yield* subscriptions.insert(sampleSubscription({ clientId: "rp_b", rpId: 2 }))
        expect(first).toEqual({ ...sampleSubscription(), id: first.id })
        expect(new Set([first.id, second.id, other.id]).size).toBe(3)
        expect(yield* subscriptions.findById(second.id)).toEqual(Option.some(second))
        expect(yield* subscriptions.listActive("rp_a")).toEqual([first, second])
        expect(yield* subscriptions.listFor("rp_a", "batch.complete")).toEqual([second])
        expect(yield* subscriptions.listFor("rp_a", "sign.complete")).toEqual([first, second])
        yield* subscriptions.deactivate(first.id)
        expect(yield* subscriptions.listActive("rp_a")).toEqual([second])
        expect(yield* subscriptions.listFor("rp_a", "sign.complete")).toEqual([second])
        expect(yield* subscriptions.findById(first.id)).toEqual(Option.some({ ...first, active: false }))
        expect(yield* subscriptions.findById(first.id + second.id + other.id + 1)).toEqual(Option.none())
        expect(yield* subscriptions.listActive("rp_none")).toEqual([])
      }))
  })

  describe("Deliveries", () => {
    test("enqueue assigns ids; an RP's deliveries list newest first, per subscription, up to a limit", () =>
      Effect.gen(function* () {
        const deliveries = yield* Deliveries
        const a = yield* deliveries.enqueue(sampleDelivery({ subscriptionId: 7 }))
        const b = yield* deliveries.enqueue(sampleDelivery({ messageId: "msg_2", kind: "callback", subscriptionId: null }))
        const c = yield* deliveries.enqueue(sampleDelivery({ messageId: "msg_3", subscriptionId: 7, eventType: "batch.complete" }))
        yield* deliveries.enqueue(sampleDelivery({ messageId: "msg_4", clientId: "rp_b" }))
        expect(a).toEqual({ ...sampleDelivery({ subscriptionId: 7 }), id: a.id })
        expect(yield* deliveries.listForClient("rp_a", null, 10)).toEqual([c, b, a])
        expect(yield* deliveries.listForClient("rp_a", null, 2)).toEqual([c, b])
        expect(yield* deliveries.listForClient("rp_a", 7, 10)).toEqual([c, a])
        expect(yield* deliveries.listForClient("rp_none", null, 10)).toEqual([])
      }))

    test("only due, unleased deliveries first in line for their target and key are claimed, each by one claimer", () =>
      Effect.gen(function* () {
        const deliveries = yield* Deliveries
        const first = yield* deliveries.enqueue(sampleDelivery({ nextAttemptAt: 500 }))
        const sameKey = yield* deliveries.enqueue(sampleDelivery({ messageId: "msg_2" }))
        const otherKey = yield* deliveries.enqueue(sampleDelivery({ messageId: "msg_3", orderingKey: "req_2" }))
        const otherUrl = yield* deliveries.enqueue(sampleDelivery({ messageId: "msg_4", url: "https://other.example.com/" }))
        const later = yield* deliveries.enqueue(sampleDelivery({ messageId: "msg_5", orderingKey: "req_3", nextAttemptAt: 900 }))
        // `first` is not due yet and holds back `sameKey` behind it; `later` is not due.
        const [x, y] = yield* Effect.all([deliveries.claimDue(200, 1000, 10), deliveries.claimDue(200, 1000, 10)], { concurrency: 2 })
        const ids = [...x, ...y].map((d) => d.id).sort((m, n) => m - n)
        expect(ids).toEqual([otherKey.id, otherUrl.id].sort((m, n) => m - n))
        // Leased until 1200: nothing more before then but `first` (due at 500), and `later` once due.
        expect((yield* deliveries.claimDue(600, 1000, 10)).map((d) => d.id)).toEqual([first.id])
        expect((yield* deliveries.claimDue(950, 1000, 10)).map((d) => d.id)).toEqual([later.id])
        expect(yield* deliveries.claimDue(1100, 1000, 10)).toEqual([])
        // A lease that ran out (a worker that died) is claimable again; the limit caps a claim.
        expect((yield* deliveries.claimDue(1300, 1000, 1)).map((d) => d.id)).toEqual([otherKey.id])
        expect(sameKey.id).toBeGreaterThan(first.id)
      }))

    test("attempts are recorded in order; a delivered one is done and lets the next of its key through", () =>
      Effect.gen(function* () {
        const deliveries = yield* Deliveries
        const first = yield* deliveries.enqueue(sampleDelivery())
        const next = yield* deliveries.enqueue(sampleDelivery({ messageId: "msg_2" }))
        expect((yield* deliveries.claimDue(100, 30_000, 10)).map((d) => d.id)).toEqual([first.id])
        yield* deliveries.recordAttempt(
          { deliveryId: first.id, attempt: 1, at: 110, statusCode: 503, error: "HTTP 503", durationMs: 12 },
          { status: "pending", nextAttemptAt: 5_000, lastStatus: 503, lastError: "HTTP 503", deliveredAt: null },
        )
        expect((yield* deliveries.listForClient("rp_a", null, 10))[1]).toEqual({
          ...first,
          attempts: 1,
          nextAttemptAt: 5_000,
          lastStatus: 503,
          lastError: "HTTP 503",
        })
        // The attempt ends the lease: claimable as soon as it is due again, not only when the lease would have run out.
        expect(yield* deliveries.claimDue(4_999, 30_000, 10)).toEqual([])
        expect((yield* deliveries.claimDue(5_000, 30_000, 10)).map((d) => d.id)).toEqual([first.id])
        yield* deliveries.recordAttempt(
          { deliveryId: first.id, attempt: 2, at: 5_010, statusCode: 204, error: null, durationMs: 3 },
          { status: "delivered", nextAttemptAt: 5_000, lastStatus: 204, lastError: null, deliveredAt: 5_010 },
        )
        expect(yield* deliveries.attemptsOf(first.id)).toEqual([
          { deliveryId: first.id, attempt: 1, at: 110, statusCode: 503, error: "HTTP 503", durationMs: 12 },
          { deliveryId: first.id, attempt: 2, at: 5_010, statusCode: 204, error: null, durationMs: 3 },
        ])
        const [newest, done] = yield* deliveries.listForClient("rp_a", null, 10)
        expect(newest).toEqual(next)
        expect(done).toEqual({ ...first, status: "delivered", attempts: 2, nextAttemptAt: 5_000, lastStatus: 204, lastError: null, deliveredAt: 5_010 })
        expect((yield* deliveries.claimDue(5_020, 30_000, 10)).map((d) => d.id)).toEqual([next.id])
        expect(yield* deliveries.attemptsOf(next.id)).toEqual([])
      }))

    test("the pending summary counts pending deliveries and gives the oldest one's enqueue time (the outbox gauges)", () =>
      Effect.gen(function* () {
        const deliveries = yield* Deliveries
        expect(yield* deliveries.pendingSummary()).toEqual({ count: 0, oldestCreatedAt: null })
        const first = yield* deliveries.enqueue(sampleDelivery({ createdAt: 1_700_000_000_100 }))
        yield* deliveries.enqueue(sampleDelivery({ messageId: "msg_2", createdAt: 1_700_000_000_300 }))
        expect(yield* deliveries.pendingSummary()).toEqual({ count: 2, oldestCreatedAt: 1_700_000_000_100 })
        yield* deliveries.claimDue(100, 30_000, 10)
        yield* deliveries.recordAttempt(
          { deliveryId: first.id, attempt: 1, at: 110, statusCode: 204, error: null, durationMs: 3 },
          { status: "delivered", nextAttemptAt: 110, lastStatus: 204, lastError: null, deliveredAt: 110 },
        )
        expect(yield* deliveries.pendingSummary()).toEqual({ count: 1, oldestCreatedAt: 1_700_000_000_300 })
      }))
  })
})
