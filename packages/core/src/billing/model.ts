/** Billing records: a checkout (one attempt to pay for a plan) and the subscription a paid checkout starts. */
import { Schema } from "effect"
import { PlanId } from "../rp/model.ts"

/** How long a paid term lasts. */
export const BillingPeriod = Schema.Literal("monthly", "annual")
/** How long a paid term lasts. */
export type BillingPeriod = typeof BillingPeriod.Type

/** Days of service a payment buys: 30 for monthly, 365 for annual (the spec's terms). */
export const PERIOD_DAYS: Readonly<Record<BillingPeriod, number>> = { monthly: 30, annual: 365 }

/** The ways a checkout can be paid. */
export const PaymentMethod = Schema.Literal("card", "mobile_money")
/** The ways a checkout can be paid. */
export type PaymentMethod = typeof PaymentMethod.Type

/** Currencies a checkout can be charged in; prices are set in USD. */
export const Currency = Schema.Literal("USD", "KES")
/** Currencies a checkout can be charged in; prices are set in USD. */
export type Currency = typeof Currency.Type

/** Where a checkout stands. */
export const CheckoutStatus = Schema.Literal("created", "pending", "paid", "failed", "expired")
/** Where a checkout stands. */
export type CheckoutStatus = typeof CheckoutStatus.Type

/** The USD→currency rate a checkout was priced with, kept so the amount never changes afterwards. */
export const RateQuote = Schema.Struct({
  base: Schema.Literal("USD"),
  quote: Currency,
  /** decimal string, e.g. "129.25" (shillings per dollar) */
  rate: Schema.String,
  /** when the source quoted it (ms) */
  quotedAt: Schema.Number,
  source: Schema.String,
})
/** The USD→currency rate a checkout was priced with. */
export type RateQuote = typeof RateQuote.Type

/** One attempt to pay for a plan. Amounts are in minor units (cents). */
export const Checkout = Schema.Struct({
  id: Schema.String,
  clientId: Schema.String,
  userId: Schema.String,
  plan: PlanId,
  period: BillingPeriod,
  method: PaymentMethod,
  priceUsdMinor: Schema.Int,
  currency: Currency,
  amountMinor: Schema.Int,
  /** null when charged in USD */
  rateQuote: Schema.NullOr(RateQuote),
  status: CheckoutStatus,
  /** the payment provider's reference once submitted */
  providerReference: Schema.NullOr(Schema.String),
  failureReason: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  updatedAt: Schema.Number,
  paidAt: Schema.NullOr(Schema.Number),
})
/** One attempt to pay for a plan. */
export type Checkout = typeof Checkout.Type

/** A paid term of a plan for an RP: from payment confirmation for 30 or 365 days. */
export const Subscription = Schema.Struct({
  id: Schema.String,
  clientId: Schema.String,
  plan: PlanId,
  period: BillingPeriod,
  /** the checkout that paid for it; one subscription per checkout */
  checkoutId: Schema.String,
  startsAt: Schema.Number,
  endsAt: Schema.Number,
  createdAt: Schema.Number,
})
/** A paid term of a plan for an RP. */
export type Subscription = typeof Subscription.Type

/** `active` while `startsAt <= now < endsAt`, `expired` after. */
export const subscriptionStatus = (s: Subscription, now: number): "active" | "expired" | "scheduled" =>
  now < s.startsAt ? "scheduled" : now < s.endsAt ? "active" : "expired"

/** Minor units as a decimal string: 891825 → "8918.25". */
export const formatMinor = (minor: number): string => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`

/** A USD amount in another currency at a decimal rate, rounded half up to the cent, in integer arithmetic. */
export const convertMinor = (usdMinor: number, rate: string): number => {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(rate)
  if (match === null) throw new Error(`bad rate ${rate}`)
  const scaled = BigInt(`${match[1]}${(match[2] ?? "").padEnd(6, "0")}`)
  const product = BigInt(usdMinor) * scaled
  return Number((product + 500_000n) / 1_000_000n)
}
