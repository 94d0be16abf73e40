/** `PreparedPdfs` over the `prepared_pdfs` table (the sealed bytes in a BLOB / bytea column). */
import { PreparedPdfs, type PreparedPdf } from "@signet/core"
import { Effect, Layer, Schema } from "effect"
import { DbBigInt, decodeRow } from "../rows.ts"
import { guardedWrite, query, SqlDatabase } from "../sql-database.ts"

const Row = Schema.Struct({
  request_id: Schema.String,
  client_id: Schema.String,
  user_id: Schema.String,
  sealed: Schema.Uint8ArrayFromSelf,
  contents_offset: DbBigInt,
  contents_bytes: Schema.Number,
  field_name: Schema.String,
  level: Schema.Literal("PAdES-BASELINE-B", "PAdES-BASELINE-T", "PAdES-BASELINE-LT", "PAdES-BASELINE-LTA"),
  created_at: DbBigInt,
})
const decode = decodeRow(Row)
const fromRow = (r: typeof Row.Type): PreparedPdf => ({
  requestId: r.request_id,
  clientId: r.client_id,
  userId: r.user_id,
  sealed: new Uint8Array(r.sealed),
  contentsOffset: r.contents_offset,
  contentsBytes: r.contents_bytes,
  fieldName: r.field_name,
  level: r.level,
  createdAt: r.created_at,
})

/** `PreparedPdfs` on the SQL database. */
export const PreparedPdfsSql: Layer.Layer<PreparedPdfs, never, SqlDatabase> = Layer.effect(
  PreparedPdfs,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    return PreparedPdfs.of({
      insert: (p) =>
        write(
          () => "prepared PDF request id",
          (db) =>
            db
              .insertInto("prepared_pdfs")
              .values({
                request_id: p.requestId,
                client_id: p.clientId,
                user_id: p.userId,
                sealed: p.sealed,
                contents_offset: p.contentsOffset,
                contents_bytes: p.contentsBytes,
                field_name: p.fieldName,
                level: p.level,
                created_at: p.createdAt,
              })
              .execute(),
        ).pipe(Effect.asVoid),
      findByRequestId: (id) =>
        run((db) => db.selectFrom("prepared_pdfs").selectAll().where("request_id", "=", id).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(Effect.map(decode(row), fromRow)))),
        ),
      purgeBefore: (before) =>
        run((db) => db.deleteFrom("prepared_pdfs").where("created_at", "<", before).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows))),
    })
  }),
)
