/** Signing requests, batches, the event log and quota counters over their tables. */
import { Batch, Batches, QuotaCounters, SigningEvent, SigningEvents, SigningRequest, SigningRequests } from "@signet/core"
import { Effect, Layer, Option, Schema } from "effect"
import { sql } from "kysely"
import type { Insertable, Kysely } from "kysely"
import type { Database } from "../database.ts"
import { DbBigInt, decodeRow, rowEncoder, decodeEach } from "../rows.ts"
import type { BatchesTable, SigningEventsTable, SigningRequestsTable } from "./tables.ts"
import { guardedWrite, query, SqlDatabase, execute, executeLater, prepare } from "../sql-database.ts"

/** A `signing_requests` row decoded to the domain `SigningRequest`. */
export const SigningRequestFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    user_id: Schema.String,
    client_id: Schema.String,
    credential_id: Schema.String,
    document_hash: Schema.String,
    document_name: Schema.NullOr(Schema.String),
    signature_format: Schema.String,
    loa: Schema.String,
    callback_url: Schema.NullOr(Schema.String),
    rp_origin: Schema.NullOr(Schema.String),
    status: Schema.String,
    nonce: Schema.String,
    failed_attempts: Schema.Number,
    created_at: DbBigInt,
    expires_at: DbBigInt,
    completed_at: Schema.NullOr(DbBigInt),
    signature: Schema.NullOr(Schema.String),
    certificate_serial: Schema.NullOr(Schema.String),
    error_message: Schema.NullOr(Schema.String),
  }),
  Schema.typeSchema(SigningRequest),
  {
    strict: false,
    decode: (r) => ({
      id: r.id,
      userId: r.user_id,
      clientId: r.client_id,
      credentialId: r.credential_id,
      documentHash: r.document_hash,
      documentName: r.document_name,
      signatureFormat: r.signature_format,
      loa: r.loa,
      callbackUrl: r.callback_url,
      rpOrigin: r.rp_origin,
      status: r.status,
      nonce: r.nonce,
      failedAttempts: r.failed_attempts,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      completedAt: r.completed_at,
      signature: r.signature,
      certificateSerial: r.certificate_serial,
      errorMessage: r.error_message,
    }),
    encode: (q) => ({
      id: q.id,
      user_id: q.userId,
      client_id: q.clientId,
      credential_id: q.credentialId,
      document_hash: q.documentHash,
      document_name: q.documentName,
      signature_format: q.signatureFormat,
      loa: q.loa,
      callback_url: q.callbackUrl,
      rp_origin: q.rpOrigin,
      status: q.status,
      nonce: q.nonce,
      failed_attempts: q.failedAttempts,
      created_at: q.createdAt,
      expires_at: q.expiresAt,
      completed_at: q.completedAt,
      signature: q.signature,
      certificate_serial: q.certificateSerial,
      error_message: q.errorMessage,
    }),
  },
)

/** A `batches` row decoded to the domain `Batch` (documents and results are JSON). */
export const BatchFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    user_id: Schema.String,
    client_id: Schema.String,
    credential_id: Schema.String,
    documents: Schema.String,
    callback_url: Schema.NullOr(Schema.String),
    status: Schema.String,
    nonce: Schema.String,
    failed_attempts: Schema.Number,
    created_at: DbBigInt,
    expires_at: DbBigInt,
    completed_at: Schema.NullOr(DbBigInt),
    results: Schema.NullOr(Schema.String),
    error_message: Schema.NullOr(Schema.String),
  }),
  Schema.typeSchema(Batch),
  {
    strict: false,
    decode: (r) => ({
      id: r.id,
      userId: r.user_id,
      clientId: r.client_id,
      credentialId: r.credential_id,
      documents: JSON.parse(r.documents),
      callbackUrl: r.callback_url,
      status: r.status,
      nonce: r.nonce,
      failedAttempts: r.failed_attempts,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      completedAt: r.completed_at,
      results: r.results === null ? null : JSON.parse(r.results),
      errorMessage: r.error_message,
    }),
    encode: (b) => ({
      id: b.id,
      user_id: b.userId,
      client_id: b.clientId,
      credential_id: b.credentialId,
      documents: JSON.stringify(b.documents),
      callback_url: b.callbackUrl,
      status: b.status,
      nonce: b.nonce,
      failed_attempts: b.failedAttempts,
      created_at: b.createdAt,
      expires_at: b.expiresAt,
      completed_at: b.completedAt,
      results: b.results === null ? null : JSON.stringify(b.results),
      error_message: b.errorMessage,
    }),
  },
)

