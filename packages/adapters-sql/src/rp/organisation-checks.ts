/** `RpOrganisationChecks` over the append-only `rp_organisation_checks` table. */
import { Effect, Layer, Schema } from "effect"
import { OrganisationCheck, OrganisationCheckStatus, OrganisationDocument, RpOrganisationChecks } from "@signet/core"
import { DbBigInt, decodeRow, decodeEach } from "../rows.ts"
import { query, SqlDatabase } from "../sql-database.ts"

/** An `rp_organisation_checks` row decoded to the domain `OrganisationCheck`. */
export const OrganisationCheckFromRow = Schema.transform(
  Schema.Struct({
    id: DbBigInt,
    client_id: Schema.String,
    status: OrganisationCheckStatus,
    legal_name: Schema.String,
    registration_number: Schema.String,
    country: Schema.String,
    documents: Schema.parseJson(Schema.Array(OrganisationDocument)),
    submitted_by: Schema.NullOr(Schema.String),
    checked_by: Schema.NullOr(Schema.String),
    note: Schema.NullOr(Schema.String),
    created_at: DbBigInt,
  }),
  OrganisationCheck,
  {
    strict: true,
    decode: (r) => ({
      id: r.id,
      clientId: r.client_id,
      status: r.status,
      legalName: r.legal_name,
      registrationNumber: r.registration_number,
      country: r.country,
      documents: r.documents,
      submittedBy: r.submitted_by,
      checkedBy: r.checked_by,
      note: r.note,
      createdAt: r.created_at,
    }),
    encode: (c) => ({
      id: c.id,
      client_id: c.clientId,
      status: c.status,
      legal_name: c.legalName,
      registration_number: c.registrationNumber,
      country: c.country,
      documents: c.documents,
      submitted_by: c.submittedBy,
      checked_by: c.checkedBy,
      note: c.note,
      created_at: c.createdAt,
    }),
  },
)

const decode = decodeRow(OrganisationCheckFromRow)

/** `RpOrganisationChecks` on the SQL database. */
export const RpOrganisationChecksSql: Layer.Layer<RpOrganisationChecks, never, SqlDatabase> = Layer.effect(
  RpOrganisationChecks,
  Effect.gen(function* () {
    const run = query(yield* SqlDatabase)
    return RpOrganisationChecks.of({
      insert: (c) =>
        run((db) =>
          db
            .insertInto("rp_organisation_checks")
            .values({
              client_id: c.clientId,
              status: c.status,
              legal_name: c.legalName,
              registration_number: c.registrationNumber,
              country: c.country,
              documents: JSON.stringify(c.documents),
              submitted_by: c.submittedBy,
              checked_by: c.checkedBy,
              note: c.note,
              created_at: c.createdAt,
            })
            .returningAll()
            .executeTakeFirstOrThrow(),
        ).pipe(Effect.flatMap(decode)),
      listByClientId: (clientId) =>
        run((db) => db.selectFrom("rp_organisation_checks").selectAll().where("client_id", "=", clientId).orderBy("id").execute()).pipe(
          Effect.flatMap((rows) => decodeEach(rows, decode)),
        ),
    })
  }),
)
