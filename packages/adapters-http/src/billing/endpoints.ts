/** Plans, checkout, payment callbacks, and the usage and rate-limit reports of the RP contact account. */
import {
  DEFAULT_ALLOWANCE, getCheckout, PLANS, receivePaymentCallback, rpRateLimits, rpUsage, startCheckout,
} from "@signet/core"
import { Effect, Schema } from "effect"
import { endpoint } from "../http/endpoint.ts"
import { readBody } from "../http/body.ts"

const Loa = Schema.Literal("LOA-2", "LOA-4")
const AllowanceView = Schema.Struct({
  signaturesPerDay: Schema.Int, documentsPerBatch: Schema.Int, requestsPerMinute: Schema.Int, highestLoa: Loa,
})
const NOT_FOUND = { status: 404, description: "`Relying party not found` (unknown, or not this account's RP)" }
const Iso = Schema.String.annotations({ description: "ISO 8601 (UTC)" })
const SubscriptionView = Schema.Struct({
  id: Schema.String, plan: Schema.Literal("starter", "business", "enterprise"), period: Schema.Literal("monthly", "annual"),
  status: Schema.Literal("active", "expired", "scheduled"), startsAt: Iso, endsAt: Iso,
})

/** `GET /v2/plans`: the catalogue (public; the same numbers the signing endpoints enforce). */
export const plansEndpoint = endpoint({
  method: "GET", path: "/v2/plans", tag: "Plans", auth: "none",
  summary: "The plan catalogue: prices in USD and allowances; Enterprise figures are agreed with sales (null)",
  response: Schema.Struct({
    currency: Schema.Literal("USD"),
    plans: Schema.Array(Schema.Struct({
      id: Schema.Literal("starter", "business", "enterprise"), name: Schema.String,
      priceUsd: Schema.NullOr(Schema.Struct({ monthly: Schema.Number, annual: Schema.Number })),
      termDays: Schema.Struct({ monthly: Schema.Int, annual: Schema.Int }),
      allowance: Schema.NullOr(AllowanceView),
      highestLoa: Loa,
      agreedWithSales: Schema.Boolean,
    })),
    defaultAllowance: AllowanceView,
  }),
  handle: () => Effect.succeed({
    currency: "USD" as const,
    plans: Object.values(PLANS).map((p) => ({
      id: p.id, name: p.name,
      priceUsd: p.priceUsd === null ? null : { monthly: p.priceUsd.monthly, annual: p.priceUsd.annually },
      termDays: { monthly: p.termDays.monthly, annual: p.termDays.annually },
      allowance: p.allowance, highestLoa: p.highestLoa, agreedWithSales: p.priceUsd === null,
    })),
    defaultAllowance: DEFAULT_ALLOWANCE,
  }),
})

const CheckoutView = Schema.Struct({
  checkoutId: Schema.String, clientId: Schema.String,
  plan: Schema.Literal("starter", "business", "enterprise"), period: Schema.Literal("monthly", "annual"),
  method: Schema.Literal("card", "mobile_money"),
  status: Schema.Literal("created", "pending", "paid", "failed", "expired"),
  priceUsd: Schema.String.annotations({ description: "decimal, e.g. \"69.00\"" }),
  amount: Schema.Struct({ currency: Schema.Literal("USD", "KES"), value: Schema.String }),
  exchangeRate: Schema.NullOr(Schema.Struct({
    base: Schema.Literal("USD"), quote: Schema.Literal("USD", "KES"), rate: Schema.String, quotedAt: Iso, source: Schema.String,
  })),
  providerReference: Schema.NullOr(Schema.String), failureReason: Schema.NullOr(Schema.String),
  createdAt: Iso, expiresAt: Iso, paidAt: Schema.NullOr(Iso),
  subscription: Schema.NullOr(SubscriptionView),
})

/** `POST /v2/relying-parties/{clientId}/checkout`: pay for a plan (the RP contact account). */
export const checkoutEndpoint = endpoint({
  method: "POST", path: "/v2/relying-parties/{clientId}/checkout", tag: "Plans", auth: "bearer",
  summary: "Buy a plan for 30 (monthly) or 365 (annual) days: priced in USD, charged in USD or KES at a stored quote, by card or mobile money",
  body: Schema.Struct({
    plan: Schema.String.annotations({ description: "starter or business (Enterprise is agreed with sales)" }),
    period: Schema.String.annotations({ description: "monthly or annual" }),
    method: Schema.String.annotations({ description: "card or mobile_money" }),
    currency: Schema.optional(Schema.String.annotations({ description: "USD or KES; default USD for card, KES for mobile money" })),
    cardToken: Schema.optional(Schema.String.annotations({ description: "card: the provider's token of the card (sandbox: tok_<test card number>)" })),
    phone: Schema.optional(Schema.String.annotations({ description: "mobile money: the payer's phone, E.164" })),
  }),
  response: CheckoutView,
  errors: [{ status: 400, description: "a bad plan, period, method, currency, card token or phone" }, NOT_FOUND],
  handle: ({ body, params, user }) => startCheckout(user!, params["clientId"]!, body),
})

