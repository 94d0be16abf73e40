/** The KYC repositories over `kyc_verifications`, `kyc_captures`, `kyc_images`, `kyc_audit` and `kyc_settings`. */
import { KycAudit, KycAuditEntry, KycCapture, KycCaptures, KycImage, KycImages, KycRpSettings, KycVerification, KycVerifications } from "@signet/core"
import { Effect, Layer, Schema } from "effect"
import type { Insertable } from "kysely"
import { DbBigInt, DbFlag, DbStringArray, decodeRow, rowEncoder, decodeEach } from "../rows.ts"
import type { KycAuditTable, KycCapturesTable, KycImagesTable, KycSettingsTable, KycVerificationsTable } from "./tables.ts"
import { guardedWrite, query, SqlDatabase } from "../sql-database.ts"

/** A float column: PostgreSQL `double precision` and SQLite `real` both read back as numbers. */
const DbNumber = Schema.Union(Schema.Number, Schema.NumberFromString)

/** A `kyc_verifications` row decoded to the domain `KycVerification`. */
export const KycVerificationFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    client_id: Schema.String,
    customer_id: Schema.String,
    phone_number: Schema.String,
    rp_urn: Schema.NullOr(Schema.String),
    status: Schema.String,
    document: Schema.NullOr(Schema.String),
    liveness_score: Schema.NullOr(DbNumber),
    face_match_score: Schema.NullOr(DbNumber),
    reasons: Schema.String,
    session_token_hash: Schema.NullOr(Schema.String),
    session_expires_at: Schema.NullOr(DbBigInt),
    selfie_image_id: Schema.NullOr(Schema.String),
    created_at: DbBigInt,
    updated_at: DbBigInt,
    version: Schema.Number,
  }),
  Schema.typeSchema(KycVerification),
  {
    strict: false,
    decode: (r) => ({
      id: r.id,
      clientId: r.client_id,
      customerId: r.customer_id,
      phoneNumber: r.phone_number,
      rpUrn: r.rp_urn,
      status: r.status,
      document: r.document === null ? null : JSON.parse(r.document),
      livenessScore: r.liveness_score,
      faceMatchScore: r.face_match_score,
      reasons: JSON.parse(r.reasons),
      sessionTokenHash: r.session_token_hash,
      sessionExpiresAt: r.session_expires_at,
      selfieImageId: r.selfie_image_id,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      version: r.version,
    }),
    encode: (v) => ({
      id: v.id,
      client_id: v.clientId,
      customer_id: v.customerId,
      phone_number: v.phoneNumber,
      rp_urn: v.rpUrn,
      status: v.status,
      document: v.document === null ? null : JSON.stringify(v.document),
      liveness_score: v.livenessScore,
      face_match_score: v.faceMatchScore,
      reasons: JSON.stringify(v.reasons),
      session_token_hash: v.sessionTokenHash,
      session_expires_at: v.sessionExpiresAt,
      selfie_image_id: v.selfieImageId,
      created_at: v.createdAt,
      updated_at: v.updatedAt,
      version: v.version,
    }),
  },
)

/** A `kyc_captures` row decoded to the domain `KycCapture`. */
export const KycCaptureFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    verification_id: Schema.String,
    liveness_score: DbNumber,
    selfie_image_id: Schema.String,
    created_at: DbBigInt,
    consumed_at: Schema.NullOr(DbBigInt),
  }),
  Schema.typeSchema(KycCapture),
  {
    strict: true,
    decode: (r) => ({
      id: r.id,
      verificationId: r.verification_id,
      livenessScore: r.liveness_score,
      selfieImageId: r.selfie_image_id,
      createdAt: r.created_at,
      consumedAt: r.consumed_at,
    }),
    encode: (c) => ({
      id: c.id,
      verification_id: c.verificationId,
      liveness_score: c.livenessScore,
      selfie_image_id: c.selfieImageId,
      created_at: c.createdAt,
      consumed_at: c.consumedAt,
    }),
  },
)

/** A `kyc_images` row decoded to the domain `KycImage`. */
export const KycImageFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    verification_id: Schema.String,
    kind: Schema.String,
    position: Schema.Number,
    content_type: Schema.String,
    ciphertext: Schema.String,
    created_at: DbBigInt,
  }),
  Schema.typeSchema(KycImage),
  {
    strict: false,
    decode: (r) => ({
      id: r.id,
      verificationId: r.verification_id,
      kind: r.kind,
      position: r.position,
      contentType: r.content_type,
      ciphertext: r.ciphertext,
      createdAt: r.created_at,
    }),
    encode: (i) => ({
      id: i.id,
      verification_id: i.verificationId,
      kind: i.kind,
      position: i.position,
      content_type: i.contentType,
      ciphertext: i.ciphertext,
      created_at: i.createdAt,
    }),
  },
)

