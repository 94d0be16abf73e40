/** Ports of the checkout: exchange rates for pricing and a payment provider per method. */
import { Context, type Effect, type Option } from "effect"
import type { Currency, PaymentMethod, RateQuote } from "./model.ts"
import type { NotConfigured } from "../kernel/errors.ts"

/** Where exchange rates come from; a quote is stored with the checkout it priced. */
export class ExchangeRates extends Context.Tag("@signet/core/ExchangeRates")<
  ExchangeRates,
  {
    /** The current rate from US dollars to `quote`; 503 `Currency conversion is not configured on this server` without a source. */
    readonly quote: (quote: Exclude<Currency, "USD">) => Effect.Effect<RateQuote, NotConfigured>
  }
>() {}

/** A payment the engine asks a provider to collect. */
export interface PaymentOrder {
  readonly checkoutId: string
  readonly method: PaymentMethod
  readonly currency: Currency
  readonly amountMinor: number
  readonly description: string
  /** card: the provider's token of the card details (the engine never sees card numbers) */
  readonly cardToken?: string | undefined
  /** mobile money: the payer's phone number (E.164) */
  readonly phone?: string | undefined
}

/** The provider's first answer: paid at once, accepted with a confirmation to follow, or declined. */
export type PaymentStart =
  | { readonly outcome: "succeeded"; readonly reference: string }
  | { readonly outcome: "pending"; readonly reference: string }
  | { readonly outcome: "declined"; readonly reference: string | null; readonly reason: string }

/** A provider's asynchronous confirmation, once its signature verified. */
export interface PaymentConfirmation {
  /** the provider's id of this notification (a repeated delivery carries the same one) */
  readonly eventId: string
  readonly checkoutId: string
  readonly reference: string
  readonly outcome: "succeeded" | "failed"
  readonly reason: string | null
}

/** Payment providers: start a payment and read their signed callbacks. */
export class Payments extends Context.Tag("@signet/core/Payments")<
  Payments,
  {
    /** Asks the provider of `order.method` to collect the amount. */
    readonly start: (order: PaymentOrder) => Effect.Effect<PaymentStart>
    /**
     * Reads a callback of `provider` (`card` or `mobile_money`) from its raw body and headers;
     * None when the signature does not verify (or the provider is unknown).
     */
    readonly readCallback: (provider: string, header: (name: string) => string | null, body: string) => Effect.Effect<Option.Option<PaymentConfirmation>>
  }
>() {}
