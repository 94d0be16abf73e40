/**
 * The billing contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"
import { Loa } from "../rp/model.ts"

// plans endpoints
/** A plan's allowance: signatures per day, batch size, requests per minute, highest LOA. */
export const AllowanceView = Schema.Struct({
  signaturesPerDay: Schema.Int,
  documentsPerBatch: Schema.Int,
  requestsPerMinute: Schema.Int,
  highestLoa: Loa,
})
/** An ISO 8601 time (UTC). */
export const IsoTimestamp = Schema.String.annotations({ description: "ISO 8601 (UTC)" })
/** An RP's subscription as its contact sees it. */
export const SubscriptionView = Schema.Struct({
  id: Schema.String,
  plan: Schema.Literal("starter", "business", "enterprise"),
  period: Schema.Literal("monthly", "annual"),
  status: Schema.Literal("active", "expired", "scheduled"),
  startsAt: IsoTimestamp,
  endsAt: IsoTimestamp,
})
/** A checkout as its contact sees it. */
export const CheckoutView = Schema.Struct({
  checkoutId: Schema.String,
  clientId: Schema.String,
  plan: Schema.Literal("starter", "business", "enterprise"),
  period: Schema.Literal("monthly", "annual"),
  method: Schema.Literal("card", "mobile_money"),
  status: Schema.Literal("created", "pending", "paid", "failed", "expired"),
  priceUsd: Schema.String.annotations({ description: 'decimal, e.g. "69.00"' }),
  amount: Schema.Struct({ currency: Schema.Literal("USD", "KES"), value: Schema.String }),
  exchangeRate: Schema.NullOr(
    Schema.Struct({
      base: Schema.Literal("USD"),
      quote: Schema.Literal("USD", "KES"),
      rate: Schema.String,
      quotedAt: IsoTimestamp,
      source: Schema.String,
    }),
  ),
  providerReference: Schema.NullOr(Schema.String),
  failureReason: Schema.NullOr(Schema.String),
  createdAt: IsoTimestamp,
  expiresAt: IsoTimestamp,
  paidAt: Schema.NullOr(IsoTimestamp),
  subscription: Schema.NullOr(SubscriptionView),
})
/** Answer of `GET /v2/plans`. */
export const PlansResponse = Schema.Struct({
  currency: Schema.Literal("USD"),
  plans: Schema.Array(
    Schema.Struct({
      id: Schema.Literal("starter", "business", "enterprise"),
      name: Schema.String,
      priceUsd: Schema.NullOr(Schema.Struct({ monthly: Schema.Number, annual: Schema.Number })),
      termDays: Schema.Struct({ monthly: Schema.Int, annual: Schema.Int }),
      allowance: Schema.NullOr(AllowanceView),
      highestLoa: Loa,
      agreedWithSales: Schema.Boolean,
    }),
  ),
  defaultAllowance: AllowanceView,
})
/** Body of `POST /v2/relying-parties/{clientId}/checkout`. */
export const CheckoutRequest = Schema.Struct({
  plan: Schema.String.annotations({ description: "starter or business (Enterprise is agreed with sales)" }),
  period: Schema.String.annotations({ description: "monthly or annual" }),
  method: Schema.String.annotations({ description: "card or mobile_money" }),
  currency: Schema.optional(Schema.String.annotations({ description: "USD or KES; default USD for card, KES for mobile money" })),
  cardToken: Schema.optional(Schema.String.annotations({ description: "card: the provider's token of the card (sandbox: tok_<test card number>)" })),
  phone: Schema.optional(Schema.String.annotations({ description: "mobile money: the payer's phone, E.164" })),
})
/** Answer of `POST /payments/callback/{provider}`. */
export const PaymentCallbackResponse = Schema.Struct({
  received: Schema.Literal(true),
  eventId: Schema.String,
  checkoutId: Schema.String,
  status: Schema.Literal("created", "pending", "paid", "failed", "expired"),
})
/** Answer of `GET /rp/usage/{clientId}`. */
export const UsageResponse = Schema.Struct({
  clientId: Schema.String,
  at: IsoTimestamp,
  day: Schema.String.annotations({ description: "YYYY-MM-DD (UTC)" }),
  signaturesToday: Schema.Int,
  dayResetsAt: IsoTimestamp,
  perMinute: Schema.Struct({
    windowStart: IsoTimestamp,
    windowEnd: IsoTimestamp,
    signingRequestsByUser: Schema.Array(Schema.Struct({ userId: Schema.String, requests: Schema.Int })),
    signingTokenRequests: Schema.Int,
  }),
})
/** Answer of `GET /rp/rate-limits/{clientId}`. */
export const RateLimitsResponse = Schema.Struct({
  clientId: Schema.String,
  at: IsoTimestamp,
  plan: Schema.Struct({
    id: Schema.NullOr(Schema.Literal("starter", "business", "enterprise")),
    name: Schema.String,
    source: Schema.Literal("subscription", "administrator", "default"),
    customAllowance: Schema.Boolean,
    subscription: Schema.NullOr(SubscriptionView),
    latestSubscription: Schema.NullOr(SubscriptionView),
  }),
  limits: Schema.Struct({
    signaturesPerDay: Schema.Int,
    requestsPerMinute: Schema.Int,
    documentsPerBatch: Schema.Int,
    highestLoa: Loa,
    maximumLoa: Loa,
    kycVerified: Schema.Boolean,
  }),
  daily: Schema.Struct({ used: Schema.Int, limit: Schema.Int, remaining: Schema.Int, resetsAt: IsoTimestamp }),
  perMinute: Schema.Struct({
    limit: Schema.Int,
    counter: Schema.Literal("signed-in user"),
    windowStart: IsoTimestamp,
    resetsAt: IsoTimestamp,
    users: Schema.Array(Schema.Struct({ userId: Schema.String, requests: Schema.Int, remaining: Schema.Int })),
    signingToken: Schema.Struct({ requests: Schema.Int, remaining: Schema.Int }),
  }),
})
