/** Webhook subscriptions and the outbox over their tables. */
import { Deliveries, Delivery, DeliveryAttempt, WebhookSubscription, WebhookSubscriptions } from "@signet/core"
import { Effect, Layer, Schema } from "effect"
import { sql } from "kysely"
import { DbBigInt, DbFlag, decodeRow, flag, decodeEach } from "../rows.ts"
import { cachedRead, query, SqlDatabase, prepare } from "../sql-database.ts"

/** A `webhook_subscriptions` row decoded to the domain `WebhookSubscription`. */
export const WebhookSubscriptionFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.Number,
    rp_id: Schema.Number,
    client_id: Schema.String,
    owner_user_id: Schema.String,
    url: Schema.String,
    events: Schema.String,
    secret: Schema.String,
    active: DbFlag,
    created_at: DbBigInt,
  }),
  Schema.typeSchema(WebhookSubscription),
  {
    strict: false,
    decode: (r) => ({
      id: r.id,
      rpId: r.rp_id,
      clientId: r.client_id,
      ownerUserId: r.owner_user_id,
      url: r.url,
      events: JSON.parse(r.events),
      secret: r.secret,
      active: r.active,
      createdAt: r.created_at,
    }),
    encode: (s) => ({
      id: s.id,
      rp_id: s.rpId,
      client_id: s.clientId,
      owner_user_id: s.ownerUserId,
      url: s.url,
      events: JSON.stringify(s.events),
      secret: s.secret,
      active: s.active,
      created_at: s.createdAt,
    }),
  },
)

/** A `deliveries` row decoded to the domain `Delivery`. */
export const DeliveryFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.Number,
    kind: Schema.String,
    subscription_id: Schema.NullOr(Schema.Number),
    client_id: Schema.String,
    url: Schema.String,
    event_type: Schema.String,
    message_id: Schema.String,
    ordering_key: Schema.String,
    payload: Schema.String,
    status: Schema.String,
    attempts: Schema.Number,
    next_attempt_at: DbBigInt,
    last_status: Schema.NullOr(Schema.Number),
    last_error: Schema.NullOr(Schema.String),
    created_at: DbBigInt,
    delivered_at: Schema.NullOr(DbBigInt),
  }),
  Schema.typeSchema(Delivery),
  {
    strict: false,
    decode: (r) => ({
      id: r.id,
      kind: r.kind,
      subscriptionId: r.subscription_id,
      clientId: r.client_id,
      url: r.url,
      eventType: r.event_type,
      messageId: r.message_id,
      orderingKey: r.ordering_key,
      payload: r.payload,
      status: r.status,
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at,
      lastStatus: r.last_status,
      lastError: r.last_error,
      createdAt: r.created_at,
      deliveredAt: r.delivered_at,
    }),
    encode: (d) => ({
      id: d.id,
      kind: d.kind,
      subscription_id: d.subscriptionId,
      client_id: d.clientId,
      url: d.url,
      event_type: d.eventType,
      message_id: d.messageId,
      ordering_key: d.orderingKey,
      payload: d.payload,
      status: d.status,
      attempts: d.attempts,
      next_attempt_at: d.nextAttemptAt,
      last_status: d.lastStatus,
      last_error: d.lastError,
      created_at: d.createdAt,
      delivered_at: d.deliveredAt,
    }),
  },
)

/** A `delivery_attempts` row decoded to the domain `DeliveryAttempt`. */
export const DeliveryAttemptFromRow = Schema.transform(
  Schema.Struct({
    delivery_id: Schema.Number,
    attempt: Schema.Number,
    at: DbBigInt,
    status_code: Schema.NullOr(Schema.Number),
    error: Schema.NullOr(Schema.String),
    duration_ms: DbBigInt,
  }),
  Schema.typeSchema(DeliveryAttempt),
  {
    strict: false,
    decode: (r) => ({ deliveryId: r.delivery_id, attempt: r.attempt, at: r.at, statusCode: r.status_code, error: r.error, durationMs: r.duration_ms }),
    encode: (a) => ({ delivery_id: a.deliveryId, attempt: a.attempt, at: a.at, status_code: a.statusCode, error: a.error, duration_ms: a.durationMs }),
  },
)

/** `WebhookSubscriptions` on the SQL database. */
export const WebhookSubscriptionsSql: Layer.Layer<WebhookSubscriptions, never, SqlDatabase> = Layer.effect(
  WebhookSubscriptions,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const decode = decodeRow(WebhookSubscriptionFromRow)
    // read at every completion
    const fromCache = cachedRead(service, "webhook_subscriptions")
    const activeFor = prepare((db, clientId: string) =>
      db.selectFrom("webhook_subscriptions").selectAll().where("client_id", "=", clientId).where("active", "=", 1).orderBy("id", "asc"),
    )
    return WebhookSubscriptions.of({
      insert: (s) =>
        run((db) =>
          db
            .insertInto("webhook_subscriptions")
            .values({
              rp_id: s.rpId,
              client_id: s.clientId,
              owner_user_id: s.ownerUserId,
              url: s.url,
              events: JSON.stringify(s.events),
              secret: s.secret,
              active: flag(s.active),
              created_at: s.createdAt,
            })
            .returningAll()
            .executeTakeFirstOrThrow(),
        ).pipe(Effect.flatMap(decode)),
      findById: (id) =>
        run((db) => db.selectFrom("webhook_subscriptions").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))),
        ),
      listActive: (clientId) =>
        run((db) =>
          db.selectFrom("webhook_subscriptions").selectAll().where("client_id", "=", clientId).where("active", "=", 1).orderBy("id", "asc").execute(),
        ).pipe(Effect.flatMap((rows) => decodeEach(rows, decode))),
      listFor: (clientId, eventType) =>
        fromCache((db) => activeFor(db, clientId)).pipe(
          Effect.flatMap((r) => decodeEach(r.rows, decode)),
          Effect.map((all) => all.filter((s) => s.events.includes(eventType))),
        ),
      deactivate: (id) => run((db) => db.updateTable("webhook_subscriptions").set({ active: 0 }).where("id", "=", id).execute()).pipe(Effect.asVoid),
    })
  }),
)

