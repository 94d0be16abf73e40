/** Checkouts, subscriptions and per-day usage in memory. */
import { Context, Option } from "effect"
import { Checkouts, Subscriptions, UsageHistory, type Checkout, type Subscription, type UsageDay } from "@signet/core"
import { type MemoryDatabase, Table, unique } from "./memory-database.ts"
import { orderBy } from "./order.ts"

/** The billing repositories over `db`. */
export const billingMemory = (db: MemoryDatabase) => {
  const checkouts = new Table<string, Checkout>()
  const subscriptions = new Table<string, Subscription>()
  const usage = new Table<string, UsageDay>()
  return Context.make(
    Checkouts,
    Checkouts.of({
      insert: (c) =>
        db.write((j) => {
          if (checkouts.has(c.id)) unique("checkout id")
          checkouts.set(j, c.id, c)
        }),
      findById: (id) => db.run(() => Option.fromNullable(checkouts.get(id))),
      update: (next, expected) =>
        db.run((j) => {
          const stored = checkouts.get(next.id)
          if (stored === undefined || stored.status !== expected) return false
          checkouts.set(j, next.id, next)
          return true
        }),
    }),
  ).pipe(
    Context.add(
      Subscriptions,
      Subscriptions.of({
        insert: (s) =>
          db.write((j) => {
            if (subscriptions.has(s.id)) unique("subscription id")
            if (subscriptions.find((o) => o.checkoutId === s.checkoutId) !== undefined) unique("checkout_id")
            subscriptions.set(j, s.id, s)
          }),
        listForRp: (clientId) =>
          db.run(() => subscriptions.where((s) => s.clientId === clientId).sort(orderBy([(s) => s.startsAt, "desc"], [(s) => s.id, "asc"]))),
      }),
    ),
    Context.add(
      UsageHistory,
      UsageHistory.of({
        add: (clientId, day, signatures, quotaRefusals) =>
          db.run((j) => {
            const key = `${clientId} ${day}`
            const row = usage.get(key) ?? { clientId, day, signatures: 0, quotaRefusals: 0 }
            usage.set(j, key, { ...row, signatures: row.signatures + signatures, quotaRefusals: row.quotaRefusals + quotaRefusals })
          }),
        list: (clientId, fromDay, toDay) =>
          db.run(() => usage.where((u) => u.clientId === clientId && u.day >= fromDay && u.day <= toDay).sort(orderBy([(u) => u.day, "asc"]))),
      }),
    ),
  )
}
