/** Storage conformance of the billing module: checkouts, subscriptions and per-day usage. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Checkouts, Subscriptions, UniqueViolation, UsageHistory } from "@signet/core"
import { samplePlanSubscription } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

/** The billing module's repositories against the storage contract. */
export const billingConformance = conformanceSuite<Checkouts | Subscriptions | UsageHistory>()("billing", ({ test }) => {
  describe("Checkouts and Subscriptions", () => {
    const checkout = {
      id: "chk_1",
      clientId: "rp_sbx_1",
      userId: "u1",
      plan: "starter",
      period: "monthly",
      method: "mobile_money",
      priceUsdMinor: 6900,
      currency: "KES",
      amountMinor: 891825,
      rateQuote: { base: "USD", quote: "KES", rate: "129.25", quotedAt: 1_700_000_000_000, source: "test" },
      status: "created",
      providerReference: null,
      failureReason: null,
      createdAt: 1,
      expiresAt: 2,
      updatedAt: 1,
      paidAt: null,
    } as const
    test("a checkout round-trips with its rate quote; update is a compare-and-set on the status", () =>
      Effect.gen(function* () {
        const repo = yield* Checkouts
        yield* repo.insert(checkout)
        expect(yield* repo.findById("chk_1")).toEqual(Option.some(checkout))
        const paid = { ...checkout, status: "paid" as const, providerReference: "ref", paidAt: 5 }
        expect(yield* repo.update(paid, "created")).toBe(true)
        expect(yield* repo.update({ ...checkout, status: "failed" as const }, "created")).toBe(false)
        expect(yield* repo.findById("chk_1")).toEqual(Option.some(paid))
        expect(yield* Effect.flip(repo.insert(checkout))).toBeInstanceOf(UniqueViolation)
      }))
    test("one subscription per checkout; listed latest start first", () =>
      Effect.gen(function* () {
        const repo = yield* Subscriptions
        const first = samplePlanSubscription()
        const second = { ...first, id: "sub_2", checkoutId: "chk_2", startsAt: 30, endsAt: 40 }
        yield* repo.insert(first)
        yield* repo.insert(second)
        expect(yield* Effect.flip(repo.insert({ ...first, id: "sub_3" }))).toEqual(new UniqueViolation({ what: "checkout_id" }))
        expect(yield* repo.listForRp("rp_sbx_1")).toEqual([second, first])
        expect(yield* repo.listForRp("rp_sbx_2")).toEqual([])
      }))
  })
  describe("UsageHistory", () => {
    test("adds up per RP and day, concurrently too; lists a range oldest first", () =>
      Effect.gen(function* () {
        const history = yield* UsageHistory
        yield* Effect.all(
          Array.from({ length: 5 }, () => history.add("rp_a", "2026-11-02", 2, 0)),
          { concurrency: 5 },
        )
        yield* history.add("rp_a", "2026-11-02", 0, 1)
        yield* history.add("rp_a", "2026-11-01", 1, 0)
        yield* history.add("rp_a", "2026-10-31", 7, 0)
        yield* history.add("rp_b", "2026-11-02", 3, 0)
        expect(yield* history.list("rp_a", "2026-11-01", "2026-11-30")).toEqual([
          { clientId: "rp_a", day: "2026-11-01", signatures: 1, quotaRefusals: 0 },
          { clientId: "rp_a", day: "2026-11-02", signatures: 10, quotaRefusals: 1 },
        ])
        expect(yield* history.list("rp_c", "2026-11-01", "2026-11-30")).toEqual([])
      }))
  })
})
