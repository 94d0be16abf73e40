/**
 * Checkout: price a plan in USD (converted at a stored quote when charged in KES), ask the
 * payment provider to collect, and start a subscription when the provider confirms. The
 * provider's confirmations arrive at `POST /payments/callback/{provider}`, signed; repeated
 * deliveries change nothing (the machine treats them as no-ops and a checkout starts at most
 * one subscription, which the unique checkout id of the subscriptions table also guarantees).
 */
import { Clock, Effect, Option, Schema } from "effect"
import { InvalidRequest, ResourceNotFound } from "../kernel/errors.ts"
import { PaymentCallbackSignatureInvalid } from "./errors.ts"
import { ExchangeRates, Payments } from "./payments.ts"
import { Checkouts, Subscriptions } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import { PLANS } from "../rp/plans.ts"
import { PlanId } from "../rp/model.ts"
import type { BearerUser } from "../identity/access-token.ts"
import { token } from "../ports/random.ts"
import { applyCheckoutCommand, type CheckoutCommand, type CheckoutEvent } from "./checkout-machine.ts"
import { BillingPeriod, convertMinor, Currency, formatMinor, PaymentMethod, PERIOD_DAYS, type Checkout } from "./model.ts"
import { contactsRelyingParty, subscriptionView } from "./usage.ts"

const DAY_MS = 86_400_000
/** How long a checkout waits for the payment before it expires (a mobile-money prompt times out well before). */
export const CHECKOUT_LIFETIME_MS = 15 * 60_000

const iso = (ms: number) => new Date(ms).toISOString()

/** The body of `POST /v2/relying-parties/{clientId}/checkout`. */
export interface CheckoutInput {
  readonly plan: string
  readonly period: string
  readonly method: string
  readonly currency?: string | undefined
  readonly cardToken?: string | undefined
  readonly phone?: string | undefined
}

const oneOf = <A extends string>(schema: Schema.Schema<A>, field: string, value: unknown) =>
  Schema.decodeUnknown(schema)(value).pipe(
    Effect.mapError(() => new InvalidRequest({ detail: `${field} must be one of ${String(schema.ast).replace(/"/g, "")}` })),
  )

/** A checkout as the API shows it. */
export const checkoutView = (c: Checkout) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const subscription =
      c.status === "paid" ? ((yield* Effect.flatMap(Subscriptions, (s) => s.listForRp(c.clientId))).find((s) => s.checkoutId === c.id) ?? null) : null
    return {
      checkoutId: c.id,
      clientId: c.clientId,
      plan: c.plan,
      period: c.period,
      method: c.method,
      status: c.status,
      priceUsd: formatMinor(c.priceUsdMinor),
      amount: { currency: c.currency, value: formatMinor(c.amountMinor) },
      exchangeRate: c.rateQuote === null ? null : { ...c.rateQuote, quotedAt: iso(c.rateQuote.quotedAt) },
      providerReference: c.providerReference,
      failureReason: c.failureReason,
      createdAt: iso(c.createdAt),
      expiresAt: iso(c.expiresAt),
      paidAt: c.paidAt === null ? null : iso(c.paidAt),
      subscription: subscription === null ? null : subscriptionView(subscription, now),
    }
  })

/**
 * Applies the commands `commandsFor` picks for the stored checkout, in one transaction
 * (compare-and-set on the status, retried on a concurrent change), and starts the
 * subscription when it became paid.
 */
export const advanceCheckout = (checkoutId: string, commandsFor: (current: Checkout) => ReadonlyArray<CheckoutCommand>) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const attempt = storage.transaction(
      Effect.gen(function* () {
        const repo = yield* Checkouts
        let current = yield* Effect.flatMap(
          repo.findById(checkoutId),
          Option.match({
            onNone: () => Effect.fail(new ResourceNotFound({ what: "Checkout" })),
            onSome: Effect.succeed,
          }),
        )
        const stored = current.status
        const at = yield* Clock.currentTimeMillis
        const events: Array<CheckoutEvent> = []
        for (const command of commandsFor(current)) {
          const step = yield* applyCheckoutCommand(current, command, at)
          current = step.checkout
          events.push(...step.events)
        }
        if (events.length === 0) return Option.some(current)
        if (!(yield* repo.update(current, stored))) return Option.none<Checkout>()
        for (const event of events) {
          if (event._tag !== "CheckoutPaid") continue
          const subscription = {
            id: `sub_${yield* token(12)}`,
            clientId: current.clientId,
            plan: current.plan,
            period: current.period,
            checkoutId: current.id,
            startsAt: event.at,
            endsAt: event.at + PERIOD_DAYS[current.period] * DAY_MS,
            createdAt: at,
          }
          // A unique checkout id: a confirmation racing this one cannot start a second term.
          yield* Effect.flatMap(Subscriptions, (s) => s.insert(subscription)).pipe(Effect.catchTag("UniqueViolation", () => Effect.void))
        }
        return Option.some(current)
      }),
    )
    for (let i = 0; ; i++) {
      const done = yield* attempt
      if (Option.isSome(done)) return done.value
      if (i >= 3) return yield* Effect.die(new Error(`checkout ${checkoutId} kept changing under concurrent updates`))
    }
  })

