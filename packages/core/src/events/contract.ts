/**
 * The events contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"

// webhooks endpoints
/** Body of `POST /v2/webhooks/register`. */
export const RegisterWebhookRequest = Schema.Struct({
  url: Schema.String,
  events: Schema.Array(Schema.String),
  secret: Schema.String.annotations({
    description:
      "chosen by the caller: 16 to 256 printable characters (HMAC key: their UTF-8 bytes), or a Standard Webhooks secret whsec_ + base64 of 24 to 64 random bytes (HMAC key: those bytes)",
  }),
})
/** Answer of `POST /v2/webhooks/register`. */
export const RegisterWebhookResponse = Schema.Struct({ subscriptionId: Schema.Int, status: Schema.Literal("active") })
/** Answer of `GET /v2/webhooks`. */
export const ListWebhooksResponse = Schema.Array(
  Schema.Struct({
    id: Schema.Int,
    rp_id: Schema.Int,
    url: Schema.String,
    events: Schema.Array(Schema.String),
    active: Schema.Boolean,
    created_at: Schema.String.annotations({ description: "YYYY-MM-DD HH:MM:SS (UTC)" }),
  }),
)
/** Answer of `DELETE /v2/webhooks/{id}`. */
export const DeleteWebhookResponse = Schema.Struct({ deleted: Schema.Boolean })
/** Answer of `GET /v2/deliveries`. */
export const ListDeliveriesResponse = Schema.Array(
  Schema.Struct({
    id: Schema.Int,
    kind: Schema.Literal("webhook", "callback"),
    subscriptionId: Schema.NullOr(Schema.Int),
    url: Schema.String,
    eventType: Schema.String,
    messageId: Schema.String,
    status: Schema.Literal("pending", "delivered", "failed"),
    attempts: Schema.Int,
    createdAt: Schema.String,
    deliveredAt: Schema.NullOr(Schema.String),
    nextAttemptAt: Schema.NullOr(Schema.String),
    attemptLog: Schema.Array(
      Schema.Struct({
        attempt: Schema.Int,
        at: Schema.String,
        statusCode: Schema.NullOr(Schema.Int),
        error: Schema.NullOr(Schema.String),
        durationMs: Schema.Number,
      }),
    ),
  }),
)
