/** `RelyingParties` over the `relying_parties` table. */
import { Effect, Layer, Schema } from "effect"
import type { Insertable } from "kysely"
import { AllowanceSchema, Environment, IdTokenAlgorithm, Loa, PlanId, RelyingParties, RelyingParty, RpStatus } from "@signet/core"
import type { NewRelyingParty } from "@signet/core"
import { DbBigInt, DbFlag, DbStringArray, decodeRowRemembered, flag, decodeEach } from "../rows.ts"
import type { RelyingPartiesTable } from "./tables.ts"
import { cachedRead, guardedWrite, query, SqlDatabase, prepare } from "../sql-database.ts"

const retired = (hash: string | null, until: number | null) => (hash === null || until === null ? null : { hash, validUntil: until })

/** A `relying_parties` row as the drivers return it, decoded to the domain `RelyingParty`. */
export const RelyingPartyFromRow = Schema.transform(
  Schema.Struct({
    id: DbBigInt,
    client_id: Schema.String,
    name: Schema.String,
    environment: Environment,
    client_secret_hash: Schema.String,
    ssc_secret_hash: Schema.String,
    status: RpStatus,
    max_loa: Loa,
    kyc_verified: DbFlag,
    signing_origins: DbStringArray,
    webauthn_rp_id: Schema.String,
    plan: Schema.NullOr(PlanId),
    custom_allowance: Schema.NullOr(Schema.parseJson(AllowanceSchema)),
    contact_user_id: Schema.NullOr(Schema.String),
    created_at: DbBigInt,
    updated_at: DbBigInt,
    redirect_uris: DbStringArray,
    post_logout_redirect_uris: DbStringArray,
    requested_plan: Schema.NullOr(PlanId),
    retired_client_secret_hash: Schema.NullOr(Schema.String),
    retired_client_secret_until: Schema.NullOr(DbBigInt),
    retired_ssc_secret_hash: Schema.NullOr(Schema.String),
    retired_ssc_secret_until: Schema.NullOr(DbBigInt),
    id_token_signed_response_alg: IdTokenAlgorithm,
  }),
  RelyingParty,
  {
    strict: true,
    decode: (r) => ({
      id: r.id,
      clientId: r.client_id,
      name: r.name,
      environment: r.environment,
      clientSecretHash: r.client_secret_hash,
      sscSecretHash: r.ssc_secret_hash,
      status: r.status,
      maxLoa: r.max_loa,
      kycVerified: r.kyc_verified,
      signingOrigins: r.signing_origins,
      webauthnRpId: r.webauthn_rp_id,
      plan: r.plan,
      customAllowance: r.custom_allowance,
      contactUserId: r.contact_user_id,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      redirectUris: r.redirect_uris,
      postLogoutRedirectUris: r.post_logout_redirect_uris,
      requestedPlan: r.requested_plan,
      retiredClientSecret: retired(r.retired_client_secret_hash, r.retired_client_secret_until),
      retiredSscSecret: retired(r.retired_ssc_secret_hash, r.retired_ssc_secret_until),
      idTokenSignedResponseAlg: r.id_token_signed_response_alg,
    }),
    encode: (rp) => ({
      id: rp.id,
      client_id: rp.clientId,
      name: rp.name,
      environment: rp.environment,
      client_secret_hash: rp.clientSecretHash,
      ssc_secret_hash: rp.sscSecretHash,
      status: rp.status,
      max_loa: rp.maxLoa,
      kyc_verified: rp.kycVerified,
      signing_origins: rp.signingOrigins,
      webauthn_rp_id: rp.webauthnRpId,
      plan: rp.plan,
      custom_allowance: rp.customAllowance,
      contact_user_id: rp.contactUserId,
      created_at: rp.createdAt,
      updated_at: rp.updatedAt,
      redirect_uris: rp.redirectUris,
      post_logout_redirect_uris: rp.postLogoutRedirectUris,
      requested_plan: rp.requestedPlan,
      retired_client_secret_hash: rp.retiredClientSecret?.hash ?? null,
      retired_client_secret_until: rp.retiredClientSecret?.validUntil ?? null,
      retired_ssc_secret_hash: rp.retiredSscSecret?.hash ?? null,
      retired_ssc_secret_until: rp.retiredSscSecret?.validUntil ?? null,
      id_token_signed_response_alg: rp.idTokenSignedResponseAlg,
    }),
  },
)

