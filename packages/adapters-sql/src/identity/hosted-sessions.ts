/** `HostedSessions` over the `hosted_sessions` table. */
import { Effect, Layer, Schema } from "effect"
import { HostedSession, HostedSessions } from "@signet/core"
import { DbBigInt, decodeRow } from "../rows.ts"
import { guardedWrite, query, SqlDatabase } from "../sql-database.ts"

/** A `hosted_sessions` row decoded to the domain `HostedSession`. */
export const HostedSessionFromRow = Schema.transform(
  Schema.Struct({ id: Schema.String, csrf_token_hash: Schema.String, created_at: DbBigInt, expires_at: DbBigInt }),
  HostedSession,
  {
    strict: true,
    decode: (r) => ({ id: r.id, csrfTokenHash: r.csrf_token_hash, createdAt: r.created_at, expiresAt: r.expires_at }),
    encode: (s) => ({ id: s.id, csrf_token_hash: s.csrfTokenHash, created_at: s.createdAt, expires_at: s.expiresAt }),
  },
)

const decode = decodeRow(HostedSessionFromRow)
const what = (): string => "session id"

/** `HostedSessions` on the SQL database. */
export const HostedSessionsSql: Layer.Layer<HostedSessions, never, SqlDatabase> = Layer.effect(
  HostedSessions,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    return HostedSessions.of({
      insert: (s) =>
        write(what, (db) =>
          db
            .insertInto("hosted_sessions")
            .values({
              id: s.id,
              csrf_token_hash: s.csrfTokenHash,
              created_at: s.createdAt,
              expires_at: s.expiresAt,
            })
            .execute(),
        ).pipe(Effect.asVoid),
      findById: (id) =>
        run((db) => db.selectFrom("hosted_sessions").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))),
        ),
    })
  }),
)
