/** Plans, checkout, payment callbacks, and the usage and rate-limit reports of the RP contact account. */
import {
  CheckoutRequest,
  CheckoutView,
  DEFAULT_ALLOWANCE,
  getCheckout,
  PaymentCallbackResponse,
  PLANS,
  PlansResponse,
  RateLimitsResponse,
  receivePaymentCallback,
  rpRateLimits,
  rpUsage,
  startCheckout,
  UsageResponse,
} from "@signet/core"
import { Effect } from "effect"
import { endpoint } from "../http/endpoint.ts"
import { readBody } from "../http/body.ts"

const NOT_FOUND = { status: 404, description: "`Relying party not found` (unknown, or not this account's RP)" }

/** `GET /v2/plans`: the catalogue (public; the same numbers the signing endpoints enforce). */
export const plansEndpoint = endpoint({
  method: "GET",
  path: "/v2/plans",
  tag: "Plans",
  auth: "none",
  summary: "The plan catalogue: prices in USD and allowances; Enterprise figures are agreed with sales (null)",
  response: PlansResponse,
  handle: () =>
    Effect.succeed({
      currency: "USD" as const,
      plans: Object.values(PLANS).map((p) => ({
        id: p.id,
        name: p.name,
        priceUsd: p.priceUsd === null ? null : { monthly: p.priceUsd.monthly, annual: p.priceUsd.annually },
        termDays: { monthly: p.termDays.monthly, annual: p.termDays.annually },
        allowance: p.allowance,
        highestLoa: p.highestLoa,
        agreedWithSales: p.priceUsd === null,
      })),
      defaultAllowance: DEFAULT_ALLOWANCE,
    }),
})

/** `POST /v2/relying-parties/{clientId}/checkout`: pay for a plan (the RP contact account). */
export const checkoutEndpoint = endpoint({
  method: "POST",
  path: "/v2/relying-parties/{clientId}/checkout",
  tag: "Plans",
  auth: "bearer",
  summary: "Buy a plan for 30 (monthly) or 365 (annual) days: priced in USD, charged in USD or KES at a stored quote, by card or mobile money",
  body: CheckoutRequest,
  response: CheckoutView,
  errors: [{ status: 400, description: "a bad plan, period, method, currency, card token or phone" }, NOT_FOUND],
  handle: ({ body, params, user }) => startCheckout(user!, params["clientId"]!, body),
})

/** `GET /v2/relying-parties/{clientId}/checkout/{checkoutId}`: a checkout's state (expired once its time ran out). */
export const checkoutStatusEndpoint = endpoint({
  method: "GET",
  path: "/v2/relying-parties/{clientId}/checkout/{checkoutId}",
  tag: "Plans",
  auth: "bearer",
  summary: "A checkout and the subscription it started",
  response: CheckoutView,
  errors: [NOT_FOUND, { status: 404, description: "`Checkout not found`" }],
  handle: ({ params, user }) => getCheckout(user!, params["clientId"]!, params["checkoutId"]!),
})

const CALLBACK_MAX_BYTES = 64 * 1024

/** `POST /payments/callback/{provider}`: a provider's signed confirmation; repeated deliveries change nothing. */
export const paymentCallbackEndpoint = endpoint({
  method: "POST",
  path: "/payments/callback/{provider}",
  tag: "Plans",
  auth: "none",
  summary:
    "Payment confirmation from a provider (card, mobile_money); raw JSON body signed with HMAC-SHA256 in `Signet-Sandbox-Signature: v1=<hex>`; idempotent",
  response: PaymentCallbackResponse,
  errors: [
    { status: 401, description: "`Invalid payment callback signature`" },
    { status: 404, description: "`Checkout not found`" },
    { status: 409, description: "`Checkout in status <status> cannot be <confirmed|failed>`" },
  ],
  handle: ({ params, request }) =>
    Effect.gen(function* () {
      // The signature covers the exact bytes, so the body is read raw (through the bounded reader, never all of it first).
      const body = new TextDecoder().decode(yield* readBody(request, CALLBACK_MAX_BYTES))
      return yield* receivePaymentCallback(params["provider"]!, (name) => request.headers.get(name), body)
    }),
})

/** `GET /rp/usage/{clientId}`: today's signatures and the current per-minute windows (the RP contact account). */
export const usageEndpoint = endpoint({
  method: "GET",
  path: "/rp/usage/{clientId}",
  tag: "Plans",
  auth: "bearer",
  summary: "Consumption: signatures today (UTC day) and this minute's signing requests per signed-in user",
  response: UsageResponse,
  errors: [NOT_FOUND],
  handle: ({ params, user }) => rpUsage(user!, params["clientId"]!),
})

/** `GET /rp/rate-limits/{clientId}`: the plan in force, its limits, consumption and reset times. */
export const rateLimitsEndpoint = endpoint({
  method: "GET",
  path: "/rp/rate-limits/{clientId}",
  tag: "Plans",
  auth: "bearer",
  summary: "The plan in force and its limits with current consumption and reset times",
  response: RateLimitsResponse,
  errors: [NOT_FOUND],
  handle: ({ params, user }) => rpRateLimits(user!, params["clientId"]!),
})

/** Plan, checkout, payment and usage endpoints in document order. */
export const planEndpoints = [plansEndpoint, checkoutEndpoint, checkoutStatusEndpoint, paymentCallbackEndpoint, usageEndpoint, rateLimitsEndpoint] as const