/** A `signing_events` row decoded to the domain `SigningEvent`. */
export const SigningEventFromRow = Schema.transform(
  Schema.Struct({
    seq: DbBigInt,
    type: Schema.String,
    subject_id: Schema.String,
    subject_kind: Schema.String,
    user_id: Schema.String,
    client_id: Schema.String,
    status: Schema.String,
    document_hash: Schema.String,
    created_at: DbBigInt,
    signed_at: Schema.NullOr(DbBigInt),
    error_message: Schema.NullOr(Schema.String),
    recorded_at: DbBigInt,
  }),
  Schema.typeSchema(SigningEvent),
  {
    strict: false,
    decode: (r) => ({
      seq: r.seq,
      type: r.type,
      subjectId: r.subject_id,
      subjectKind: r.subject_kind,
      userId: r.user_id,
      clientId: r.client_id,
      status: r.status,
      documentHash: r.document_hash,
      createdAt: r.created_at,
      signedAt: r.signed_at,
      errorMessage: r.error_message,
      recordedAt: r.recorded_at,
    }),
    encode: (e) => ({
      seq: e.seq,
      type: e.type,
      subject_id: e.subjectId,
      subject_kind: e.subjectKind,
      user_id: e.userId,
      client_id: e.clientId,
      status: e.status,
      document_hash: e.documentHash,
      created_at: e.createdAt,
      signed_at: e.signedAt,
      error_message: e.errorMessage,
      recorded_at: e.recordedAt,
    }),
  },
)

const firstOf =
  <A>(decode: (row: unknown) => Effect.Effect<A>) =>
  (row: unknown) =>
    row === undefined ? Effect.succeedNone : Effect.asSome(decode(row))

/** `SigningRequests` on the SQL database. */
export const SigningRequestsSql: Layer.Layer<SigningRequests, never, SqlDatabase> = Layer.effect(
  SigningRequests,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const decode = decodeRow(SigningRequestFromRow)
    const toRow = rowEncoder<Insertable<SigningRequestsTable>>()(SigningRequestFromRow)
    const exec = execute(service)
    const execLater = executeLater(service)
    const byId = prepare((db, id: string) => db.selectFrom("signing_requests").selectAll().where("id", "=", id))
    const insertRow = prepare((db, row: Insertable<SigningRequestsTable>) => db.insertInto("signing_requests").values(row))
    const updateRow = prepare((db, row: Insertable<SigningRequestsTable>, id: string, expected: string) =>
      db.updateTable("signing_requests").set(row).where("id", "=", id).where("status", "=", expected),
    )
    return SigningRequests.of({
      // A random id: a taken one fails the statement (a defect). Sent with the creation's next statement on PostgreSQL.
      insert: (r) => execLater((db) => insertRow(db, toRow(r))),
      findById: (id) => exec((db) => byId(db, id)).pipe(Effect.flatMap((r) => firstOf(decode)(r.rows[0]))),
      update: (next, expected) => exec((db) => updateRow(db, toRow(next), next.id, expected)).pipe(Effect.map((r) => Number(r.numAffectedRows ?? 0n) === 1)),
    })
  }),
)