/** `Deliveries` on the SQL database: claims are compare-and-set on the lease, so workers on many nodes never take the same row. */
export const DeliveriesSql: Layer.Layer<Deliveries, never, SqlDatabase> = Layer.effect(
  Deliveries,
  Effect.gen(function* () {
    const run = query(yield* SqlDatabase)
    const decode = decodeRow(DeliveryFromRow)
    const decodeAttempt = decodeRow(DeliveryAttemptFromRow)
    return Deliveries.of({
      enqueue: (d) =>
        run((db) =>
          db
            .insertInto("deliveries")
            .values({
              kind: d.kind,
              subscription_id: d.subscriptionId,
              client_id: d.clientId,
              url: d.url,
              event_type: d.eventType,
              message_id: d.messageId,
              ordering_key: d.orderingKey,
              payload: d.payload,
              status: d.status,
              attempts: d.attempts,
              next_attempt_at: d.nextAttemptAt,
              locked_until: 0,
              last_status: d.lastStatus,
              last_error: d.lastError,
              created_at: d.createdAt,
              delivered_at: d.deliveredAt,
            })
            .returningAll()
            .executeTakeFirstOrThrow(),
        ).pipe(Effect.flatMap(decode)),
      claimDue: (now, leaseMs, limit) =>
        Effect.gen(function* () {
          // Due, not leased, and first in line for its target and ordering key.
          const candidates = yield* run((db) =>
            db
              .selectFrom("deliveries as d")
              .selectAll("d")
              .where("d.status", "=", "pending")
              .where("d.next_attempt_at", "<=", now)
              .where("d.locked_until", "<=", now)
              .where(({ not, exists, selectFrom }) =>
                not(
                  exists(
                    selectFrom("deliveries as e")
                      .select(sql`1`.as("one"))
                      .where("e.status", "=", "pending")
                      .whereRef("e.url", "=", "d.url")
                      .whereRef("e.ordering_key", "=", "d.ordering_key")
                      .whereRef("e.id", "<", "d.id"),
                  ),
                ),
              )
              .orderBy("d.id", "asc")
              .limit(limit)
              .execute(),
          )
          const claimed: Array<Delivery> = []
          for (const row of candidates) {
            const taken = yield* run((db) =>
              db
                .updateTable("deliveries")
                .set({ locked_until: now + leaseMs })
                .where("id", "=", row.id)
                .where("status", "=", "pending")
                .where("locked_until", "<=", now)
                .executeTakeFirst(),
            )
            if (Number(taken.numUpdatedRows) === 1) claimed.push(yield* decode(row))
          }
          return claimed
        }),
      retry: (deliveryId, now) =>
        run((db) =>
          db
            .updateTable("deliveries")
            .set({ status: "pending", next_attempt_at: now, locked_until: 0 })
            .where("id", "=", deliveryId)
            .where("status", "=", "failed")
            .executeTakeFirst(),
        ).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
      recordAttempt: (a, next) =>
        run(async (db) => {
          await db
            .insertInto("delivery_attempts")
            .values({
              delivery_id: a.deliveryId,
              attempt: a.attempt,
              at: a.at,
              status_code: a.statusCode,
              error: a.error,
              duration_ms: a.durationMs,
            })
            .execute()
          await db
            .updateTable("deliveries")
            .set({
              status: next.status,
              attempts: a.attempt,
              next_attempt_at: next.nextAttemptAt,
              locked_until: 0,
              last_status: next.lastStatus,
              last_error: next.lastError,
              delivered_at: next.deliveredAt,
            })
            .where("id", "=", a.deliveryId)
            .execute()
        }),
      listForClient: (clientId, subscriptionId, limit) =>
        run((db) => {
          let q = db.selectFrom("deliveries").selectAll().where("client_id", "=", clientId)
          if (subscriptionId !== null) q = q.where("subscription_id", "=", subscriptionId)
          return q.orderBy("id", "desc").limit(limit).execute()
        }).pipe(Effect.flatMap((rows) => decodeEach(rows, decode))),
      attemptsOf: (deliveryId) =>
        run((db) => db.selectFrom("delivery_attempts").selectAll().where("delivery_id", "=", deliveryId).orderBy("attempt", "asc").execute()).pipe(
          Effect.flatMap((rows) => decodeEach(rows, decodeAttempt)),
        ),
      pendingSummary: () =>
        run((db) =>
          db
            .selectFrom("deliveries")
            .select((eb) => [eb.fn.countAll().as("count"), eb.fn.min("created_at").as("oldest")])
            .where("status", "=", "pending")
            .executeTakeFirstOrThrow(),
        ).pipe(
          // count(*) is a string on PostgreSQL (bigint) and min() of a bigint column too: both read as numbers.
          Effect.map((r) => ({ count: Number(r.count), oldestCreatedAt: r.oldest === null ? null : Number(r.oldest) })),
        ),
    })
  }),
)
