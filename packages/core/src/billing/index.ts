/** Public surface of the billing capability: plans' checkout, payments and usage. */
export { applyCheckoutCommand } from "./checkout-machine.ts"
export type { CheckoutCommand, CheckoutEvent, CheckoutStep } from "./checkout-machine.ts"
export { CHECKOUT_LIFETIME_MS, getCheckout, receivePaymentCallback, startCheckout } from "./checkout.ts"
export type { CheckoutInput } from "./checkout.ts"
export {
  AllowanceView,
  CheckoutRequest,
  CheckoutView,
  IsoTimestamp,
  PaymentCallbackResponse,
  PlansResponse,
  RateLimitsResponse,
  SubscriptionView,
  UsageResponse,
} from "./contract.ts"
export { CheckoutTransitionNotAllowed, PaymentCallbackSignatureInvalid, billingErrors } from "./errors.ts"
export type { BillingError } from "./errors.ts"
export {
  BillingPeriod,
  Checkout,
  CheckoutStatus,
  Currency,
  PERIOD_DAYS,
  PaymentMethod,
  RateQuote,
  Subscription,
  convertMinor,
  formatMinor,
  subscriptionStatus,
} from "./model.ts"
export { ExchangeRates, Payments } from "./payments.ts"
export type { PaymentConfirmation, PaymentOrder, PaymentStart } from "./payments.ts"
export { Checkouts, Subscriptions, UsageHistory } from "./ports.ts"
export type { UsageDay } from "./ports.ts"
export { usageHistory } from "./history.ts"
export { rpRateLimits, rpUsage } from "./usage.ts"