/** `Batches` on the SQL database. */
export const BatchesSql: Layer.Layer<Batches, never, SqlDatabase> = Layer.effect(
  Batches,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    const decode = decodeRow(BatchFromRow)
    const toRow = rowEncoder<Insertable<BatchesTable>>()(BatchFromRow)
    return Batches.of({
      insert: (b) =>
        write(
          () => "batch id",
          (db) => db.insertInto("batches").values(toRow(b)).execute(),
        ).pipe(Effect.asVoid),
      findById: (id) => run((db) => db.selectFrom("batches").selectAll().where("id", "=", id).executeTakeFirst()).pipe(Effect.flatMap(firstOf(decode))),
      update: (next, expected) =>
        run((db) => db.updateTable("batches").set(toRow(next)).where("id", "=", next.id).where("status", "=", expected).executeTakeFirst()).pipe(
          Effect.map((r) => Number(r.numUpdatedRows) === 1),
        ),
    })
  }),
)

/** `SigningEvents` on the SQL database. */
export const SigningEventsSql: Layer.Layer<SigningEvents, never, SqlDatabase> = Layer.effect(
  SigningEvents,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const decode = decodeRow(SigningEventFromRow)
    const decodeSeq = decodeRow(Schema.Struct({ seq: DbBigInt }))
    const toRow = rowEncoder<Insertable<SigningEventsTable>>()(SigningEventFromRow)
    const exec = execute(service)
    const execLater = executeLater(service)
    const appendRow = prepare((db, row: Omit<Insertable<SigningEventsTable>, "seq">) => db.insertInto("signing_events").values(row).returning("seq"))
    const recordRow = prepare((db, row: Omit<Insertable<SigningEventsTable>, "seq">) => db.insertInto("signing_events").values(row))
    return SigningEvents.of({
      append: (event) => {
        const { seq: _seq, ...row } = toRow({ ...event, seq: 0 })
        // The event is what was written: only its position comes back, not the row to decode again.
        return exec((db) => appendRow(db, row)).pipe(
          Effect.flatMap(({ rows: [appended] }) =>
            appended === undefined ? Effect.die(new Error("signing event not appended")) : Effect.map(decodeSeq(appended), ({ seq }) => ({ ...event, seq })),
          ),
        )
      },
      // sent with the unit's next statement, or its COMMIT, on PostgreSQL
      record: (event) => {
        const { seq: _seq, ...row } = toRow({ ...event, seq: 0 })
        return execLater((db) => recordRow(db, row))
      },
      lastSeqForUser: (userId) =>
        run((db) =>
          db
            .selectFrom("signing_events")
            .select((eb) => eb.fn.max("seq").as("last"))
            .where("user_id", "=", userId)
            .executeTakeFirst(),
        ).pipe(Effect.map((row) => Number(row?.last ?? 0))),
      listForUser: (userId, afterSeq, limit) =>
        run((db) =>
          db.selectFrom("signing_events").selectAll().where("user_id", "=", userId).where("seq", ">", afterSeq).orderBy("seq", "asc").limit(limit).execute(),
        ).pipe(Effect.flatMap((rows) => decodeEach(rows, decode))),
      listForSubject: (subjectId) =>
        run((db) => db.selectFrom("signing_events").selectAll().where("subject_id", "=", subjectId).orderBy("seq", "asc").execute()).pipe(
          Effect.flatMap((rows) => decodeEach(rows, decode)),
        ),
    })
  }),
)

/** Adds `amount` to counter `key` unless that would pass `limit`; answers the new count, or no row when refused. */
export const consumeUpToStatement = (db: Kysely<Database>, key: string, amount: number, limit: number, expiresAt: number) =>
  db
    .insertInto("quota_counters")
    .values({ key, count: amount, expires_at: expiresAt })
    .onConflict((oc) =>
      oc
        .column("key")
        .doUpdateSet({ count: sql`quota_counters.count + ${amount}` })
        .where(sql<boolean>`quota_counters.count + ${amount} <= ${limit}`),
    )
    .returning("count")

/**
 * Two counters in one upsert, each judged against its own limit (the `case` picks it by key):
 * answers a row, with its new count, for each counter that moved.
 */