/** A `kyc_audit` row decoded to the domain `KycAuditEntry`. */
export const KycAuditEntryFromRow = Schema.transform(
  Schema.Struct({
    verification_id: Schema.String,
    client_id: Schema.String,
    action: Schema.String,
    from_status: Schema.NullOr(Schema.String),
    to_status: Schema.NullOr(Schema.String),
    reasons: DbStringArray,
    at: DbBigInt,
  }),
  Schema.typeSchema(KycAuditEntry),
  {
    strict: true,
    decode: (r) => ({
      verificationId: r.verification_id,
      clientId: r.client_id,
      action: r.action,
      fromStatus: r.from_status,
      toStatus: r.to_status,
      reasons: r.reasons,
      at: r.at,
    }),
    encode: (e) => ({
      verification_id: e.verificationId,
      client_id: e.clientId,
      action: e.action,
      from_status: e.fromStatus,
      to_status: e.toStatus,
      reasons: e.reasons,
      at: e.at,
    }),
  },
)

/** A `kyc_settings` row decoded to the domain `KycRpSettings`. */
export const KycRpSettingsFromRow = Schema.transform(
  Schema.Struct({ client_id: Schema.String, enabled: DbFlag, identity_scope: Schema.String, updated_at: DbBigInt }),
  Schema.typeSchema(KycRpSettings),
  {
    strict: false,
    decode: (r) => ({ clientId: r.client_id, enabled: r.enabled, identityScope: r.identity_scope, updatedAt: r.updated_at }),
    encode: (s) => ({ client_id: s.clientId, enabled: s.enabled, identity_scope: s.identityScope, updated_at: s.updatedAt }),
  },
)

const whatOf = (columns: ReadonlyArray<string>) =>
  columns.includes("phone_number") || columns.some((c) => c.includes("phone"))
    ? "phone_number"
    : columns.includes("rp_urn") || columns.some((c) => c.includes("urn"))
      ? "rp_urn"
      : "customer_id"

/** `KycVerifications` on the SQL database. */
export const KycVerificationsSql: Layer.Layer<KycVerifications, never, SqlDatabase> = Layer.effect(
  KycVerifications,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    const decode = decodeRow(KycVerificationFromRow)
    const toRow = rowEncoder<Insertable<KycVerificationsTable>>()(KycVerificationFromRow)
    const one = (find: Parameters<typeof run<unknown>>[0]) =>
      run(find).pipe(Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))))
    return KycVerifications.of({
      insert: (v) => write(whatOf, (db) => db.insertInto("kyc_verifications").values(toRow(v)).execute()).pipe(Effect.asVoid),
      findByCustomer: (clientId, customerId) =>
        one((db) => db.selectFrom("kyc_verifications").selectAll().where("client_id", "=", clientId).where("customer_id", "=", customerId).executeTakeFirst()),
      findByPhone: (clientId, phone) =>
        one((db) => db.selectFrom("kyc_verifications").selectAll().where("client_id", "=", clientId).where("phone_number", "=", phone).executeTakeFirst()),
      findByRpUrn: (clientId, urn) =>
        one((db) => db.selectFrom("kyc_verifications").selectAll().where("client_id", "=", clientId).where("rp_urn", "=", urn).executeTakeFirst()),
      findById: (id) => one((db) => db.selectFrom("kyc_verifications").selectAll().where("id", "=", id).executeTakeFirst()),
      findBySessionToken: (hash) => one((db) => db.selectFrom("kyc_verifications").selectAll().where("session_token_hash", "=", hash).executeTakeFirst()),
      findVerifiedAnywhere: (customerId) =>
        one((db) =>
          db
            .selectFrom("kyc_verifications")
            .selectAll()
            .where("customer_id", "=", customerId)
            .where("status", "=", "verified")
            .orderBy("updated_at", "desc")
            .orderBy("id")
            .executeTakeFirst(),
        ),
      list: (filter) =>
        run((db) => {
          let q = db.selectFrom("kyc_verifications").selectAll()
          if (filter.clientId !== undefined) q = q.where("client_id", "=", filter.clientId)
          if (filter.status !== undefined) q = q.where("status", "=", filter.status)
          return q.orderBy("updated_at", "desc").orderBy("id").limit(filter.limit).execute()
        }).pipe(Effect.flatMap((rows) => decodeEach(rows, decode))),
      update: (next, expectedVersion) =>
        write(whatOf, (db) =>
          db.updateTable("kyc_verifications").set(toRow(next)).where("id", "=", next.id).where("version", "=", expectedVersion).executeTakeFirst(),
        ).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
      remove: (id) =>
        run(async (db) => {
          await db.deleteFrom("kyc_images").where("verification_id", "=", id).execute()
          await db.deleteFrom("kyc_captures").where("verification_id", "=", id).execute()
          await db.deleteFrom("kyc_verifications").where("id", "=", id).execute()
        }),
    })
  }),
)

