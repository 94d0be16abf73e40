/**
 * The signing allowance in force: requests per minute per signed-in user (the spec's
 * counter for `/v2/sign/*`), signatures per day per RP (reset at 00:00 UTC) and documents
 * per batch. Counters are consumed in the caller's transaction, so a refused or failed
 * creation gives its reservation back. The allowance is the plan in force (billing/plan-in-force.ts).
 */
import { Clock, Effect, Option } from "effect"
import { BatchSizeExceeded, DailySigningLimitExceeded, RateLimitExceeded } from "./errors.ts"
import { QuotaCounters } from "./ports.ts"
import { planInForce, type PlanInForce } from "./plan-in-force.ts"
import type { RelyingParty } from "./model.ts"
import { UsageHistory } from "../billing/ports.ts"

/** The per-minute window length (the spec's 60 seconds). */
export const MINUTE_MS = 60_000
const DAY_MS = 86_400_000

/** The number of the 60-second window `at` falls in. */
export const minuteWindow = (at: number): number => Math.floor(at / MINUTE_MS)

/** Keys of per-minute counters whose scope starts with `scope` begin with this. */
export const minuteCounterPrefix = (scope: string): string => `rpm:${scope}`

/** Key of the per-minute counter of `scope` in `window`; usage reports read the same keys. */
export const minuteCounterKey = (scope: string, window: number): string => `${minuteCounterPrefix(scope)}:${window}`

/** Scope of the signing allowance's per-minute counter: per RP and signed-in user. */
export const signingScope = (clientId: string, userId: string): string => `sign:${clientId}:${userId}`

/** Key of an RP's daily signature counter for the UTC day of `at`. */
export const dailyCounterKey = (clientId: string, at: number): string => `day:${clientId}:${new Date(at).toISOString().slice(0, 10)}`

/** Midnight UTC after `at`, when the daily counter starts again. */
export const nextUtcMidnight = (at: number): number => (Math.floor(at / DAY_MS) + 1) * DAY_MS

/** How many signatures the RP has used today (UTC), as the daily counter holds it. */
export const signaturesUsedToday = (clientId: string) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    return yield* Effect.flatMap(QuotaCounters, (q) => q.peek(dailyCounterKey(clientId, now)))
  })

/** Counts one request in `scope`'s current 60-second window, or 429 `Rate limit exceeded. Please try again later.` */
export const countRequest = (scope: string, perMinute: number) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const window = minuteWindow(now)
    const granted = yield* Effect.flatMap(QuotaCounters, (q) => q.consume(minuteCounterKey(scope, window), 1, perMinute, (window + 1) * MINUTE_MS))
    if (Option.isNone(granted)) return yield* new RateLimitExceeded({ retryAfterSeconds: secondsUntil(now, (window + 1) * MINUTE_MS) })
  })

/** Whole seconds from `now` until `at`, at least 1 (what `Retry-After` carries). */
export const secondsUntil = (now: number, at: number): number => Math.max(1, Math.ceil((at - now) / 1000))

/**
 * Reserves `count` signatures of the RP's daily allowance for a user's signing request or
 * batch: first the per-minute window, then the batch size, then the day. `inForce` is the plan
 * the caller already read for this request (its LOA check), so the request reads it once.
 */
export const reserveSignatures = (rp: RelyingParty, userId: string, count: number, kind: "single" | "batch", inForce?: PlanInForce) =>
  Effect.gen(function* () {
    const { allowance } = inForce ?? (yield* planInForce(rp))
    const now = yield* Clock.currentTimeMillis
    const window = minuteWindow(now)
    const windowEnds = (window + 1) * MINUTE_MS
    const resets = nextUtcMidnight(now)
    const key = dailyCounterKey(rp.clientId, now)
    const counters = yield* QuotaCounters
    // Both counters in one step (one statement on SQL), judged in the order the limits are named: a
    // refusal fails the caller's unit of work, which gives back what the other counter took.
    const [minute, day] = yield* counters.consumeEach([
      { key: minuteCounterKey(signingScope(rp.clientId, userId), window), amount: 1, limit: allowance.requestsPerMinute, expiresAt: windowEnds },
      { key, amount: count, limit: allowance.signaturesPerDay, expiresAt: resets },
    ])
    if (minute === undefined || Option.isNone(minute)) return yield* new RateLimitExceeded({ retryAfterSeconds: secondsUntil(now, windowEnds) })
    if (kind === "batch" && count > allowance.documentsPerBatch) {
      return yield* new BatchSizeExceeded({ size: count, maximum: allowance.documentsPerBatch })
    }
    if (day === undefined || Option.isNone(day)) {
      return yield* new DailySigningLimitExceeded({
        used: yield* counters.peek(key),
        maximum: allowance.signaturesPerDay,
        resetsAt: new Date(resets).toISOString(),
        retryAfterSeconds: secondsUntil(now, resets),
      })
    }
    // the day's history row moves with the reservation (same transaction): the console's charts match the counter
    yield* Effect.flatMap(UsageHistory, (h) => h.add(rp.clientId, key.slice(key.lastIndexOf(":") + 1), count, 0))
    return day.value
  })

/** Runs a transaction that reserves signatures, counting a refusal for the day's allowance in the usage history. */
export const countingQuotaRefusals =
  (clientId: string) =>
  <A, E, R>(reservation: Effect.Effect<A, E, R>) =>
    Effect.tapError(reservation, (e) =>
      typeof e === "object" && e !== null && "_tag" in e && e._tag === "DailySigningLimitExceeded"
        ? Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.flatMap(UsageHistory, (h) => h.add(clientId, new Date(now).toISOString().slice(0, 10), 0, 1)))
        : Effect.void,
    )
