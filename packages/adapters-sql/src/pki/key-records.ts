/** `KeyRecords` over the `keys` table: the software KeyStore's encrypted keys. */
import { Effect, Layer, Schema } from "effect"
import { KeyRecords } from "@signet/core"
import type { StoredKey } from "@signet/core"
import { DbBigInt, decodeRow, decodeEach } from "../rows.ts"
import { guardedWrite, query, SqlDatabase } from "../sql-database.ts"

/** A `keys` row decoded to a `StoredKey`. */
export const StoredKeyFromRow: Schema.Schema<
  StoredKey,
  {
    readonly key_id: string
    readonly algorithm: string
    readonly public_jwk: string
    readonly encrypted_private_key: string
    readonly created_at: number | string
  }
> = Schema.transform(
  Schema.Struct({
    key_id: Schema.String,
    algorithm: Schema.String,
    public_jwk: Schema.String,
    encrypted_private_key: Schema.String,
    created_at: DbBigInt,
  }),
  Schema.Struct({
    keyId: Schema.String,
    algorithm: Schema.String,
    publicJwk: Schema.String,
    encryptedPrivateKey: Schema.String,
    createdAt: Schema.Number,
  }),
  {
    strict: true,
    decode: (r) => ({
      keyId: r.key_id,
      algorithm: r.algorithm,
      publicJwk: r.public_jwk,
      encryptedPrivateKey: r.encrypted_private_key,
      createdAt: r.created_at,
    }),
    encode: (k) => ({
      key_id: k.keyId,
      algorithm: k.algorithm,
      public_jwk: k.publicJwk,
      encrypted_private_key: k.encryptedPrivateKey,
      created_at: k.createdAt,
    }),
  },
)

const decode = decodeRow(StoredKeyFromRow)
const what = (): string => "key id"

/** `KeyRecords` on the SQL database. */
export const KeyRecordsSql: Layer.Layer<KeyRecords, never, SqlDatabase> = Layer.effect(
  KeyRecords,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    return KeyRecords.of({
      insert: (k) =>
        write(what, (db) =>
          db
            .insertInto("keys")
            .values({
              key_id: k.keyId,
              algorithm: k.algorithm,
              public_jwk: k.publicJwk,
              encrypted_private_key: k.encryptedPrivateKey,
              created_at: k.createdAt,
            })
            .execute(),
        ).pipe(Effect.asVoid),
      findById: (keyId) =>
        run((db) => db.selectFrom("keys").selectAll().where("key_id", "=", keyId).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))),
        ),
      list: () =>
        run((db) => db.selectFrom("keys").selectAll().orderBy("created_at").orderBy("key_id").execute()).pipe(
          Effect.flatMap((rows) => decodeEach(rows, decode)),
        ),
    })
  }),
)