export const consumeTwoStatement = (
  db: Kysely<Database>,
  first: { readonly key: string; readonly amount: number; readonly limit: number; readonly expiresAt: number },
  second: { readonly key: string; readonly amount: number; readonly limit: number; readonly expiresAt: number },
) =>
  db
    .insertInto("quota_counters")
    .values([
      { key: first.key, count: first.amount, expires_at: first.expiresAt },
      { key: second.key, count: second.amount, expires_at: second.expiresAt },
    ])
    .onConflict((oc) =>
      oc
        .column("key")
        .doUpdateSet({ count: sql`quota_counters.count + excluded.count` })
        .where(
          sql<boolean>`quota_counters.count + excluded.count <= case quota_counters.key when ${first.key} then cast(${first.limit} as bigint) else cast(${second.limit} as bigint) end`,
        ),
    )
    .returning(["key", "count"])

/**
 * `QuotaCounters`: one upsert whose update only applies while the total stays within the
 * limit. The database arbitrates (row lock on PostgreSQL, single writer on SQLite), so
 * concurrent callers can never push a counter past its limit.
 */
export const QuotaCountersSql: Layer.Layer<QuotaCounters, never, SqlDatabase> = Layer.effect(
  QuotaCounters,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const decodeCount = decodeRow(Schema.Struct({ count: DbBigInt }))
    const decodeCounter = decodeRow(Schema.Struct({ key: Schema.String, count: DbBigInt, expires_at: DbBigInt }))
    const exec = execute(service)
    // twice at every signing request (the minute's window and the day)
    const consumeUpTo = prepare(consumeUpToStatement)
    // both limits of every signing request (the minute's window and the day)
    const consumeTwo = prepare(consumeTwoStatement)
    const decodeKeyCount = decodeRow(Schema.Struct({ key: Schema.String, count: DbBigInt }))
    const consume: QuotaCounters["Type"]["consume"] = (key, amount, limit, expiresAt) =>
      amount > limit
        ? Effect.succeedNone
        : exec((db) => consumeUpTo(db, key, amount, limit, expiresAt)).pipe(
            Effect.flatMap(({ rows: [row] }) => (row === undefined ? Effect.succeedNone : Effect.map(decodeCount(row), (r) => Option.some(r.count)))),
          )
    return QuotaCounters.of({
      consume,
      consumeEach: (requests) => {
        const [first, second] = requests
        // Two distinct counters, each possible: one statement; anything else one `consume` after another.
        if (requests.length !== 2 || first!.key === second!.key || first!.amount > first!.limit || second!.amount > second!.limit)
          return Effect.forEach(requests, (r) => consume(r.key, r.amount, r.limit, r.expiresAt))
        return exec((db) => consumeTwo(db, first!, second!)).pipe(
          Effect.flatMap(({ rows }) => decodeEach(rows, decodeKeyCount)),
          Effect.map((moved) => requests.map((r) => Option.map(Option.fromNullable(moved.find((m) => m.key === r.key)), (m) => m.count))),
        )
      },
      purgeExpired: (now) =>
        run((db) => db.deleteFrom("quota_counters").where("expires_at", "<", now).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows))),
      peek: (key) =>
        run((db) => db.selectFrom("quota_counters").select("count").where("key", "=", key).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeed(0) : Effect.map(decodeCount(row), (r) => r.count))),
        ),
      // A key range, not LIKE: client ids contain `_`, a LIKE wildcard. Keys are ASCII and both
      // databases compare text byte-wise here, so [prefix, prefix with its last character + 1) is exact.
      list: (prefix) =>
        prefix === ""
          ? Effect.die(new Error("QuotaCounters.list needs a prefix"))
          : run((db) =>
              db
                .selectFrom("quota_counters")
                .selectAll()
                .where("key", ">=", prefix)
                .where("key", "<", prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1))
                .orderBy("key", "asc")
                .execute(),
            ).pipe(
              Effect.flatMap((rows) => decodeEach(rows, decodeCounter)),
              Effect.map((rows) => rows.map((r) => ({ key: r.key, count: r.count, expiresAt: r.expires_at }))),
            ),
    })
  }),
)
