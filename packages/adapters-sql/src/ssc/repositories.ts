/** `SscOperations` over the `ssc_operations` table. */
import { SscOperation, SscOperations } from "@signet/core"
import { Effect, Layer, Schema } from "effect"
import type { Insertable } from "kysely"
import { DbBigInt, decodeRow, rowEncoder } from "../rows.ts"
import type { SscOperationsTable } from "./tables.ts"
import { guardedWrite, query, SqlDatabase } from "../sql-database.ts"

/** An `ssc_operations` row decoded to the domain `SscOperation`. */
export const SscOperationFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    client_id: Schema.String,
    token_id: Schema.String,
    document_hash: Schema.String,
    document_name: Schema.String,
    loa: Schema.String,
    mode: Schema.String,
    rp_origin: Schema.String,
    user_id: Schema.NullOr(Schema.String),
    credential_id: Schema.NullOr(Schema.String),
    status: Schema.String,
    nonce: Schema.String,
    failed_attempts: Schema.Number,
    created_at: DbBigInt,
    expires_at: DbBigInt,
    completed_at: Schema.NullOr(DbBigInt),
    signature_id: Schema.NullOr(Schema.String),
    signature: Schema.NullOr(Schema.String),
    certificate_serial: Schema.NullOr(Schema.String),
    error_message: Schema.NullOr(Schema.String),
  }),
  Schema.typeSchema(SscOperation),
  {
    strict: false,
    decode: (r) => ({
      id: r.id,
      clientId: r.client_id,
      tokenId: r.token_id,
      documentHash: r.document_hash,
      documentName: r.document_name,
      loa: r.loa,
      mode: r.mode,
      rpOrigin: r.rp_origin,
      userId: r.user_id,
      credentialId: r.credential_id,
      status: r.status,
      nonce: r.nonce,
      failedAttempts: r.failed_attempts,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      completedAt: r.completed_at,
      signatureId: r.signature_id,
      signature: r.signature,
      certificateSerial: r.certificate_serial,
      errorMessage: r.error_message,
    }),
    encode: (o) => ({
      id: o.id,
      client_id: o.clientId,
      token_id: o.tokenId,
      document_hash: o.documentHash,
      document_name: o.documentName,
      loa: o.loa,
      mode: o.mode,
      rp_origin: o.rpOrigin,
      user_id: o.userId,
      credential_id: o.credentialId,
      status: o.status,
      nonce: o.nonce,
      failed_attempts: o.failedAttempts,
      created_at: o.createdAt,
      expires_at: o.expiresAt,
      completed_at: o.completedAt,
      signature_id: o.signatureId,
      signature: o.signature,
      certificate_serial: o.certificateSerial,
      error_message: o.errorMessage,
    }),
  },
)

/** `SscOperations` on the SQL database. */
export const SscOperationsSql: Layer.Layer<SscOperations, never, SqlDatabase> = Layer.effect(
  SscOperations,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    const decode = decodeRow(SscOperationFromRow)
    const toRow = rowEncoder<Insertable<SscOperationsTable>>()(SscOperationFromRow)
    return SscOperations.of({
      insert: (o) =>
        write(
          () => "operation id",
          (db) => db.insertInto("ssc_operations").values(toRow(o)).execute(),
        ).pipe(Effect.asVoid),
      clientIdsSignedWith: (serial) =>
        run((db) =>
          db.selectFrom("ssc_operations").select("client_id").distinct().where("certificate_serial", "=", serial).where("status", "=", "finalized").execute(),
        ).pipe(Effect.map((rows) => rows.map((r) => r.client_id))),
      findById: (id) =>
        run((db) => db.selectFrom("ssc_operations").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))),
        ),
      update: (next, expected) =>
        run((db) => db.updateTable("ssc_operations").set(toRow(next)).where("id", "=", next.id).where("status", "=", expected).executeTakeFirst()).pipe(
          Effect.map((r) => Number(r.numUpdatedRows) === 1),
        ),
    })
  }),
)
