/** `Users` over the `users` table; e-mails are stored and looked up lower-case. */
import { Effect, Layer, Schema } from "effect"
import { UniqueViolation, User, Users } from "@signet/core"
import { DbBigInt, decodeRowRemembered } from "../rows.ts"
import { guardedWrite, query, SqlDatabase, execute, prepare } from "../sql-database.ts"

/** A `users` row decoded to the domain `User`. */
export const UserFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    email: Schema.String,
    display_name: Schema.String,
    created_at: DbBigInt,
    email_verified_at: Schema.NullOr(DbBigInt),
  }),
  User,
  {
    strict: true,
    decode: (r) => ({ id: r.id, email: r.email, displayName: r.display_name, createdAt: r.created_at, emailVerifiedAt: r.email_verified_at }),
    encode: (u) => ({ id: u.id, email: u.email, display_name: u.displayName, created_at: u.createdAt, email_verified_at: u.emailVerifiedAt }),
  },
)

// the signer, read on every completion: an unchanged row is not decoded again
const decode = decodeRowRemembered(UserFromRow, "id")
const what = (columns: ReadonlyArray<string>): string => (columns.includes("email") ? "email" : "user id")

/** `Users` on the SQL database. */
export const UsersSql: Layer.Layer<Users, never, SqlDatabase> = Layer.effect(
  Users,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    const decodeFirst = (row: unknown) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))
    const exec = execute(service)
    // the signer, read at every completion
    const byId = prepare((db, id: string) => db.selectFrom("users").selectAll().where("id", "=", id))
    return Users.of({
      insert: (user) =>
        write(what, (db) =>
          db
            .insertInto("users")
            .values({
              id: user.id,
              email: user.email.toLowerCase(),
              display_name: user.displayName,
              created_at: user.createdAt,
              email_verified_at: user.emailVerifiedAt,
            })
            .execute(),
        ).pipe(
          Effect.asVoid,
          // When both keys are taken the databases name different ones (PostgreSQL the primary key, SQLite either):
          // report the e-mail whenever it is taken, so the answer does not depend on the database.
          Effect.catchTag("UniqueViolation", (e) =>
            run((db) => db.selectFrom("users").select("id").where("email", "=", user.email.toLowerCase()).executeTakeFirst()).pipe(
              Effect.flatMap((row) => Effect.fail(row === undefined ? e : new UniqueViolation({ what: "email" }))),
            ),
          ),
        ),
      findById: (id) => exec((db) => byId(db, id)).pipe(Effect.flatMap((r) => decodeFirst(r.rows[0]))),
      findByEmail: (email) =>
        run((db) => db.selectFrom("users").selectAll().where("email", "=", email.toLowerCase()).executeTakeFirst()).pipe(Effect.flatMap(decodeFirst)),
      markEmailVerified: (id, at) => run((db) => db.updateTable("users").set({ email_verified_at: at }).where("id", "=", id).execute()).pipe(Effect.asVoid),
    })
  }),
)
