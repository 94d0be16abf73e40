/** `Checkouts`, `Subscriptions` and `UsageHistory` over the `checkouts`, `subscriptions` and `usage_days` tables. */
import { Checkout, Checkouts, Subscription, Subscriptions, UsageHistory } from "@signet/core"
import { Effect, Layer, Schema } from "effect"
import type { Insertable } from "kysely"
import { DbBigInt, decodeRow, rowEncoder, decodeEach } from "../rows.ts"
import type { CheckoutsTable, SubscriptionsTable } from "./tables.ts"
import { cachedRead, guardedWrite, query, SqlDatabase, executeLater, prepare } from "../sql-database.ts"

/** A `checkouts` row decoded to the domain `Checkout`. */
export const CheckoutFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    client_id: Schema.String,
    user_id: Schema.String,
    plan: Schema.String,
    period: Schema.String,
    method: Schema.String,
    price_usd_minor: DbBigInt,
    currency: Schema.String,
    amount_minor: DbBigInt,
    rate_quote: Schema.NullOr(Schema.String),
    status: Schema.String,
    provider_reference: Schema.NullOr(Schema.String),
    failure_reason: Schema.NullOr(Schema.String),
    created_at: DbBigInt,
    expires_at: DbBigInt,
    updated_at: DbBigInt,
    paid_at: Schema.NullOr(DbBigInt),
  }),
  Schema.typeSchema(Schema.Struct({ ...Checkout.fields, rateQuote: Schema.NullOr(Schema.parseJson(Checkout.fields.rateQuote.members[0])) })),
  {
    strict: false,
    decode: (r) => ({
      id: r.id,
      clientId: r.client_id,
      userId: r.user_id,
      plan: r.plan,
      period: r.period,
      method: r.method,
      priceUsdMinor: r.price_usd_minor,
      currency: r.currency,
      amountMinor: r.amount_minor,
      rateQuote: r.rate_quote === null ? null : JSON.parse(r.rate_quote),
      status: r.status,
      providerReference: r.provider_reference,
      failureReason: r.failure_reason,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      updatedAt: r.updated_at,
      paidAt: r.paid_at,
    }),
    encode: (c) => ({
      id: c.id,
      client_id: c.clientId,
      user_id: c.userId,
      plan: c.plan,
      period: c.period,
      method: c.method,
      price_usd_minor: c.priceUsdMinor,
      currency: c.currency,
      amount_minor: c.amountMinor,
      rate_quote: c.rateQuote === null ? null : JSON.stringify(c.rateQuote),
      status: c.status,
      provider_reference: c.providerReference,
      failure_reason: c.failureReason,
      created_at: c.createdAt,
      expires_at: c.expiresAt,
      updated_at: c.updatedAt,
      paid_at: c.paidAt,
    }),
  },
)

/** A `subscriptions` row decoded to the domain `Subscription`. */
export const SubscriptionFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    client_id: Schema.String,
    plan: Schema.String,
    period: Schema.String,
    checkout_id: Schema.String,
    starts_at: DbBigInt,
    ends_at: DbBigInt,
    created_at: DbBigInt,
  }),
  Schema.typeSchema(Subscription),
  {
    strict: false,
    decode: (r) => ({
      id: r.id,
      clientId: r.client_id,
      plan: r.plan,
      period: r.period,
      checkoutId: r.checkout_id,
      startsAt: r.starts_at,
      endsAt: r.ends_at,
      createdAt: r.created_at,
    }),
    encode: (s) => ({
      id: s.id,
      client_id: s.clientId,
      plan: s.plan,
      period: s.period,
      checkout_id: s.checkoutId,
      starts_at: s.startsAt,
      ends_at: s.endsAt,
      created_at: s.createdAt,
    }),
  },
)

/** `Checkouts` on the SQL database. */
export const CheckoutsSql: Layer.Layer<Checkouts, never, SqlDatabase> = Layer.effect(
  Checkouts,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    const decode = decodeRow(CheckoutFromRow)
    const toRow = rowEncoder<Insertable<CheckoutsTable>>()(CheckoutFromRow)
    return Checkouts.of({
      insert: (c) =>
        write(
          () => "checkout id",
          (db) => db.insertInto("checkouts").values(toRow(c)).execute(),
        ).pipe(Effect.asVoid),
      findById: (id) =>
        run((db) => db.selectFrom("checkouts").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))),
        ),
      update: (next, expected) =>
        run((db) => db.updateTable("checkouts").set(toRow(next)).where("id", "=", next.id).where("status", "=", expected).executeTakeFirst()).pipe(
          Effect.map((r) => Number(r.numUpdatedRows) === 1),
        ),
    })
  }),
)

/** `Subscriptions` on the SQL database. */
export const SubscriptionsSql: Layer.Layer<Subscriptions, never, SqlDatabase> = Layer.effect(
  Subscriptions,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const write = guardedWrite(service)
    const decode = decodeRow(SubscriptionFromRow)
    const toRow = rowEncoder<Insertable<SubscriptionsTable>>()(SubscriptionFromRow)
    // read at every signing request (the plan in force)
    const fromCache = cachedRead(service, "subscriptions")
    const forRp = prepare((db, clientId: string) =>
      db.selectFrom("subscriptions").selectAll().where("client_id", "=", clientId).orderBy("starts_at", "desc").orderBy("id", "asc"),
    )
    return Subscriptions.of({
      insert: (s) =>
        write(
          (columns) => (columns.includes("checkout_id") ? "checkout_id" : "subscription id"),
          (db) => db.insertInto("subscriptions").values(toRow(s)).execute(),
        ).pipe(Effect.asVoid),
      listForRp: (clientId) => fromCache((db) => forRp(db, clientId)).pipe(Effect.flatMap((r) => decodeEach(r.rows, decode))),
    })
  }),
)

const UsageDayRow = Schema.Struct({ client_id: Schema.String, day: Schema.String, signatures: DbBigInt, quota_refusals: DbBigInt })

/** `UsageHistory` on the SQL database: one upsert per change, so concurrent counts add up. */
export const UsageHistorySql: Layer.Layer<UsageHistory, never, SqlDatabase> = Layer.effect(
  UsageHistory,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const decode = decodeRow(UsageDayRow)
    const execLater = executeLater(service)
    // written at every signing request
    const addTo = prepare((db, clientId: string, day: string, signatures: number, quotaRefusals: number) =>
      db
        .insertInto("usage_days")
        .values({ client_id: clientId, day, signatures, quota_refusals: quotaRefusals })
        .onConflict((oc) =>
          oc.columns(["client_id", "day"]).doUpdateSet((eb) => ({
            signatures: eb("usage_days.signatures", "+", signatures),
            quota_refusals: eb("usage_days.quota_refusals", "+", quotaRefusals),
          })),
        ),
    )
    return UsageHistory.of({
      // sent with the creation's next statement on PostgreSQL
      add: (clientId, day, signatures, quotaRefusals) => execLater((db) => addTo(db, clientId, day, signatures, quotaRefusals)),
      list: (clientId, fromDay, toDay) =>
        run((db) =>
          db
            .selectFrom("usage_days")
            .selectAll()
            .where("client_id", "=", clientId)
            .where("day", ">=", fromDay)
            .where("day", "<=", toDay)
            .orderBy("day")
            .execute(),
        ).pipe(
          Effect.flatMap((rows) => decodeEach(rows, decode)),
          Effect.map((rows) => rows.map((r) => ({ clientId: r.client_id, day: r.day, signatures: r.signatures, quotaRefusals: r.quota_refusals }))),
        ),
    })
  }),
)
