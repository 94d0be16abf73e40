/** `Passkeys` over the `passkeys` table (primary key: the credential id). */
import { Effect, Layer, Schema } from "effect"
import { Passkey, Passkeys } from "@signet/core"
import { DbBigInt, DbFlag, DbStringArray, decodeRowRemembered, flag, decodeEach } from "../rows.ts"
import { guardedWrite, query, SqlDatabase, execute, executeLater, prepare } from "../sql-database.ts"

/** A `passkeys` row decoded to the domain `Passkey`. */
export const PasskeyFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    user_id: Schema.String,
    public_key: Schema.String,
    algorithm: Schema.Number,
    counter: DbBigInt,
    rp_id: Schema.String,
    transports: DbStringArray,
    backed_up: DbFlag,
    created_at: DbBigInt,
    last_used_at: Schema.NullOr(DbBigInt),
  }),
  Passkey,
  {
    strict: true,
    decode: (r) => ({
      id: r.id,
      userId: r.user_id,
      publicKey: r.public_key,
      algorithm: r.algorithm,
      counter: r.counter,
      rpId: r.rp_id,
      transports: r.transports,
      backedUp: r.backed_up,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
    }),
    encode: (p) => ({
      id: p.id,
      user_id: p.userId,
      public_key: p.publicKey,
      algorithm: p.algorithm,
      counter: p.counter,
      rp_id: p.rpId,
      transports: p.transports,
      backed_up: p.backedUp,
      created_at: p.createdAt,
      last_used_at: p.lastUsedAt,
    }),
  },
)

// read at creation and at completion (the counter moves only at completion): an unchanged row is not decoded again
const decode = decodeRowRemembered(PasskeyFromRow, "id")
const what = (): string => "credential id"

/** `Passkeys` on the SQL database. */
export const PasskeysSql: Layer.Layer<Passkeys, never, SqlDatabase> = Layer.effect(
  Passkeys,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const exec = execute(service)
    const write = guardedWrite(service)
    const execLater = executeLater(service)
    // read at every creation and completion, written at every completion
    const byId = prepare((db, id: string) => db.selectFrom("passkeys").selectAll().where("id", "=", id))
    const use = prepare((db, id: string, counter: number, at: number) => db.updateTable("passkeys").set({ counter, last_used_at: at }).where("id", "=", id))
    return Passkeys.of({
      insert: (p) =>
        write(what, (db) =>
          db
            .insertInto("passkeys")
            .values({
              id: p.id,
              user_id: p.userId,
              public_key: p.publicKey,
              algorithm: p.algorithm,
              counter: p.counter,
              rp_id: p.rpId,
              transports: JSON.stringify(p.transports),
              backed_up: flag(p.backedUp),
              created_at: p.createdAt,
              last_used_at: p.lastUsedAt,
            })
            .execute(),
        ).pipe(Effect.asVoid),
      findById: (id) =>
        exec((db) => byId(db, id)).pipe(Effect.flatMap(({ rows: [row] }) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row))))),
      listByUser: (userId) =>
        run((db) => db.selectFrom("passkeys").selectAll().where("user_id", "=", userId).orderBy("created_at").orderBy("id").execute()).pipe(
          Effect.flatMap((rows) => decodeEach(rows, decode)),
        ),
      // sent with the completion's next statement on PostgreSQL
      recordUse: (id, counter, at) => execLater((db) => use(db, id, counter, at)),
    })
  }),
)