/** `POST /v2/relying-parties/{clientId}/checkout` (the RP contact account). */
export const startCheckout = (user: BearerUser, clientId: string, input: CheckoutInput) =>
  Effect.gen(function* () {
    const rp = yield* contactsRelyingParty(user, clientId)
    const planId = yield* oneOf(PlanId, "plan", input.plan)
    const period = yield* oneOf(BillingPeriod, "period", input.period)
    const method = yield* oneOf(PaymentMethod, "method", input.method)
    const currency = yield* oneOf(Currency, "currency", input.currency ?? (method === "mobile_money" ? "KES" : "USD"))
    const price = PLANS[planId].priceUsd
    if (price === null) return yield* new InvalidRequest({ detail: `plan ${planId} is agreed with sales and cannot be bought at checkout` })
    if (method === "card" && (input.cardToken === undefined || !/^tok_[A-Za-z0-9_]{4,100}$/.test(input.cardToken))) {
      return yield* new InvalidRequest({ detail: "cardToken is required for card payments (a token of the provider, tok_…)" })
    }
    if (method === "mobile_money") {
      if (input.phone === undefined || !/^\+\d{9,15}$/.test(input.phone)) {
        return yield* new InvalidRequest({ detail: "phone is required for mobile money, in E.164 form (+2547…)" })
      }
      if (currency !== "KES") return yield* new InvalidRequest({ detail: "mobile money is charged in KES" })
    }
    const priceUsdMinor = (period === "monthly" ? price.monthly : price.annually) * 100
    const rateQuote = currency === "USD" ? null : yield* Effect.flatMap(ExchangeRates, (x) => x.quote(currency))
    const now = yield* Clock.currentTimeMillis
    const checkout: Checkout = {
      id: `chk_${yield* token(16)}`,
      clientId: rp.clientId,
      userId: user.userId,
      plan: planId,
      period,
      method,
      priceUsdMinor,
      currency,
      amountMinor: rateQuote === null ? priceUsdMinor : convertMinor(priceUsdMinor, rateQuote.rate),
      rateQuote,
      status: "created",
      providerReference: null,
      failureReason: null,
      createdAt: now,
      expiresAt: now + CHECKOUT_LIFETIME_MS,
      updatedAt: now,
      paidAt: null,
    }
    yield* Effect.flatMap(Checkouts, (c) => c.insert(checkout)).pipe(Effect.orDie)
    // The provider is called outside any transaction; its confirmation may even arrive before we store `pending`.
    const started = yield* Effect.flatMap(Payments, (p) =>
      p.start({
        checkoutId: checkout.id,
        method,
        currency,
        amountMinor: checkout.amountMinor,
        description: `Signet ${PLANS[planId].name} (${period}) for ${rp.clientId}`,
        cardToken: input.cardToken,
        phone: input.phone,
      }),
    )
    const commands: ReadonlyArray<CheckoutCommand> =
      started.outcome === "declined"
        ? [{ _tag: "Fail", reason: started.reason }]
        : started.outcome === "succeeded"
          ? [
              { _tag: "Submit", reference: started.reference },
              { _tag: "Confirm", reference: started.reference },
            ]
          : [{ _tag: "Submit", reference: started.reference }]
    // If the provider's callback got here first, the checkout already moved on: leave it.
    const after = yield* advanceCheckout(checkout.id, (current) => (current.status === "created" ? commands : []))
    return yield* checkoutView(after)
  })

/** `GET /v2/relying-parties/{clientId}/checkout/{checkoutId}`: the checkout, expired first if its time ran out. */
export const getCheckout = (user: BearerUser, clientId: string, checkoutId: string) =>
  Effect.gen(function* () {
    const rp = yield* contactsRelyingParty(user, clientId)
    const found = yield* Effect.flatMap(Checkouts, (c) => c.findById(checkoutId))
    if (Option.isNone(found) || found.value.clientId !== rp.clientId) return yield* new ResourceNotFound({ what: "Checkout" })
    const now = yield* Clock.currentTimeMillis
    const open = found.value.status === "created" || found.value.status === "pending"
    const current =
      open && now >= found.value.expiresAt
        ? yield* advanceCheckout(checkoutId, (c) => (c.status === "created" || c.status === "pending" ? [{ _tag: "Expire" }] : [])).pipe(Effect.orDie)
        : found.value
    return yield* checkoutView(current)
  })

/** `POST /payments/callback/{provider}`: a signed, possibly repeated, payment confirmation. */
export const receivePaymentCallback = (provider: string, header: (name: string) => string | null, body: string) =>
  Effect.gen(function* () {
    const read = yield* Effect.flatMap(Payments, (p) => p.readCallback(provider, header, body))
    if (Option.isNone(read)) return yield* new PaymentCallbackSignatureInvalid()
    const confirmation = read.value
    const outcome: CheckoutCommand =
      confirmation.outcome === "succeeded"
        ? { _tag: "Confirm", reference: confirmation.reference }
        : { _tag: "Fail", reason: confirmation.reason ?? "payment failed" }
    // The callback can overtake the provider's answer to our own request: submit first then.
    const after = yield* advanceCheckout(confirmation.checkoutId, (current) =>
      current.status === "created" ? [{ _tag: "Submit", reference: confirmation.reference }, outcome] : [outcome],
    )
    return { received: true as const, eventId: confirmation.eventId, checkoutId: after.id, status: after.status }
  })
