/**
 * The outbox at core level, over the in-memory storage with the TestClock: a completion writes
 * its webhook and callback deliveries with the state change; delivery rounds attempt what is
 * due, retry with back-off, give up after the allowance, cut an attempt that gets no answer,
 * and sign webhooks so the RP can verify them. The transport is a recording stand-in.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, TestClock } from "effect"
import { createHash } from "node:crypto"
import { verifyWebhook } from "@signet/testkit"
import { atTestStart, bearer, coreTestLayer, enrolTestSigner, testRelyingParty } from "@signet/testkit/core"
import {
  completeSigningRequest,
  createSigningRequest,
  Deliveries,
  deliverDue,
  DeliveryPolicy,
  listDeliveries,
  registerWebhook,
  TransportFailure,
  WebhookTransport,
  type Assertion,
} from "../index.ts"

const CALLBACK = "https://rp.example/signet/callback"
const HOOK = "https://rp.example/signet/webhook"
const SECRET = "a webhook secret of the RP's own choosing"

interface Posted {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** A transport that records each post and answers what `answer` says for the n-th post to that URL (1-based). */
const recordingTransport = (answer: (url: string, n: number) => Effect.Effect<{ readonly status: number }, TransportFailure>) => {
  const posted: Array<Posted> = []
  const layer = Layer.succeed(
    WebhookTransport,
    WebhookTransport.of({
      post: (url, headers, body) =>
        Effect.suspend(() => {
          posted.push({ url, headers, body })
          return answer(url, posted.filter((p) => p.url === url).length)
        }),
    }),
  )
  return { posted, layer }
}

const policy = Layer.succeed(DeliveryPolicy, { allowLoopbackHttp: false, baseDelayMs: 10_000, maxDelayMs: 3_600_000, maxAttempts: 3 })
const START_S = Date.UTC(2026, 10, 25, 12) / 1000

/** An RP whose contact account is the signer, with a webhook; a request with a callback, completed at the test start. */
const completedWithCallback = Effect.gen(function* () {
  yield* atTestStart()
  const signer = yield* enrolTestSigner("webhooks@example.com")
  const { rp } = yield* testRelyingParty({ contactUserId: signer.userId })
  const user = bearer(signer.userId, rp.clientId)
  const subscription = yield* registerWebhook(user, { url: HOOK, events: ["sign.complete"], secret: SECRET })
  const documentHash = createHash("sha256").update("contract").digest("hex")
  const created = yield* createSigningRequest(user, { documentHash, credentialId: signer.passkey.credentialId, callbackUrl: CALLBACK })
  yield* completeSigningRequest(created.requestId, signer.passkey.assert({ challenge: created.challenge }, { includeUserHandle: false }) as Assertion)
  return { user, requestId: created.requestId, subscriptionId: subscription.subscriptionId }
})

/** The callback delivery of the RP, and its attempts' status codes and errors. */
const callbackOf = (clientId: string) =>
  Effect.gen(function* () {
    const deliveries = yield* Deliveries
    const callback = (yield* deliveries.listForClient(clientId, null, 10)).find((d) => d.kind === "callback")!
    const attempts = yield* deliveries.attemptsOf(callback.id)
    return { ...callback, tried: attempts.map((a) => a.statusCode ?? a.error) }
  })

describe("the outbox", () => {
  const ok = recordingTransport(() => Effect.succeed({ status: 204 }))
  it.effect("a completion is delivered to the webhook, signed so the RP can verify it, and to the request's callback, once", () =>
    Effect.gen(function* () {
      const { user, requestId, subscriptionId } = yield* completedWithCallback
      expect(yield* deliverDue).toBe(2)
      expect(ok.posted.map((p) => p.url).sort()).toEqual([CALLBACK, HOOK])
      const hook = ok.posted.find((p) => p.url === HOOK)!
      const event = verifyWebhook(SECRET, hook.headers, hook.body, { nowSeconds: START_S }) as { type: string; data: { requestId: string; status: string } }
      expect([event.type, event.data.requestId, event.data.status]).toEqual(["sign.complete", requestId, "completed"])
      expect(() => verifyWebhook("another secret, not the RP's own one", hook.headers, hook.body, { nowSeconds: START_S })).toThrow()
      expect(yield* deliverDue).toBe(0)
      expect(ok.posted).toHaveLength(2)
      expect((yield* listDeliveries(user, subscriptionId)).map((d) => d.status)).toEqual(["delivered"])
    }).pipe(Effect.provide(Layer.mergeAll(coreTestLayer(), policy, ok.layer))),
  )

  const flaky = recordingTransport((url, n) => Effect.succeed({ status: url === CALLBACK && n === 1 ? 503 : 200 }))
  it.effect("a refused delivery is retried after its back-off, not before, with the same message id", () =>
    Effect.gen(function* () {
      const { user } = yield* completedWithCallback
      expect(yield* deliverDue).toBe(2)
      expect(yield* deliverDue).toBe(0)
      yield* TestClock.adjust("4 seconds")
      // the first back-off is 10 s with ±50 % jitter: at least 5 s
      expect(yield* deliverDue).toBe(0)
      yield* TestClock.adjust("11 seconds")
      expect(yield* deliverDue).toBe(1)
      const callback = yield* callbackOf(user.clientId)
      expect([callback.status, callback.tried]).toEqual(["delivered", [503, 200]])
      const ids = flaky.posted.filter((p) => p.url === CALLBACK).map((p) => p.headers["webhook-id"])
      expect(ids).toEqual([callback.messageId, callback.messageId])
    }).pipe(Effect.provide(Layer.mergeAll(coreTestLayer(), policy, flaky.layer))),
  )

  const down = recordingTransport((url) =>
    url === CALLBACK ? Effect.fail(new TransportFailure({ reason: "connection refused" })) : Effect.succeed({ status: 200 }),
  )
  it.effect("after the allowance of attempts the delivery fails for good", () =>
    Effect.gen(function* () {
      const { user } = yield* completedWithCallback
      for (let round = 0; round < 5; round++) {
        yield* deliverDue
        yield* TestClock.adjust("10 minutes")
      }
      const callback = yield* callbackOf(user.clientId)
      expect([callback.status, callback.attempts, callback.lastError]).toEqual(["failed", 3, "connection refused"])
      expect(down.posted.filter((p) => p.url === CALLBACK)).toHaveLength(3)
    }).pipe(Effect.provide(Layer.mergeAll(coreTestLayer(), policy, down.layer))),
  )

  const silent = recordingTransport((url) => (url === CALLBACK ? Effect.never : Effect.succeed({ status: 200 })))
  it.effect("an attempt that gets no answer is cut at 20 s and retried later", () =>
    Effect.gen(function* () {
      const { user } = yield* completedWithCallback
      const round = yield* Effect.fork(deliverDue)
      yield* TestClock.adjust("19 seconds")
      expect(Option.isNone(yield* Fiber.poll(round))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(round)).toBe(2)
      const callback = yield* callbackOf(user.clientId)
      expect([callback.status, callback.tried]).toEqual(["pending", ["no answer within 20 s"]])
    }).pipe(Effect.provide(Layer.mergeAll(coreTestLayer(), policy, silent.layer))),
  )
})
