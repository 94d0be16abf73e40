/** Plans as data: the allowances of the interface spec's plan table. */
import type { Loa, PlanId } from "./model.ts"

/** What an RP may consume. */
export interface Allowance {
  readonly signaturesPerDay: number
  readonly documentsPerBatch: number
  readonly requestsPerMinute: number
  readonly highestLoa: Loa
}

/** A plan of the catalogue; `null` figures are "agreed with sales" and set per RP. */
export interface Plan {
  readonly id: PlanId
  readonly name: string
  readonly priceUsd: { readonly monthly: number; readonly annually: number } | null
  readonly termDays: { readonly monthly: 30; readonly annually: 365 }
  readonly allowance: Allowance | null
  readonly highestLoa: Loa
}

/** The allowance of an RP without a plan: 60 requests per minute, 100 signatures per day, 10 documents per batch. */
export const DEFAULT_ALLOWANCE: Allowance = {
  signaturesPerDay: 100,
  documentsPerBatch: 10,
  requestsPerMinute: 60,
  highestLoa: "LOA-2",
}

const TERM = { monthly: 30, annually: 365 } as const

/** Starter, Business and Enterprise, exactly as the spec lists them. */
export const PLANS: Readonly<Record<PlanId, Plan>> = {
  starter: {
    id: "starter",
    name: "Starter",
    priceUsd: { monthly: 69, annually: 828 },
    termDays: TERM,
    allowance: { signaturesPerDay: 100, documentsPerBatch: 2, requestsPerMinute: 60, highestLoa: "LOA-2" },
    highestLoa: "LOA-2",
  },
  business: {
    id: "business",
    name: "Business",
    priceUsd: { monthly: 649, annually: 7788 },
    termDays: TERM,
    allowance: { signaturesPerDay: 1000, documentsPerBatch: 10, requestsPerMinute: 300, highestLoa: "LOA-4" },
    highestLoa: "LOA-4",
  },
  enterprise: {
    id: "enterprise",
    name: "Enterprise",
    priceUsd: null,
    termDays: TERM,
    allowance: null,
    highestLoa: "LOA-4",
  },
}

/** The allowance in force for an RP: its plan's, or its agreed custom one (Enterprise), or the default. */
export const allowanceOf = (rp: { readonly plan: PlanId | null; readonly customAllowance: Allowance | null }): Allowance => {
  if (rp.customAllowance !== null) return rp.customAllowance
  if (rp.plan === null) return DEFAULT_ALLOWANCE
  return PLANS[rp.plan].allowance ?? DEFAULT_ALLOWANCE
}

/** The highest LOA an RP's plan (or agreed allowance) allows. */
export const planMaximumLoa = (rp: { readonly plan: PlanId | null; readonly customAllowance: Allowance | null }): Loa =>
  rp.customAllowance?.highestLoa ?? (rp.plan === null ? DEFAULT_ALLOWANCE.highestLoa : PLANS[rp.plan].highestLoa)