const toRow = (rp: NewRelyingParty): Omit<Insertable<RelyingPartiesTable>, "id"> => ({
  client_id: rp.clientId,
  name: rp.name,
  environment: rp.environment,
  client_secret_hash: rp.clientSecretHash,
  ssc_secret_hash: rp.sscSecretHash,
  status: rp.status,
  max_loa: rp.maxLoa,
  kyc_verified: flag(rp.kycVerified),
  signing_origins: JSON.stringify(rp.signingOrigins),
  webauthn_rp_id: rp.webauthnRpId,
  plan: rp.plan,
  custom_allowance: rp.customAllowance === null ? null : JSON.stringify(rp.customAllowance),
  contact_user_id: rp.contactUserId,
  created_at: rp.createdAt,
  updated_at: rp.updatedAt,
  redirect_uris: JSON.stringify(rp.redirectUris),
  post_logout_redirect_uris: JSON.stringify(rp.postLogoutRedirectUris),
  requested_plan: rp.requestedPlan,
  retired_client_secret_hash: rp.retiredClientSecret?.hash ?? null,
  retired_client_secret_until: rp.retiredClientSecret?.validUntil ?? null,
  retired_ssc_secret_hash: rp.retiredSscSecret?.hash ?? null,
  retired_ssc_secret_until: rp.retiredSscSecret?.validUntil ?? null,
  id_token_signed_response_alg: rp.idTokenSignedResponseAlg,
})

// read on every signing request: an unchanged row is not decoded again
const decode = decodeRowRemembered(RelyingPartyFromRow, "id")
// RP ids are `integer` (32-bit on PostgreSQL): an id outside that range names no RP, and must not reach PG as an out-of-range error.
const isRowId = (id: number): boolean => Number.isInteger(id) && id >= 1 && id <= 2_147_483_647
const what = (columns: ReadonlyArray<string>): string => (columns.includes("client_id") ? "client id" : "relying party id")

/** `RelyingParties` on the SQL database. */
export const RelyingPartiesSql: Layer.Layer<RelyingParties, never, SqlDatabase> = Layer.effect(
  RelyingParties,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    const decodeFirst = (row: unknown) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))
    // read on every signing request
    const fromCache = cachedRead(service, "relying_parties")
    const byClientId = prepare((db, clientId: string) => db.selectFrom("relying_parties").selectAll().where("client_id", "=", clientId))
    return RelyingParties.of({
      insert: (rp) =>
        write(what, (db) => db.insertInto("relying_parties").values(toRow(rp)).returningAll().executeTakeFirstOrThrow()).pipe(Effect.flatMap(decode)),
      update: (rp) =>
        !isRowId(rp.id) ? Effect.void : run((db) => db.updateTable("relying_parties").set(toRow(rp)).where("id", "=", rp.id).execute()).pipe(Effect.asVoid),
      findById: (id) =>
        !isRowId(id)
          ? Effect.succeedNone
          : run((db) => db.selectFrom("relying_parties").selectAll().where("id", "=", id).executeTakeFirst()).pipe(Effect.flatMap(decodeFirst)),
      findByClientId: (clientId) => fromCache((db) => byClientId(db, clientId)).pipe(Effect.flatMap((r) => decodeFirst(r.rows[0]))),
      list: () =>
        run((db) => db.selectFrom("relying_parties").selectAll().orderBy("created_at").orderBy("id").execute()).pipe(
          Effect.flatMap((rows) => decodeEach(rows, decode)),
        ),
    })
  }),
)
