/**
 * `GET /rp/usage/{clientId}` and `GET /rp/rate-limits/{clientId}`: what the RP consumed and
 * what it may consume, read from the very counters the signing endpoints consume (rp/quota.ts)
 * and the plan in force they enforce; there is no second bookkeeping.
 */
import { requireRpBinding } from "../authorization/principals.ts"
import { PLANS } from "../rp/plans.ts"
import { ResourceNotFound } from "../kernel/errors.ts"
import { QuotaCounters, RelyingParties } from "../rp/ports.ts"
import { planInForce } from "../rp/plan-in-force.ts"
import { Clock, Effect, Option } from "effect"
import type { BearerUser } from "../identity/access-token.ts"
import { dailyCounterKey, MINUTE_MS, minuteCounterKey, minuteCounterPrefix, minuteWindow, nextUtcMidnight, signingScope } from "../rp/quota.ts"
import { subscriptionStatus, type Subscription } from "./model.ts"

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * The RP `clientId` if `user` is its contact account and the token was issued to that RP or to
 * Signet's console; 404 otherwise, so others learn nothing of it.
 */
export const contactsRelyingParty = (user: BearerUser, clientId: string) =>
  Effect.zipRight(
    requireRpBinding(user, clientId).pipe(Effect.mapError(() => new ResourceNotFound({ what: "Relying party" }))),
    Effect.flatMap(RelyingParties, (r) => r.findByClientId(clientId)).pipe(
      Effect.flatMap((found) =>
        Option.isSome(found) && found.value.contactUserId === user.userId
          ? Effect.succeed(found.value)
          : Effect.fail(new ResourceNotFound({ what: "Relying party" })),
      ),
    ),
  )

/** A subscription as the reports show it. */
export const subscriptionView = (s: Subscription, now: number) => ({
  id: s.id,
  plan: s.plan,
  period: s.period,
  status: subscriptionStatus(s, now),
  startsAt: iso(s.startsAt),
  endsAt: iso(s.endsAt),
})

// The current minute's per-user signing windows of the RP, and its signing-token (SSC) window.
const consumption = (clientId: string, now: number) =>
  Effect.gen(function* () {
    const counters = yield* QuotaCounters
    const window = minuteWindow(now)
    const userPrefix = minuteCounterPrefix(signingScope(clientId, ""))
    const windowSuffix = `:${window}`
    const users = (yield* counters.list(userPrefix))
      .filter((c) => c.key.endsWith(windowSuffix))
      .map((c) => ({ userId: c.key.slice(userPrefix.length, -windowSuffix.length), requests: c.count }))
    return {
      today: new Date(now).toISOString().slice(0, 10),
      signaturesToday: yield* counters.peek(dailyCounterKey(clientId, now)),
      dayResetsAt: nextUtcMidnight(now),
      windowStart: window * MINUTE_MS,
      windowEnd: (window + 1) * MINUTE_MS,
      users,
      signingTokenRequests: yield* counters.peek(minuteCounterKey(`ssc:${clientId}`, window)),
    }
  })

/** `GET /rp/usage/{clientId}`: today's signatures (UTC day) and the current per-minute windows. */
export const rpUsage = (user: BearerUser, clientId: string) =>
  Effect.gen(function* () {
    const rp = yield* contactsRelyingParty(user, clientId)
    const now = yield* Clock.currentTimeMillis
    const c = yield* consumption(rp.clientId, now)
    return {
      clientId: rp.clientId,
      at: iso(now),
      day: c.today,
      signaturesToday: c.signaturesToday,
      dayResetsAt: iso(c.dayResetsAt),
      perMinute: {
        windowStart: iso(c.windowStart),
        windowEnd: iso(c.windowEnd),
        signingRequestsByUser: c.users,
        signingTokenRequests: c.signingTokenRequests,
      },
    }
  })

/** `GET /rp/rate-limits/{clientId}`: the plan in force, its limits, current consumption and reset times. */
export const rpRateLimits = (user: BearerUser, clientId: string) =>
  Effect.gen(function* () {
    const rp = yield* contactsRelyingParty(user, clientId)
    const now = yield* Clock.currentTimeMillis
    const inForce = yield* planInForce(rp)
    const c = yield* consumption(rp.clientId, now)
    const { allowance } = inForce
    return {
      clientId: rp.clientId,
      at: iso(now),
      plan: {
        id: inForce.plan,
        name: inForce.plan === null ? "Default" : PLANS[inForce.plan].name,
        source: inForce.source,
        customAllowance: rp.customAllowance !== null,
        subscription: inForce.subscription === null ? null : subscriptionView(inForce.subscription, now),
        latestSubscription: inForce.latestSubscription === null ? null : subscriptionView(inForce.latestSubscription, now),
      },
      limits: {
        signaturesPerDay: allowance.signaturesPerDay,
        requestsPerMinute: allowance.requestsPerMinute,
        documentsPerBatch: allowance.documentsPerBatch,
        highestLoa: inForce.highestLoa,
        maximumLoa: inForce.maximumLoa,
        kycVerified: rp.kycVerified,
      },
      daily: {
        used: c.signaturesToday,
        limit: allowance.signaturesPerDay,
        remaining: Math.max(0, allowance.signaturesPerDay - c.signaturesToday),
        resetsAt: iso(c.dayResetsAt),
      },
      perMinute: {
        limit: allowance.requestsPerMinute,
        counter: "signed-in user" as const,
        windowStart: iso(c.windowStart),
        resetsAt: iso(c.windowEnd),
        users: c.users.map((u) => ({ ...u, remaining: Math.max(0, allowance.requestsPerMinute - u.requests) })),
        signingToken: {
          requests: c.signingTokenRequests,
          remaining: Math.max(0, allowance.requestsPerMinute - c.signingTokenRequests),
        },
      },
    }
  })
