/** Errors of the billing capability: plans, checkout and payments. */
import { Schema } from "effect"

/** 409: a checkout command that its current status does not allow (or a confirmation for another payment). */
export class CheckoutTransitionNotAllowed extends Schema.TaggedError<CheckoutTransitionNotAllowed>()("CheckoutTransitionNotAllowed", {
  current: Schema.String,
  verb: Schema.String,
}) {
  readonly status = 409 as const
  override get message() {
    return `Checkout in status ${this.current} cannot be ${this.verb}`
  }
}

/** 401: a payment callback whose signature does not verify with the provider's shared secret. */
export class PaymentCallbackSignatureInvalid extends Schema.TaggedError<PaymentCallbackSignatureInvalid>()("PaymentCallbackSignatureInvalid", {}) {
  readonly status = 401 as const
  override get message() {
    return "Invalid payment callback signature"
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const billingErrors = [CheckoutTransitionNotAllowed, PaymentCallbackSignatureInvalid] as const
/** An error of this module. */
export type BillingError = InstanceType<(typeof billingErrors)[number]>