/** `KycCaptures` on the SQL database. */
export const KycCapturesSql: Layer.Layer<KycCaptures, never, SqlDatabase> = Layer.effect(
  KycCaptures,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    const decode = decodeRow(KycCaptureFromRow)
    const toRow = rowEncoder<Insertable<KycCapturesTable>>()(KycCaptureFromRow)
    return KycCaptures.of({
      insert: (c) =>
        write(
          () => "capture id",
          (db) => db.insertInto("kyc_captures").values(toRow(c)).execute(),
        ).pipe(Effect.asVoid),
      findById: (id) =>
        run((db) => db.selectFrom("kyc_captures").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))),
        ),
      consume: (id, at) =>
        run((db) => db.updateTable("kyc_captures").set({ consumed_at: at }).where("id", "=", id).where("consumed_at", "is", null).executeTakeFirst()).pipe(
          Effect.map((r) => Number(r.numUpdatedRows) === 1),
        ),
    })
  }),
)

/** `KycImages` on the SQL database. */
export const KycImagesSql: Layer.Layer<KycImages, never, SqlDatabase> = Layer.effect(
  KycImages,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    const decode = decodeRow(KycImageFromRow)
    const toRow = rowEncoder<Insertable<KycImagesTable>>()(KycImageFromRow)
    return KycImages.of({
      insert: (i) =>
        write(
          () => "image id",
          (db) => db.insertInto("kyc_images").values(toRow(i)).execute(),
        ).pipe(Effect.asVoid),
      findById: (id) =>
        run((db) => db.selectFrom("kyc_images").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))),
        ),
      listFor: (verificationId, kind) =>
        run((db) =>
          db
            .selectFrom("kyc_images")
            .selectAll()
            .where("verification_id", "=", verificationId)
            .where("kind", "=", kind)
            .orderBy("position")
            .orderBy("created_at")
            .orderBy("id")
            .execute(),
        ).pipe(Effect.flatMap((rows) => decodeEach(rows, decode))),
      removeFor: (verificationId, kind) =>
        run((db) => db.deleteFrom("kyc_images").where("verification_id", "=", verificationId).where("kind", "=", kind).execute()).pipe(Effect.asVoid),
      purgeBefore: (before) =>
        run((db) => db.deleteFrom("kyc_images").where("created_at", "<", before).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows))),
    })
  }),
)

/** `KycAudit` (log and per-RP settings) on the SQL database. */
export const KycAuditSql: Layer.Layer<KycAudit, never, SqlDatabase> = Layer.effect(
  KycAudit,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const decodeEntry = decodeRow(KycAuditEntryFromRow)
    const decodeSettings = decodeRow(KycRpSettingsFromRow)
    const settingsRow = rowEncoder<Insertable<KycSettingsTable>>()(KycRpSettingsFromRow)
    const encodeEntry = rowEncoder<Insertable<KycAuditTable>>()(KycAuditEntryFromRow)
    return KycAudit.of({
      append: (e) => run((db) => db.insertInto("kyc_audit").values(encodeEntry(e)).execute()).pipe(Effect.asVoid),
      listFor: (verificationId) =>
        run((db) =>
          db
            .selectFrom("kyc_audit")
            .select(["verification_id", "client_id", "action", "from_status", "to_status", "reasons", "at"])
            .where("verification_id", "=", verificationId)
            .orderBy("seq")
            .execute(),
        ).pipe(Effect.flatMap((rows) => decodeEach(rows, decodeEntry))),
      settingsOf: (clientId) =>
        run((db) => db.selectFrom("kyc_settings").selectAll().where("client_id", "=", clientId).executeTakeFirst()).pipe(
          Effect.flatMap((row) => (row === undefined ? Effect.succeedNone : Effect.asSome(decodeSettings(row)))),
        ),
      saveSettings: (s) =>
        run((db) =>
          db
            .insertInto("kyc_settings")
            .values(settingsRow(s))
            .onConflict((oc) => oc.column("client_id").doUpdateSet({ enabled: s.enabled ? 1 : 0, identity_scope: s.identityScope, updated_at: s.updatedAt }))
            .execute(),
        ).pipe(Effect.asVoid),
    })
  }),
)

/** Every KYC repository. */
export const KycStorageSql = Layer.mergeAll(KycVerificationsSql, KycCapturesSql, KycImagesSql, KycAuditSql)
