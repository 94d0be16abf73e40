/**
 * The plan in force for an RP: its active paid subscription's plan, else the plan an
 * administrator granted (`rp set-plan`, a standing grant without end, e.g. Enterprise by
 * contract), else none (the default allowance). Enforcement and the usage reports both
 * read it, so what is reported is what is enforced.
 */
import { Clock, Effect } from "effect"
import { Subscriptions } from "../billing/ports.ts"
import type { Loa, PlanId, RelyingParty } from "./model.ts"
import { minLoa } from "./loa.ts"
import { allowanceOf, planMaximumLoa, type Allowance } from "./plans.ts"
import { subscriptionStatus, type Subscription } from "../billing/model.ts"

/** Which plan governs an RP right now, and why. */
export interface PlanInForce {
  readonly plan: PlanId | null
  /** `subscription` (paid, active), `administrator` (`rp set-plan`) or `default` (no plan) */
  readonly source: "subscription" | "administrator" | "default"
  /** the active subscription, if that is the source */
  readonly subscription: Subscription | null
  /** the latest subscription whatever its status, to show when it ended */
  readonly latestSubscription: Subscription | null
  readonly allowance: Allowance
  /** the plan's highest LOA */
  readonly highestLoa: Loa
  /** what a signing request may ask for: min(RP maximum, plan's highest) */
  readonly maximumLoa: Loa
}

/** Picks the plan in force from the RP and its subscriptions at `now` (pure). */
export const choosePlan = (
  rp: Pick<RelyingParty, "plan" | "customAllowance" | "maxLoa">,
  subscriptions: ReadonlyArray<Subscription>,
  now: number,
): PlanInForce => {
  const active = subscriptions.filter((s) => subscriptionStatus(s, now) === "active").sort((a, b) => b.startsAt - a.startsAt)[0] ?? null
  const latest = [...subscriptions].sort((a, b) => b.startsAt - a.startsAt)[0] ?? null
  const plan = active?.plan ?? rp.plan
  const governing = { plan, customAllowance: rp.customAllowance }
  const highestLoa = planMaximumLoa(governing)
  return {
    plan,
    source: active !== null ? "subscription" : rp.plan !== null ? "administrator" : "default",
    subscription: active,
    latestSubscription: latest,
    allowance: allowanceOf(governing),
    highestLoa,
    maximumLoa: minLoa(rp.maxLoa, highestLoa),
  }
}

/** The plan in force for `rp` now. */
export const planInForce = (rp: RelyingParty) =>
  Effect.gen(function* () {
    const subscriptions = yield* Effect.flatMap(Subscriptions, (s) => s.listForRp(rp.clientId))
    return choosePlan(rp, subscriptions, yield* Clock.currentTimeMillis)
  })
