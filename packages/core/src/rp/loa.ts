/** Levels of assurance and their order (LOA-2 < LOA-4), as pure rules. */
import { Effect } from "effect"
import { Loa4RequiresKycVerifiedRp, LoaExceedsMaximum } from "./errors.ts"
import type { Loa } from "./model.ts"

const RANK: Record<Loa, number> = { "LOA-2": 2, "LOA-4": 4 }

/** Negative, zero or positive as `a` is below, equal to or above `b`. */
export const compareLoa = (a: Loa, b: Loa): number => RANK[a] - RANK[b]

/** The lower of two levels. */
export const minLoa = (a: Loa, b: Loa): Loa => (compareLoa(a, b) <= 0 ? a : b)

/** Whether `requested` is at most `maximum`. */
export const loaAllowed = (requested: Loa, maximum: Loa): boolean => compareLoa(requested, maximum) <= 0

/** What an RP may grant: its own maximum, capped by its plan, and LOA-4 only when its organisation is KYC-verified. */
export const grantableLoa = (rp: { readonly maxLoa: Loa; readonly kycVerified: boolean }, planMaximum: Loa): Loa => {
  const cap = minLoa(rp.maxLoa, planMaximum)
  return rp.kycVerified ? cap : minLoa(cap, "LOA-2")
}

/**
 * Checks a requested level against the RP: above its maximum (or plan) is
 * `Requested LOA … exceeds RP maximum …`; LOA-4 within the maximum but without KYC is
 * `LOA-4 requires KYC-verified RP`.
 */
export const requireLoa = (
  requested: Loa,
  rp: { readonly maxLoa: Loa; readonly kycVerified: boolean },
  planMaximum: Loa,
): Effect.Effect<Loa, LoaExceedsMaximum | Loa4RequiresKycVerifiedRp> => {
  const maximum = minLoa(rp.maxLoa, planMaximum)
  if (!loaAllowed(requested, maximum)) return Effect.fail(new LoaExceedsMaximum({ requested, maximum }))
  if (requested === "LOA-4" && !rp.kycVerified) return Effect.fail(new Loa4RequiresKycVerifiedRp())
  return Effect.succeed(requested)
}
