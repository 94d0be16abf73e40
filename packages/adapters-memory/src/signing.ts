/** Signing requests, batches, the signing event log and the quota counters in memory. */
import { Context, Effect, Option } from "effect"
import {
  Batches,
  QuotaCounters,
  SigningEvents,
  SigningRequests,
  SscOperations,
  type Batch,
  type NewSigningEvent,
  type QuotaConsumption,
  type SigningEvent,
  type SigningRequest,
  type SscOperation,
} from "@signet/core"
import { purge } from "./identity.ts"
import { type Journal, type MemoryDatabase, Sequence, Table, unique } from "./memory-database.ts"
import { orderBy } from "./order.ts"

interface Counter {
  readonly key: string
  readonly count: number
  readonly expiresAt: number
}

/** A repository of records with a status that only changes by compare-and-set. */
const casRepository = <V extends { readonly id: string; readonly status: string }>(db: MemoryDatabase, what: string) => {
  const rows = new Table<string, V>()
  return {
    rows,
    insert: (row: V) =>
      db.write((j) => {
        if (rows.has(row.id)) unique(what)
        rows.set(j, row.id, row)
      }),
    findById: (id: string) => db.run(() => Option.fromNullable(rows.get(id))),
    update: (next: V, expected: V["status"]) =>
      db.run((j) => {
        const stored = rows.get(next.id)
        if (stored === undefined || stored.status !== expected) return false
        rows.set(j, next.id, next)
        return true
      }),
  }
}

/** Signing requests, batches, signing events, signing-token operations and quota counters over `db`. */
export const signingMemory = (db: MemoryDatabase) => {
  const requests = casRepository<SigningRequest>(db, "signing request id")
  const batches = casRepository<Batch>(db, "batch id")
  const operations = casRepository<SscOperation>(db, "operation id")
  const events = new Table<number, SigningEvent>()
  const seqs = new Sequence()
  const append = (input: NewSigningEvent) =>
    db.run((j) => {
      const event: SigningEvent = { ...input, seq: seqs.next() }
      events.set(j, event.seq, event)
      return event
    })
  const counters = new Table<string, Counter>()
  const byKey = orderBy<Counter>([(c) => c.key, "asc"])
  // An existing window keeps its expiry; only the count moves, and only within the limit.
  const consumeOne = (j: Journal, { key, amount, limit, expiresAt }: QuotaConsumption): Option.Option<number> => {
    if (amount > limit) return Option.none()
    const counter = counters.get(key)
    if (counter === undefined) {
      counters.set(j, key, { key, count: amount, expiresAt })
      return Option.some(amount)
    }
    if (counter.count + amount > limit) return Option.none()
    counters.set(j, key, { ...counter, count: counter.count + amount })
    return Option.some(counter.count + amount)
  }

  return Context.make(
    SigningRequests,
    SigningRequests.of({
      // ids are random: a taken one is a defect, as on the SQL stores
      insert: (request) => Effect.orDie(requests.insert(request)),
      findById: requests.findById,
      update: requests.update,
    }),
  ).pipe(
    Context.add(Batches, Batches.of({ insert: batches.insert, findById: batches.findById, update: batches.update })),
    Context.add(
      SscOperations,
      SscOperations.of({
        insert: operations.insert,
        findById: operations.findById,
        update: operations.update,
        clientIdsSignedWith: (serial) =>
          db.run(() => Array.from(new Set(operations.rows.where((o) => o.certificateSerial === serial && o.status === "finalized").map((o) => o.clientId)))),
      }),
    ),
    Context.add(
      SigningEvents,
      SigningEvents.of({
        append,
        record: (input) => Effect.asVoid(append(input)),
        lastSeqForUser: (userId) => db.run(() => events.where((e) => e.userId === userId).reduce((last, e) => Math.max(last, e.seq), 0)),
        listForUser: (userId, afterSeq, limit) =>
          db.run(() =>
            events
              .where((e) => e.userId === userId && e.seq > afterSeq)
              .sort(orderBy([(e) => e.seq, "asc"]))
              .slice(0, Math.max(0, limit)),
          ),
        listForSubject: (subjectId) => db.run(() => events.where((e) => e.subjectId === subjectId).sort(orderBy([(e) => e.seq, "asc"]))),
      }),
    ),
    // Each consume is one synchronous statement: concurrent callers can never push a counter past its limit.
    Context.add(
      QuotaCounters,
      QuotaCounters.of({
        consume: (key, amount, limit, expiresAt) => db.run((j) => consumeOne(j, { key, amount, limit, expiresAt })),
        consumeEach: (requests) => db.run((j) => requests.map((r) => consumeOne(j, r))),
        peek: (key) => db.run(() => counters.get(key)?.count ?? 0),
        purgeExpired: (now) =>
          db.run((j) =>
            purge(
              j,
              counters,
              (c) => c.expiresAt < now,
              (c) => c.key,
            ),
          ),
        list: (prefix) =>
          prefix === ""
            ? Effect.die(new Error("QuotaCounters.list needs a prefix"))
            : db.run(() => counters.where((c) => c.key.startsWith(prefix)).sort(byKey)),
      }),
    ),
  )
}
