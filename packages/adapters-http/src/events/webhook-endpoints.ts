/** Webhook subscriptions and the delivery log, for the RP contact account. */
import {
  deleteWebhook,
  DeleteWebhookResponse,
  listDeliveries,
  ListDeliveriesResponse,
  listWebhooks,
  ListWebhooksResponse,
  registerWebhook,
  RegisterWebhookRequest,
  RegisterWebhookResponse,
  ResourceNotFound,
} from "@signet/core"
import { Effect, Schema } from "effect"
import { endpoint } from "../http/endpoint.ts"

const CONTACT_403 = { status: 403, description: "`Only the RP contact account can manage webhooks`, `RP registration not approved. Status: <status>`" }
const LIMIT_429 = { status: 429, description: "`Rate limit exceeded. Please try again later.`" }

/** `POST /v2/webhooks/register` (10 per minute per user). */
export const registerWebhookEndpoint = endpoint({
  method: "POST",
  path: "/v2/webhooks/register",
  tag: "Webhooks",
  auth: "bearer",
  summary: "Subscribe a public https URL to sign.complete, batch.complete and/or kyc.reviewed deliveries (Standard Webhooks)",
  body: RegisterWebhookRequest,
  response: RegisterWebhookResponse,
  errors: [{ status: 400, description: "a bad `url` (not public https), `events` or `secret`" }, CONTACT_403, LIMIT_429],
  handle: ({ body, user }) => registerWebhook(user!, body),
})

/** `GET /v2/webhooks` (30 per minute per user). */
export const listWebhooksEndpoint = endpoint({
  method: "GET",
  path: "/v2/webhooks",
  tag: "Webhooks",
  auth: "bearer",
  summary: "The RP's active webhook subscriptions",
  response: ListWebhooksResponse,
  errors: [CONTACT_403, LIMIT_429],
  handle: ({ user }) => listWebhooks(user!),
})

const subscriptionId = (raw: string) =>
  /^\d{1,9}$/.test(raw) ? Effect.succeed(Number(raw)) : Effect.fail(new ResourceNotFound({ what: "Webhook subscription" }))

/** `DELETE /v2/webhooks/{id}` (20 per minute per user). */
export const deleteWebhookEndpoint = endpoint({
  method: "DELETE",
  path: "/v2/webhooks/{id}",
  tag: "Webhooks",
  auth: "bearer",
  params: { id: Schema.Int.pipe(Schema.between(1, 999_999_999)).annotations({ description: "the subscription id from /v2/webhooks/register" }) },
  summary: "Delete a subscription; `deleted` is false when it belongs to another account",
  response: DeleteWebhookResponse,
  errors: [CONTACT_403, { status: 404, description: "`Webhook subscription not found`" }, LIMIT_429],
  handle: ({ params, user }) => Effect.flatMap(subscriptionId(params["id"]!), (id) => deleteWebhook(user!, id)),
})

/** `GET /v2/deliveries`: every webhook and callback delivery of the RP with each attempt's outcome. */
export const listDeliveriesEndpoint = endpoint({
  method: "GET",
  path: "/v2/deliveries",
  tag: "Webhooks",
  auth: "bearer",
  summary: "The RP's webhook and callback deliveries (newest 100, optionally ?subscriptionId=), with every attempt",
  response: ListDeliveriesResponse,
  errors: [CONTACT_403, LIMIT_429],
  handle: ({ user, query }) => {
    const raw = query.get("subscriptionId")
    return raw === null ? listDeliveries(user!, null) : Effect.flatMap(subscriptionId(raw), (id) => listDeliveries(user!, id))
  },
})

/** Webhook endpoints in document order. */
export const webhookEndpoints = [registerWebhookEndpoint, listWebhooksEndpoint, deleteWebhookEndpoint, listDeliveriesEndpoint] as const
