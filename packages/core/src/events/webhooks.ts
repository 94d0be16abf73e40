/** Webhook subscriptions, managed by the RP's contact account (`/v2/webhooks*`). */
import { Clock, Effect, Option } from "effect"
import { InvalidRequest, ResourceNotFound } from "../kernel/errors.ts"
import { NotRpContactAccount } from "../rp/errors.ts"
import type { BearerUser } from "../identity/access-token.ts"
import { fromBase64, toBase64, utf8 } from "../kernel/encoding.ts"
import { Vault } from "../ports/vault.ts"
import { Deliveries, DeliveryPolicy, type DeliverySettings, WebhookSubscriptions } from "./ports.ts"
import { countRequest } from "../rp/quota.ts"
import { approvedRelyingParty } from "../rp/relying-parties.ts"
import { deliveryUrlProblem } from "./address-guard.ts"
import type { WebhookEventType, WebhookSubscription } from "./model.ts"
import { recordTime } from "./stream.ts"

/** The default policy: 12 attempts from 10 s doubling to at most 2 h apart (about 9 h in all). */
export const DEFAULT_DELIVERY_POLICY: DeliverySettings = { allowLoopbackHttp: false, baseDelayMs: 10_000, maxDelayMs: 2 * 3_600_000, maxAttempts: 12 }

const EVENT_TYPES: ReadonlyArray<WebhookEventType> = ["sign.complete", "batch.complete", "kyc.reviewed"]

/** The shortest caller-chosen (plain) secret: 16 characters, so that the HMAC key cannot be guessed. */
export const MIN_PLAIN_SECRET_LENGTH = 16

/**
 * The HMAC key of a subscription secret, or undefined when the secret is refused. Two kinds
 * (docs/events.md): a Standard Webhooks secret, `whsec_` + base64 of 24 to 64 bytes, whose key
 * is those bytes; any other string is the caller's own secret, whose key is its UTF-8 bytes
 * (16 to 256 characters, printable, so a receiver can type it as it chose it).
 */
export const webhookSecretBytes = (secret: string): Uint8Array | undefined => {
  if (secret.startsWith("whsec_")) {
    const bytes = fromBase64(secret.slice(6))
    return bytes !== undefined && bytes.length >= 24 && bytes.length <= 64 ? bytes : undefined
  }
  const length = [...secret].length
  if (length < MIN_PLAIN_SECRET_LENGTH || length > 256 || /[\u0000-\u001f\u007f]/.test(secret)) return undefined
  return utf8(secret)
}

/** How secrets sealed before caller-chosen secrets existed are read: a bare base64 string was decoded. */
const legacySecretBytes = (secret: string): Uint8Array | undefined => {
  const bytes = fromBase64(secret.startsWith("whsec_") ? secret.slice(6) : secret)
  return bytes !== undefined && bytes.length >= 24 && bytes.length <= 64 ? bytes : undefined
}

// v2 seals hold secrets judged by `webhookSecretBytes`; v1 seals (older subscriptions) keep their old reading.
const SEALED = "sealed:v2:"
const SEALED_V1 = "sealed:v1:"
const secretBinding = (s: { readonly clientId: string; readonly ownerUserId: string; readonly url: string }) =>
  `webhook ${s.clientId} ${s.ownerUserId} ${s.url}`

/** A subscription secret as stored: sealed in the Vault, bound to its RP, owner and URL. */
const sealWebhookSecret = (secret: string, binding: { readonly clientId: string; readonly ownerUserId: string; readonly url: string }) =>
  Effect.flatMap(Vault, (v) => v.seal(utf8(secret), "webhook-secrets", secretBinding(binding))).pipe(Effect.map((b) => `${SEALED}${toBase64(b)}`))

/** The HMAC key bytes of a stored subscription secret. */
export const webhookSigningKey = (subscription: WebhookSubscription) =>
  Effect.gen(function* () {
    const legacy = subscription.secret.startsWith(SEALED_V1)
    const sealed = fromBase64(subscription.secret.slice(SEALED.length)) ?? new Uint8Array()
    const secret = new TextDecoder().decode(yield* Effect.flatMap(Vault, (v) => v.open(sealed, "webhook-secrets", secretBinding(subscription))))
    return (legacy ? legacySecretBytes(secret) : webhookSecretBytes(secret))!
  })

/** The RP whose contact account holds the token; anyone else is 403. */
const contactRp = (user: BearerUser) =>
  Effect.gen(function* () {
    const rp = yield* approvedRelyingParty(user.clientId)
    if (rp.contactUserId !== user.userId) return yield* new NotRpContactAccount()
    return rp
  })

