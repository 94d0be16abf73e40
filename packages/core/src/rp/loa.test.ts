import { Effect, Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { compareLoa, grantableLoa, loaAllowed, minLoa, requireLoa } from "./loa.ts"
import type { Loa } from "./model.ts"
import { DEFAULT_ALLOWANCE, PLANS, allowanceOf } from "./plans.ts"

const loa = fc.constantFrom<Loa>("LOA-2", "LOA-4")
const rp = fc.record({ maxLoa: loa, kycVerified: fc.boolean() })

describe("LOA rules", () => {
  it("LOA-2 is below LOA-4 and the order is total", () => {
    expect(compareLoa("LOA-2", "LOA-4")).toBeLessThan(0)
    fc.assert(
      fc.property(loa, loa, (a, b) => {
        expect(Math.sign(compareLoa(a, b)) + Math.sign(compareLoa(b, a))).toBe(0)
        expect(loaAllowed(a, b) || loaAllowed(b, a)).toBe(true)
        expect(minLoa(a, b)).toBe(loaAllowed(a, b) ? a : b)
      }),
    )
  })

  it("a request is granted exactly when it is within the RP's and the plan's maximum, and LOA-4 only with KYC", () => {
    fc.assert(
      fc.property(loa, rp, loa, (requested, party, planMax) => {
        const result = Effect.runSync(Effect.either(requireLoa(requested, party, planMax)))
        const withinMax = loaAllowed(requested, party.maxLoa) && loaAllowed(requested, planMax)
        const expected = withinMax && (requested === "LOA-2" || party.kycVerified)
        expect(Either.isRight(result)).toBe(expected)
        if (Either.isLeft(result)) {
          expect(result.left._tag).toBe(withinMax ? "Loa4RequiresKycVerifiedRp" : "LoaExceedsMaximum")
          if (result.left._tag === "LoaExceedsMaximum") {
            expect(result.left.message).toBe(`Requested LOA ${requested} exceeds RP maximum ${minLoa(party.maxLoa, planMax)}`)
          }
        }
        // whatever is granted never exceeds what grantableLoa says
        if (Either.isRight(result)) expect(loaAllowed(result.right, grantableLoa(party, planMax))).toBe(true)
      }),
    )
  })

  it("grantableLoa is LOA-4 only for KYC-verified RPs whose maximum and plan allow it", () => {
    fc.assert(
      fc.property(rp, loa, (party, planMax) => {
        expect(grantableLoa(party, planMax) === "LOA-4").toBe(party.kycVerified && party.maxLoa === "LOA-4" && planMax === "LOA-4")
      }),
    )
  })
})

describe("plans", () => {
  it("carry the spec's allowances", () => {
    expect(DEFAULT_ALLOWANCE).toEqual({ signaturesPerDay: 100, documentsPerBatch: 10, requestsPerMinute: 60, highestLoa: "LOA-2" })
    expect(PLANS.starter.allowance).toEqual({ signaturesPerDay: 100, documentsPerBatch: 2, requestsPerMinute: 60, highestLoa: "LOA-2" })
    expect(PLANS.starter.priceUsd).toEqual({ monthly: 69, annually: 828 })
    expect(PLANS.business.allowance).toEqual({ signaturesPerDay: 1000, documentsPerBatch: 10, requestsPerMinute: 300, highestLoa: "LOA-4" })
    expect(PLANS.business.priceUsd).toEqual({ monthly: 649, annually: 7788 })
    expect(PLANS.enterprise.allowance).toBeNull()
    expect(PLANS.enterprise.highestLoa).toBe("LOA-4")
    expect(PLANS.starter.termDays).toEqual({ monthly: 30, annually: 365 })
  })

  it("an RP's allowance is its custom one, else its plan's, else the default", () => {
    const custom = { signaturesPerDay: 5000, documentsPerBatch: 50, requestsPerMinute: 900, highestLoa: "LOA-4" as const }
    expect(allowanceOf({ plan: null, customAllowance: null })).toBe(DEFAULT_ALLOWANCE)
    expect(allowanceOf({ plan: "starter", customAllowance: null })).toBe(PLANS.starter.allowance)
    expect(allowanceOf({ plan: "enterprise", customAllowance: null })).toBe(DEFAULT_ALLOWANCE)
    expect(allowanceOf({ plan: "enterprise", customAllowance: custom })).toBe(custom)
  })
})
