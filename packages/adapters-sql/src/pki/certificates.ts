/** `Certificates` over the `certificates` table. */
import { Certificates, StoredCertificate } from "@signet/core"
import { Effect, Layer, Schema } from "effect"
import type { Insertable } from "kysely"
import { DbBigInt, decodeRowRemembered, rowEncoder, decodeEach } from "../rows.ts"
import type { CertificatesTable } from "./tables.ts"
import { cachedRead, guardedWrite, query, SqlDatabase, execute, prepare } from "../sql-database.ts"

/** A `certificates` row decoded to the domain `StoredCertificate`. */
export const CertificateFromRow = Schema.transform(
  Schema.Struct({
    serial: Schema.String,
    kind: Schema.String,
    environment: Schema.String,
    user_id: Schema.NullOr(Schema.String),
    key_id: Schema.String,
    subject: Schema.String,
    issuer_serial: Schema.NullOr(Schema.String),
    der: Schema.String,
    not_before: DbBigInt,
    not_after: DbBigInt,
    status: Schema.String,
    revoked_at: Schema.NullOr(DbBigInt),
    revocation_reason: Schema.NullOr(Schema.String),
    created_at: DbBigInt,
  }),
  Schema.typeSchema(StoredCertificate),
  {
    strict: false,
    decode: (r) => ({
      serial: r.serial,
      kind: r.kind,
      environment: r.environment,
      userId: r.user_id,
      keyId: r.key_id,
      subject: r.subject,
      issuerSerial: r.issuer_serial,
      der: r.der,
      notBefore: r.not_before,
      notAfter: r.not_after,
      status: r.status,
      revokedAt: r.revoked_at,
      revocationReason: r.revocation_reason,
      createdAt: r.created_at,
    }),
    encode: (c) => ({
      serial: c.serial,
      kind: c.kind,
      environment: c.environment,
      user_id: c.userId,
      key_id: c.keyId,
      subject: c.subject,
      issuer_serial: c.issuerSerial,
      der: c.der,
      not_before: c.notBefore,
      not_after: c.notAfter,
      status: c.status,
      revoked_at: c.revokedAt,
      revocation_reason: c.revocationReason,
      created_at: c.createdAt,
    }),
  },
)

// the CA and the signer's certificates, read on every completion: an unchanged row is not decoded again
const decode = decodeRowRemembered(CertificateFromRow, "serial")
const toRow = rowEncoder<Insertable<CertificatesTable>>()(CertificateFromRow)

/** `Certificates` on the SQL database. */
export const CertificatesSql: Layer.Layer<Certificates, never, SqlDatabase> = Layer.effect(
  Certificates,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    const first = (row: unknown) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))
    const exec = execute(service)
    // the CA and the signer's certificates, read at every completion
    const currentCa = prepare((db, kind: string, environment: string) =>
      db
        .selectFrom("certificates")
        .selectAll()
        .where("kind", "=", kind)
        .where("environment", "=", environment)
        .where("status", "=", "valid")
        .orderBy("created_at", "asc")
        .orderBy("serial", "asc")
        .limit(1),
    )
    // Both CAs in one statement, oldest first within each kind: one read where two cost five times as much on SQLite.
    const fromCache = cachedRead(service, "certificates")
    const currentCas = prepare((db, environment: string) =>
      db
        .selectFrom("certificates")
        .selectAll()
        .where("kind", "in", ["root", "issuing"])
        .where("environment", "=", environment)
        .where("status", "=", "valid")
        .orderBy("kind", "asc")
        .orderBy("created_at", "asc")
        .orderBy("serial", "asc"),
    )
    const byUser = prepare((db, userId: string) =>
      db.selectFrom("certificates").selectAll().where("user_id", "=", userId).orderBy("created_at", "desc").orderBy("serial", "asc"),
    )
    return Certificates.of({
      insert: (c) =>
        write(
          () => "certificate serial",
          (db) => db.insertInto("certificates").values(toRow(c)).execute(),
        ).pipe(Effect.asVoid),
      findBySerial: (serial) =>
        run((db) => db.selectFrom("certificates").selectAll().where("serial", "=", serial).executeTakeFirst()).pipe(Effect.flatMap(first)),
      // The oldest valid one: nodes that raced to create a CA all settle on the first row written.
      findCurrentCa: (kind, environment) => exec((db) => currentCa(db, kind, environment)).pipe(Effect.flatMap((r) => first(r.rows[0]))),
      findCurrentCas: (environment) =>
        fromCache((db) => currentCas(db, environment)).pipe(
          Effect.flatMap((r) => {
            const rows = r.rows as ReadonlyArray<{ readonly kind: string }>
            return Effect.all({ root: first(rows.find((row) => row.kind === "root")), issuing: first(rows.find((row) => row.kind === "issuing")) })
          }),
        ),
      listByUser: (userId) => exec((db) => byUser(db, userId)).pipe(Effect.flatMap((r) => decodeEach(r.rows, decode))),
      listRevokedBy: (issuerSerial) =>
        run((db) =>
          db
            .selectFrom("certificates")
            .selectAll()
            .where("issuer_serial", "=", issuerSerial)
            .where("status", "=", "revoked")
            .orderBy("revoked_at", "asc")
            .orderBy("serial", "asc")
            .execute(),
        ).pipe(Effect.flatMap((rows) => decodeEach(rows, decode))),
      revoke: (serial, at, reason) =>
        run((db) =>
          db
            .updateTable("certificates")
            .set({ status: "revoked", revoked_at: at, revocation_reason: reason })
            .where("serial", "=", serial)
            .where("status", "=", "valid")
            .execute(),
        ).pipe(Effect.asVoid),
    })
  }),
)
