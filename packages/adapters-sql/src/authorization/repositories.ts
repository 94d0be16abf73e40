/** `StepUpProofs` and `AuditLog` over the `step_up_proofs` and `audit_events` tables (migration 0013). */
import { type AuditEvent, AuditLog, StepUpProofs } from "@signet/core"
import { Context, Effect, Layer, Schema } from "effect"
import { DbBigInt, decodeRow, decodeEach } from "../rows.ts"
import { query, SqlDatabase } from "../sql-database.ts"

const Detail = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null) }))
const decodeEvent = decodeRow(
  Schema.Struct({
    id: Schema.String,
    at: DbBigInt,
    action: Schema.String,
    actor_user_id: Schema.NullOr(Schema.String),
    actor_client_id: Schema.NullOr(Schema.String),
    subject: Schema.String,
    detail: Detail,
  }),
)

/** Both repositories on the SQL database. */
export const AuthorizationStorageSql: Layer.Layer<StepUpProofs | AuditLog, never, SqlDatabase> = Layer.effectContext(
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const proofs = StepUpProofs.of({
      insert: (p) =>
        run((db) =>
          db
            .insertInto("step_up_proofs")
            .values({
              proof_hash: p.proofHash,
              user_id: p.userId,
              client_id: p.clientId,
              action: p.action,
              created_at: p.createdAt,
              expires_at: p.expiresAt,
              consumed_at: null,
            })
            .execute(),
        ).pipe(Effect.asVoid),
      // One conditional UPDATE: of two concurrent requests with one proof, exactly one changes the row.
      consume: (c) =>
        run((db) =>
          db
            .updateTable("step_up_proofs")
            .set({ consumed_at: c.now })
            .where("proof_hash", "=", c.proofHash)
            .where("user_id", "=", c.userId)
            .where("client_id", "=", c.clientId)
            .where("action", "=", c.action)
            .where("consumed_at", "is", null)
            .where("expires_at", ">", c.now)
            .executeTakeFirst(),
        ).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
      purgeExpired: (now) =>
        run((db) => db.deleteFrom("step_up_proofs").where("expires_at", "<", now).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows))),
    })
    const audit = AuditLog.of({
      append: (e) =>
        run((db) =>
          db
            .insertInto("audit_events")
            .values({
              id: e.id,
              at: e.at,
              action: e.action,
              actor_user_id: e.actorUserId,
              actor_client_id: e.actorClientId,
              subject: e.subject,
              detail: JSON.stringify(e.detail),
            })
            .execute(),
        ).pipe(Effect.asVoid),
      recent: (limit) =>
        run((db) => db.selectFrom("audit_events").selectAll().orderBy("at", "desc").orderBy("id").limit(limit).execute()).pipe(
          Effect.flatMap((rows) => decodeEach(rows, decodeEvent)),
          Effect.map((rows) =>
            rows.map(
              (r): AuditEvent => ({
                id: r.id,
                at: r.at,
                action: r.action,
                actorUserId: r.actor_user_id,
                actorClientId: r.actor_client_id,
                subject: r.subject,
                detail: r.detail,
              }),
            ),
          ),
        ),
    })
    return Context.make(StepUpProofs, proofs).pipe(Context.add(AuditLog, audit))
  }),
)
