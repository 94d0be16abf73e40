/** The plan in force: active subscription, else the administrator's plan, else the default allowance. */
import { describe, expect, it } from "vitest"
import { DEFAULT_ALLOWANCE, PLANS, type Allowance } from "./plans.ts"
import { choosePlan } from "./plan-in-force.ts"
import type { Subscription } from "../billing/model.ts"

const DAY = 86_400_000
const sub = (plan: Subscription["plan"], startsAt: number, days: number): Subscription => ({
  id: `sub_${plan}_${startsAt}`,
  clientId: "rp",
  plan,
  period: days === 365 ? "annual" : "monthly",
  checkoutId: `chk_${startsAt}`,
  startsAt,
  endsAt: startsAt + days * DAY,
  createdAt: startsAt,
})
const bare = { plan: null, customAllowance: null, maxLoa: "LOA-4" } as const

describe("choosePlan", () => {
  it("an active subscription governs; the end instant is already outside the term", () => {
    const business = sub("business", 0, 30)
    expect(choosePlan(bare, [business], 30 * DAY - 1)).toMatchObject({
      plan: "business",
      source: "subscription",
      allowance: PLANS.business.allowance,
      maximumLoa: "LOA-4",
    })
    expect(choosePlan(bare, [business], 30 * DAY)).toMatchObject({
      plan: null,
      source: "default",
      allowance: DEFAULT_ALLOWANCE,
      subscription: null,
      latestSubscription: business,
      maximumLoa: "LOA-2",
    })
  })

  it("falls back to the administrator's plan, and the latest active subscription wins over older ones", () => {
    const admin = { ...bare, plan: "business" as const }
    expect(choosePlan(admin, [sub("starter", 0, 30)], 31 * DAY)).toMatchObject({ plan: "business", source: "administrator" })
    const both = [sub("business", 0, 365), sub("starter", 10 * DAY, 30)]
    expect(choosePlan(bare, both, 11 * DAY).plan).toBe("starter")
    expect(choosePlan(bare, both, 41 * DAY).plan).toBe("business")
  })

  it("an agreed allowance replaces the plan's figures; the RP's own maximum caps the LOA", () => {
    const agreed: Allowance = { signaturesPerDay: 5, documentsPerBatch: 3, requestsPerMinute: 4, highestLoa: "LOA-4" }
    expect(choosePlan({ plan: "enterprise", customAllowance: agreed, maxLoa: "LOA-2" }, [], 0)).toMatchObject({
      allowance: agreed,
      highestLoa: "LOA-4",
      maximumLoa: "LOA-2",
    })
  })
})
