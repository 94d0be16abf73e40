/** `EncryptedFiles` and `SignatureImages` over `encrypted_files`, `encrypted_file_recipients` and `signature_images`. */
import { EncryptedFile, EncryptedFiles, SignatureImage, SignatureImages } from "@signet/core"
import { Effect, Layer, Schema } from "effect"
import { DbBigInt, decodeRow } from "../rows.ts"
import { guardedWrite, query, SqlDatabase } from "../sql-database.ts"

const FileRow = Schema.Struct({
  id: Schema.String,
  owner_user_id: Schema.String,
  name: Schema.String,
  size: DbBigInt,
  envelope: Schema.String,
  created_at: DbBigInt,
})
const decodeFile = decodeRow(FileRow)
const decodeFileValue = decodeRow(EncryptedFile)

/** A `signature_images` row decoded to the domain `SignatureImage`. */
export const SignatureImageFromRow = Schema.transform(
  Schema.Struct({
    user_id: Schema.String,
    sealed: Schema.String,
    width: Schema.Number,
    height: Schema.Number,
    size: Schema.Number,
    updated_at: DbBigInt,
  }),
  Schema.typeSchema(SignatureImage),
  {
    strict: true,
    decode: (r) => ({ userId: r.user_id, sealed: r.sealed, width: r.width, height: r.height, size: r.size, updatedAt: r.updated_at }),
    encode: (i) => ({ user_id: i.userId, sealed: i.sealed, width: i.width, height: i.height, size: i.size, updated_at: i.updatedAt }),
  },
)
const decodeImage = decodeRow(SignatureImageFromRow)

/** `EncryptedFiles` on the SQL database; callers insert and remove inside `Storage.transaction` (two tables). */
export const EncryptedFilesSql: Layer.Layer<EncryptedFiles, never, SqlDatabase> = Layer.effect(
  EncryptedFiles,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    const withRecipients = (row: unknown) =>
      Effect.gen(function* () {
        const file = yield* decodeFile(row)
        const recipients = yield* run((db) =>
          db.selectFrom("encrypted_file_recipients").select("user_id").where("file_id", "=", file.id).orderBy("position").execute(),
        )
        return yield* decodeFileValue({
          id: file.id,
          ownerUserId: file.owner_user_id,
          name: file.name,
          size: file.size,
          envelope: file.envelope,
          createdAt: file.created_at,
          recipients: recipients.map((r) => r.user_id),
        })
      })
    return EncryptedFiles.of({
      insert: (f) =>
        Effect.gen(function* () {
          yield* write(
            () => "file id",
            (db) =>
              db
                .insertInto("encrypted_files")
                .values({
                  id: f.id,
                  owner_user_id: f.ownerUserId,
                  name: f.name,
                  size: f.size,
                  envelope: f.envelope,
                  created_at: f.createdAt,
                })
                .execute(),
          )
          yield* run((db) =>
            db
              .insertInto("encrypted_file_recipients")
              .values(f.recipients.map((userId, position) => ({ file_id: f.id, user_id: userId, position })))
              .execute(),
          )
        }),
      findById: (id) =>
        run((db) => db.selectFrom("encrypted_files").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(withRecipients(row)))),
        ),
      listForUser: (userId, limit) =>
        run((db) =>
          db
            .selectFrom("encrypted_files")
            .selectAll()
            .where((eb) =>
              eb.or([
                eb("owner_user_id", "=", userId),
                eb("id", "in", eb.selectFrom("encrypted_file_recipients").select("file_id").where("user_id", "=", userId)),
              ]),
            )
            .orderBy("created_at", "desc")
            .orderBy("id", "asc")
            .limit(limit)
            .execute(),
        ).pipe(Effect.flatMap(Effect.forEach(withRecipients))),
      remove: (id) =>
        Effect.gen(function* () {
          yield* run((db) => db.deleteFrom("encrypted_file_recipients").where("file_id", "=", id).execute())
          yield* run((db) => db.deleteFrom("encrypted_files").where("id", "=", id).execute())
        }),
    })
  }),
)

/** `SignatureImages` on the SQL database. */
export const SignatureImagesSql: Layer.Layer<SignatureImages, never, SqlDatabase> = Layer.effect(
  SignatureImages,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    return SignatureImages.of({
      save: (i) =>
        run((db) =>
          db
            .insertInto("signature_images")
            .values({ user_id: i.userId, sealed: i.sealed, width: i.width, height: i.height, size: i.size, updated_at: i.updatedAt })
            .onConflict((oc) => oc.column("user_id").doUpdateSet({ sealed: i.sealed, width: i.width, height: i.height, size: i.size, updated_at: i.updatedAt }))
            .execute(),
        ).pipe(Effect.asVoid),
      findByUser: (userId) =>
        run((db) => db.selectFrom("signature_images").selectAll().where("user_id", "=", userId).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(decodeImage(row)))),
        ),
      remove: (userId) =>
        run((db) => db.deleteFrom("signature_images").where("user_id", "=", userId).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows) > 0)),
    })
  }),
)

/** Both documents repositories. */
export const DocumentsStorageSql = Layer.merge(EncryptedFilesSql, SignatureImagesSql)
