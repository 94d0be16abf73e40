/** `EmailVerifications` over the `email_verifications` table; every state change is one conditional UPDATE, so it is atomic. */
import { Effect, Layer, Schema } from "effect"
import { EmailVerification, EmailVerifications } from "@signet/core"
import { DbBigInt, decodeRow } from "../rows.ts"
import { guardedWrite, query, SqlDatabase } from "../sql-database.ts"

/** An `email_verifications` row decoded to the domain `EmailVerification`. */
export const EmailVerificationFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    email: Schema.String,
    code_hash: Schema.String,
    attempts: Schema.Number,
    created_at: DbBigInt,
    expires_at: DbBigInt,
    verified_at: Schema.NullOr(DbBigInt),
    consumed_at: Schema.NullOr(DbBigInt),
  }),
  EmailVerification,
  {
    strict: true,
    decode: (r) => ({
      id: r.id,
      email: r.email,
      codeHash: r.code_hash,
      attempts: r.attempts,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      verifiedAt: r.verified_at,
      consumedAt: r.consumed_at,
    }),
    encode: (v) => ({
      id: v.id,
      email: v.email,
      code_hash: v.codeHash,
      attempts: v.attempts,
      created_at: v.createdAt,
      expires_at: v.expiresAt,
      verified_at: v.verifiedAt,
      consumed_at: v.consumedAt,
    }),
  },
)

const decode = decodeRow(EmailVerificationFromRow)
const decodeFirst = (row: unknown) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))

/** `EmailVerifications` on the SQL database. */
export const EmailVerificationsSql: Layer.Layer<EmailVerifications, never, SqlDatabase> = Layer.effect(
  EmailVerifications,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    return EmailVerifications.of({
      insert: (v) =>
        write(
          () => "e-mail verification id",
          (db) =>
            db
              .insertInto("email_verifications")
              .values({
                id: v.id,
                email: v.email.toLowerCase(),
                code_hash: v.codeHash,
                attempts: v.attempts,
                created_at: v.createdAt,
                expires_at: v.expiresAt,
                verified_at: v.verifiedAt,
                consumed_at: v.consumedAt,
              })
              .execute(),
        ).pipe(Effect.asVoid),
      findById: (id) => run((db) => db.selectFrom("email_verifications").selectAll().where("id", "=", id).executeTakeFirst()).pipe(Effect.flatMap(decodeFirst)),
      // `attempts < max` in the WHERE makes the database arbitrate concurrent wrong codes: never more than `max` are counted.
      recordFailedAttempt: (id, max) =>
        run((db) =>
          db
            .updateTable("email_verifications")
            .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
            .where("id", "=", id)
            .where("attempts", "<", max)
            .returning("attempts")
            .executeTakeFirst(),
        ).pipe(
          Effect.map((row) => (row === undefined ? Effect.succeedNone : Effect.succeedSome(Number(row.attempts)))),
          Effect.flatten,
        ),
      markVerified: (id, at, max) =>
        run((db) =>
          db
            .updateTable("email_verifications")
            .set({ verified_at: at })
            .where("id", "=", id)
            .where("verified_at", "is", null)
            .where("consumed_at", "is", null)
            .where("attempts", "<", max)
            .executeTakeFirst(),
        ).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
      consume: (id, at) =>
        run((db) =>
          db
            .updateTable("email_verifications")
            .set({ consumed_at: at })
            .where("id", "=", id)
            .where("verified_at", "is not", null)
            .where("consumed_at", "is", null)
            .returningAll()
            .executeTakeFirst(),
        ).pipe(Effect.flatMap(decodeFirst)),
      countSince: (email, since) =>
        run((db) =>
          db
            .selectFrom("email_verifications")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("email", "=", email.toLowerCase())
            .where("created_at", ">=", since)
            .executeTakeFirstOrThrow(),
        ).pipe(Effect.map((row) => Number(row.n))),
      purgeExpired: (now) =>
        run((db) => db.deleteFrom("email_verifications").where("expires_at", "<", now).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows))),
    })
  }),
)