/** `GET /v2/relying-parties/{clientId}/checkout/{checkoutId}`: a checkout's state (expired once its time ran out). */
export const checkoutStatusEndpoint = endpoint({
  method: "GET", path: "/v2/relying-parties/{clientId}/checkout/{checkoutId}", tag: "Plans", auth: "bearer",
  summary: "A checkout and the subscription it started",
  response: CheckoutView,
  errors: [NOT_FOUND, { status: 404, description: "`Checkout not found`" }],
  handle: ({ params, user }) => getCheckout(user!, params["clientId"]!, params["checkoutId"]!),
})

const CALLBACK_MAX_BYTES = 64 * 1024

/** `POST /payments/callback/{provider}`: a provider's signed confirmation; repeated deliveries change nothing. */
export const paymentCallbackEndpoint = endpoint({
  method: "POST", path: "/payments/callback/{provider}", tag: "Plans", auth: "none",
  summary: "Payment confirmation from a provider (card, mobile_money); raw JSON body signed with HMAC-SHA256 in `Signet-Sandbox-Signature: v1=<hex>`; idempotent",
  response: Schema.Struct({
    received: Schema.Literal(true), eventId: Schema.String, checkoutId: Schema.String,
    status: Schema.Literal("created", "pending", "paid", "failed", "expired"),
  }),
  errors: [
    { status: 401, description: "`Invalid payment callback signature`" },
    { status: 404, description: "`Checkout not found`" },
    { status: 409, description: "`Checkout in status <status> cannot be <confirmed|failed>`" },
  ],
  handle: ({ params, request }) => Effect.gen(function* () {
    // The signature covers the exact bytes, so the body is read raw (through the bounded reader, never all of it first).
    const body = new TextDecoder().decode(yield* readBody(request, CALLBACK_MAX_BYTES))
    return yield* receivePaymentCallback(params["provider"]!, (name) => request.headers.get(name), body)
  }),
})

/** `GET /rp/usage/{clientId}`: today's signatures and the current per-minute windows (the RP contact account). */
export const usageEndpoint = endpoint({
  method: "GET", path: "/rp/usage/{clientId}", tag: "Plans", auth: "bearer",
  summary: "Consumption: signatures today (UTC day) and this minute's signing requests per signed-in user",
  response: Schema.Struct({
    clientId: Schema.String, at: Iso, day: Schema.String.annotations({ description: "YYYY-MM-DD (UTC)" }),
    signaturesToday: Schema.Int, dayResetsAt: Iso,
    perMinute: Schema.Struct({
      windowStart: Iso, windowEnd: Iso,
      signingRequestsByUser: Schema.Array(Schema.Struct({ userId: Schema.String, requests: Schema.Int })),
      signingTokenRequests: Schema.Int,
    }),
  }),
  errors: [NOT_FOUND],
  handle: ({ params, user }) => rpUsage(user!, params["clientId"]!),
})

/** `GET /rp/rate-limits/{clientId}`: the plan in force, its limits, consumption and reset times. */
export const rateLimitsEndpoint = endpoint({
  method: "GET", path: "/rp/rate-limits/{clientId}", tag: "Plans", auth: "bearer",
  summary: "The plan in force and its limits with current consumption and reset times",
  response: Schema.Struct({
    clientId: Schema.String, at: Iso,
    plan: Schema.Struct({
      id: Schema.NullOr(Schema.Literal("starter", "business", "enterprise")), name: Schema.String,
      source: Schema.Literal("subscription", "administrator", "default"), customAllowance: Schema.Boolean,
      subscription: Schema.NullOr(SubscriptionView), latestSubscription: Schema.NullOr(SubscriptionView),
    }),
    limits: Schema.Struct({
      signaturesPerDay: Schema.Int, requestsPerMinute: Schema.Int, documentsPerBatch: Schema.Int,
      highestLoa: Loa, maximumLoa: Loa, kycVerified: Schema.Boolean,
    }),
    daily: Schema.Struct({ used: Schema.Int, limit: Schema.Int, remaining: Schema.Int, resetsAt: Iso }),
    perMinute: Schema.Struct({
      limit: Schema.Int, counter: Schema.Literal("signed-in user"), windowStart: Iso, resetsAt: Iso,
      users: Schema.Array(Schema.Struct({ userId: Schema.String, requests: Schema.Int, remaining: Schema.Int })),
      signingToken: Schema.Struct({ requests: Schema.Int, remaining: Schema.Int }),
    }),
  }),
  errors: [NOT_FOUND],
  handle: ({ params, user }) => rpRateLimits(user!, params["clientId"]!),
})

/** Plan, checkout, payment and usage endpoints in document order. */
export const planEndpoints = [
  plansEndpoint, checkoutEndpoint, checkoutStatusEndpoint, paymentCallbackEndpoint, usageEndpoint, rateLimitsEndpoint,
] as const
