/** `Ceremonies` over the `ceremonies` table; `consume` is one conditional UPDATE, so it is atomic. */
import { Effect, Layer, Schema } from "effect"
import { Ceremonies, Ceremony, CeremonyKind } from "@signet/core"
import { DbBigInt, decodeRow } from "../rows.ts"
import { guardedWrite, query, SqlDatabase } from "../sql-database.ts"

/** A `ceremonies` row decoded to the domain `Ceremony`. */
export const CeremonyFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    kind: CeremonyKind,
    challenge: Schema.String,
    user_id: Schema.NullOr(Schema.String),
    email: Schema.NullOr(Schema.String),
    display_name: Schema.NullOr(Schema.String),
    client_id: Schema.NullOr(Schema.String),
    rp_id: Schema.String,
    created_at: DbBigInt,
    expires_at: DbBigInt,
    consumed_at: Schema.NullOr(DbBigInt),
    email_verification_id: Schema.NullOr(Schema.String),
  }),
  Ceremony,
  {
    strict: true,
    decode: (r) => ({
      id: r.id,
      kind: r.kind,
      challenge: r.challenge,
      userId: r.user_id,
      email: r.email,
      displayName: r.display_name,
      clientId: r.client_id,
      rpId: r.rp_id,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      consumedAt: r.consumed_at,
      emailVerificationId: r.email_verification_id,
    }),
    encode: (c) => ({
      id: c.id,
      kind: c.kind,
      challenge: c.challenge,
      user_id: c.userId,
      email: c.email,
      display_name: c.displayName,
      client_id: c.clientId,
      rp_id: c.rpId,
      created_at: c.createdAt,
      expires_at: c.expiresAt,
      consumed_at: c.consumedAt,
      email_verification_id: c.emailVerificationId,
    }),
  },
)

const decode = decodeRow(CeremonyFromRow)
const decodeFirst = (row: unknown) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))
const what = (): string => "ceremony id"

/** `Ceremonies` on the SQL database. */
export const CeremoniesSql: Layer.Layer<Ceremonies, never, SqlDatabase> = Layer.effect(
  Ceremonies,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    return Ceremonies.of({
      insert: (c) =>
        write(what, (db) =>
          db
            .insertInto("ceremonies")
            .values({
              id: c.id,
              kind: c.kind,
              challenge: c.challenge,
              user_id: c.userId,
              email: c.email,
              display_name: c.displayName,
              client_id: c.clientId,
              rp_id: c.rpId,
              created_at: c.createdAt,
              expires_at: c.expiresAt,
              consumed_at: c.consumedAt,
              email_verification_id: c.emailVerificationId,
            })
            .execute(),
        ).pipe(Effect.asVoid),
      findById: (id) => run((db) => db.selectFrom("ceremonies").selectAll().where("id", "=", id).executeTakeFirst()).pipe(Effect.flatMap(decodeFirst)),
      // The `consumed_at is null` condition makes the database arbitrate: of concurrent consumers exactly one gets the row back.
      consume: (id, at) =>
        run((db) =>
          db.updateTable("ceremonies").set({ consumed_at: at }).where("id", "=", id).where("consumed_at", "is", null).returningAll().executeTakeFirst(),
        ).pipe(Effect.flatMap(decodeFirst)),
    })
  }),
)