/** `POST /v2/webhooks/register` (10 per minute per user). */
export const registerWebhook = (user: BearerUser, input: { readonly url: string; readonly events: ReadonlyArray<string>; readonly secret: string }) =>
  Effect.gen(function* () {
    yield* countRequest(`webhooks-register:${user.userId}`, 10)
    const rp = yield* contactRp(user)
    const policy = yield* DeliveryPolicy
    const problem = deliveryUrlProblem(input.url, policy.allowLoopbackHttp)
    if (problem !== undefined) return yield* new InvalidRequest({ detail: `url ${problem}: webhooks go to public https URLs` })
    const events = [...new Set(input.events)]
    if (events.length === 0 || events.some((e) => !EVENT_TYPES.includes(e as WebhookEventType))) {
      return yield* new InvalidRequest({ detail: "events must list one or more of sign.complete, batch.complete, kyc.reviewed" })
    }
    if (webhookSecretBytes(input.secret) === undefined) {
      return yield* new InvalidRequest({
        detail:
          "secret must be 16 to 256 printable characters of your choice, or a Standard Webhooks secret (whsec_ followed by base64 of 24 to 64 random bytes)",
      })
    }
    const sealed = yield* sealWebhookSecret(input.secret, { clientId: rp.clientId, ownerUserId: user.userId, url: input.url })
    const subscription = yield* Effect.flatMap(WebhookSubscriptions, (s) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        s.insert({
          rpId: rp.id,
          clientId: rp.clientId,
          ownerUserId: user.userId,
          url: input.url,
          events: events as ReadonlyArray<WebhookEventType>,
          secret: sealed,
          active: true,
          createdAt: now,
        }),
      ),
    )
    return { subscriptionId: subscription.id, status: "active" as const }
  })

/** `GET /v2/webhooks` (30 per minute per user): the RP's active subscriptions. */
export const listWebhooks = (user: BearerUser) =>
  Effect.gen(function* () {
    yield* countRequest(`webhooks-list:${user.userId}`, 30)
    const rp = yield* contactRp(user)
    const subscriptions = yield* Effect.flatMap(WebhookSubscriptions, (s) => s.listActive(rp.clientId))
    return subscriptions.map((s) => ({
      id: s.id,
      rp_id: s.rpId,
      url: s.url,
      events: s.events,
      active: s.active,
      created_at: recordTime(s.createdAt),
    }))
  })

/** `DELETE /v2/webhooks/{id}` (20 per minute per user): `deleted` false for another account's subscription. */
export const deleteWebhook = (user: BearerUser, id: number) =>
  Effect.gen(function* () {
    yield* countRequest(`webhooks-delete:${user.userId}`, 20)
    yield* contactRp(user)
    const subscriptions = yield* WebhookSubscriptions
    const found = yield* subscriptions.findById(id)
    if (Option.isNone(found) || !found.value.active) return yield* new ResourceNotFound({ what: "Webhook subscription" })
    if (found.value.ownerUserId !== user.userId) return { deleted: false }
    yield* subscriptions.deactivate(id)
    return { deleted: true }
  })

/** `GET /v2/deliveries`: the RP's webhook and callback deliveries with every attempt's outcome. */
export const listDeliveries = (user: BearerUser, subscriptionId: number | null) =>
  Effect.gen(function* () {
    yield* countRequest(`webhooks-list:${user.userId}`, 30)
    const rp = yield* contactRp(user)
    const deliveries = yield* Deliveries
    const list = yield* deliveries.listForClient(rp.clientId, subscriptionId, 100)
    return yield* Effect.forEach(list, (d) =>
      Effect.map(deliveries.attemptsOf(d.id), (attempts) => ({
        id: d.id,
        kind: d.kind,
        subscriptionId: d.subscriptionId,
        url: d.url,
        eventType: d.eventType,
        messageId: d.messageId,
        status: d.status,
        attempts: d.attempts,
        createdAt: new Date(d.createdAt).toISOString(),
        deliveredAt: d.deliveredAt === null ? null : new Date(d.deliveredAt).toISOString(),
        nextAttemptAt: d.status === "pending" ? new Date(d.nextAttemptAt).toISOString() : null,
        attemptLog: attempts.map((a) => ({
          attempt: a.attempt,
          at: new Date(a.at).toISOString(),
          statusCode: a.statusCode,
          error: a.error,
          durationMs: a.durationMs,
        })),
      })),
    )
  })
