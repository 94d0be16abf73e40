/** The OpenID provider's repositories: codes, refresh tokens, consents, revocations, signing keys and session sign-ins. */
import { Context, Effect, Layer, Schema } from "effect"
import { sql } from "kysely"
import {
  AuthorizationCode,
  AuthorizationCodes,
  Consent,
  Consents,
  RefreshToken,
  RefreshTokens,
  SessionSignIn,
  SessionSignIns,
  SigningKey,
  SigningKeys,
  TokenRevocations,
} from "@signet/core"
import { DbBigInt, DbStringArray, decodeRow, decodeRowRemembered, decodeEach } from "../rows.ts"
import { execute, guardedWrite, prepare, query, SqlDatabase } from "../sql-database.ts"

/** An `oidc_codes` row decoded to the domain `AuthorizationCode`. */
export const AuthorizationCodeFromRow = Schema.transform(
  Schema.Struct({
    code_hash: Schema.String,
    client_id: Schema.String,
    user_id: Schema.String,
    redirect_uri: Schema.String,
    scope: DbStringArray,
    nonce: Schema.NullOr(Schema.String),
    code_challenge: Schema.String,
    auth_time: DbBigInt,
    amr: DbStringArray,
    family_id: Schema.String,
    created_at: DbBigInt,
    expires_at: DbBigInt,
    consumed_at: Schema.NullOr(DbBigInt),
  }),
  AuthorizationCode,
  {
    strict: true,
    decode: (r) => ({
      codeHash: r.code_hash,
      clientId: r.client_id,
      userId: r.user_id,
      redirectUri: r.redirect_uri,
      scope: r.scope,
      nonce: r.nonce,
      codeChallenge: r.code_challenge,
      authTime: r.auth_time,
      amr: r.amr,
      familyId: r.family_id,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      consumedAt: r.consumed_at,
    }),
    encode: (c) => ({
      code_hash: c.codeHash,
      client_id: c.clientId,
      user_id: c.userId,
      redirect_uri: c.redirectUri,
      scope: c.scope,
      nonce: c.nonce,
      code_challenge: c.codeChallenge,
      auth_time: c.authTime,
      amr: c.amr,
      family_id: c.familyId,
      created_at: c.createdAt,
      expires_at: c.expiresAt,
      consumed_at: c.consumedAt,
    }),
  },
)

/** An `oidc_refresh_tokens` row decoded to the domain `RefreshToken`. */
export const RefreshTokenFromRow = Schema.transform(
  Schema.Struct({
    token_hash: Schema.String,
    family_id: Schema.String,
    client_id: Schema.String,
    user_id: Schema.String,
    scope: DbStringArray,
    auth_time: DbBigInt,
    amr: DbStringArray,
    access_jti: Schema.String,
    access_expires_at: DbBigInt,
    created_at: DbBigInt,
    expires_at: DbBigInt,
    used_at: Schema.NullOr(DbBigInt),
    revoked_at: Schema.NullOr(DbBigInt),
  }),
  RefreshToken,
  {
    strict: true,
    decode: (r) => ({
      tokenHash: r.token_hash,
      familyId: r.family_id,
      clientId: r.client_id,
      userId: r.user_id,
      scope: r.scope,
      authTime: r.auth_time,
      amr: r.amr,
      accessJti: r.access_jti,
      accessExpiresAt: r.access_expires_at,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      usedAt: r.used_at,
      revokedAt: r.revoked_at,
    }),
    encode: (t) => ({
      token_hash: t.tokenHash,
      family_id: t.familyId,
      client_id: t.clientId,
      user_id: t.userId,
      scope: t.scope,
      auth_time: t.authTime,
      amr: t.amr,
      access_jti: t.accessJti,
      access_expires_at: t.accessExpiresAt,
      created_at: t.createdAt,
      expires_at: t.expiresAt,
      used_at: t.usedAt,
      revoked_at: t.revokedAt,
    }),
  },
)

const ConsentFromRow = Schema.transform(
  Schema.Struct({ user_id: Schema.String, client_id: Schema.String, scope: DbStringArray, granted_at: DbBigInt }),
  Consent,
  {
    strict: true,
    decode: (r) => ({ userId: r.user_id, clientId: r.client_id, scope: r.scope, grantedAt: r.granted_at }),
    encode: (c) => ({ user_id: c.userId, client_id: c.clientId, scope: c.scope, granted_at: c.grantedAt }),
  },
)

const SigningKeyFromRow = Schema.transform(
  Schema.Struct({ key_id: Schema.String, environment: Schema.String, seq: Schema.Int, created_at: DbBigInt }),
  SigningKey,
  {
    strict: true,
    decode: (r) => ({ keyId: r.key_id, environment: r.environment, seq: r.seq, createdAt: r.created_at }),
    encode: (k) => ({ key_id: k.keyId, environment: k.environment, seq: k.seq, created_at: k.createdAt }),
  },
)

const SessionSignInFromRow = Schema.transform(
  Schema.Struct({ session_id: Schema.String, user_id: Schema.String, auth_time: DbBigInt, amr: DbStringArray }),
  SessionSignIn,
  {
    strict: true,
    decode: (r) => ({ sessionId: r.session_id, userId: r.user_id, authTime: r.auth_time, amr: r.amr }),
    encode: (s) => ({ session_id: s.sessionId, user_id: s.userId, auth_time: s.authTime, amr: s.amr }),
  },
)

const first = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = decodeRow(schema)
  return (row: unknown) => (row === undefined ? Effect.succeedNone : Effect.asSome(decode(row)))
}
const decodeCode = first(AuthorizationCodeFromRow)
const decodeToken = first(RefreshTokenFromRow)
const decodeTokenRow = decodeRow(RefreshTokenFromRow)

/** Every OpenID provider repository on the SQL database. */
export const OidcStorageSql: Layer.Layer<AuthorizationCodes | RefreshTokens | Consents | TokenRevocations | SigningKeys | SessionSignIns, never, SqlDatabase> =
  Layer.effectContext(
    Effect.gen(function* () {
      const service = yield* SqlDatabase
      const run = query(service)
      const write = guardedWrite(service)
      const exec = execute(service)
      // read by every bearer request
      const revokedJti = prepare((db, jti: string) => db.selectFrom("oidc_revocations").select("jti").where("jti", "=", jti))
      const generations = prepare((db, environment: string) =>
        db.selectFrom("oidc_signing_keys").selectAll().where("environment", "=", environment).orderBy("seq", "desc"),
      )
      // The bearer check's one read: the generations (revoked 0) and, when the token is revoked, one row more (revoked 1).
      const generationsAndRevocation = prepare((db, environment: string, jti: string) => {
        const text = sql<
          Record<string, unknown>
        >`select key_id, environment, seq, created_at, 0 as revoked from oidc_signing_keys where environment = ${environment}
            union all select null, null, null, null, 1 from oidc_revocations where jti = ${jti}`
        return { compile: () => text.compile(db) }
      })
      // Read by every bearer request and changed only by a rotation: a row seen before is not decoded again.
      const decodeSigningKey = decodeRowRemembered(SigningKeyFromRow, "key_id")
      const codes = AuthorizationCodes.of({
        insert: (c) =>
          write(
            () => "code",
            (db) =>
              db
                .insertInto("oidc_codes")
                .values({
                  code_hash: c.codeHash,
                  client_id: c.clientId,
                  user_id: c.userId,
                  redirect_uri: c.redirectUri,
                  scope: JSON.stringify(c.scope),
                  nonce: c.nonce,
                  code_challenge: c.codeChallenge,
                  auth_time: c.authTime,
                  amr: JSON.stringify(c.amr),
                  family_id: c.familyId,
                  created_at: c.createdAt,
                  expires_at: c.expiresAt,
                  consumed_at: c.consumedAt,
                })
                .execute(),
          ).pipe(Effect.asVoid),
        findByHash: (hash) =>
          run((db) => db.selectFrom("oidc_codes").selectAll().where("code_hash", "=", hash).executeTakeFirst()).pipe(Effect.flatMap(decodeCode)),
        // The `consumed_at is null` condition lets the database decide which of two concurrent exchanges wins.
        consume: (hash, at) =>
          run((db) =>
            db
              .updateTable("oidc_codes")
              .set({ consumed_at: at })
              .where("code_hash", "=", hash)
              .where("consumed_at", "is", null)
              .returningAll()
              .executeTakeFirst(),
          ).pipe(Effect.flatMap(decodeCode)),
      })
      const tokens = RefreshTokens.of({
        insert: (t) =>
          write(
            () => "refresh token",
            (db) =>
              db
                .insertInto("oidc_refresh_tokens")
                .values({
                  token_hash: t.tokenHash,
                  family_id: t.familyId,
                  client_id: t.clientId,
                  user_id: t.userId,
                  scope: JSON.stringify(t.scope),
                  auth_time: t.authTime,
                  amr: JSON.stringify(t.amr),
                  access_jti: t.accessJti,
                  access_expires_at: t.accessExpiresAt,
                  created_at: t.createdAt,
                  expires_at: t.expiresAt,
                  used_at: t.usedAt,
                  revoked_at: t.revokedAt,
                })
                .execute(),
          ).pipe(Effect.asVoid),
        findByHash: (hash) =>
          run((db) => db.selectFrom("oidc_refresh_tokens").selectAll().where("token_hash", "=", hash).executeTakeFirst()).pipe(Effect.flatMap(decodeToken)),
        consume: (hash, at) =>
          run((db) =>
            db
              .updateTable("oidc_refresh_tokens")
              .set({ used_at: at })
              .where("token_hash", "=", hash)
              .where("used_at", "is", null)
              .where("revoked_at", "is", null)
              .returningAll()
              .executeTakeFirst(),
          ).pipe(Effect.flatMap(decodeToken)),
        revokeFamily: (familyId, at) =>
          run(async (db) => {
            await db.updateTable("oidc_refresh_tokens").set({ revoked_at: at }).where("family_id", "=", familyId).where("revoked_at", "is", null).execute()
            return db.selectFrom("oidc_refresh_tokens").selectAll().where("family_id", "=", familyId).orderBy("created_at").execute()
          }).pipe(Effect.flatMap((rows) => decodeEach(rows, decodeTokenRow))),
      })
      const consents = Consents.of({
        find: (userId, clientId) =>
          run((db) => db.selectFrom("oidc_consents").selectAll().where("user_id", "=", userId).where("client_id", "=", clientId).executeTakeFirst()).pipe(
            Effect.flatMap(first(ConsentFromRow)),
          ),
        save: (c) =>
          run((db) =>
            db
              .insertInto("oidc_consents")
              .values({ user_id: c.userId, client_id: c.clientId, scope: JSON.stringify(c.scope), granted_at: c.grantedAt })
              .onConflict((oc) => oc.columns(["user_id", "client_id"]).doUpdateSet({ scope: JSON.stringify(c.scope), granted_at: c.grantedAt }))
              .execute(),
          ).pipe(Effect.asVoid),
      })
      const revocations = TokenRevocations.of({
        revoke: (jti, expiresAt) =>
          run((db) =>
            db
              .insertInto("oidc_revocations")
              .values({ jti, expires_at: expiresAt })
              .onConflict((oc) => oc.column("jti").doNothing())
              .execute(),
          ).pipe(Effect.asVoid),
        isRevoked: (jti) => exec((db) => revokedJti(db, jti)).pipe(Effect.map((r) => r.rows.length > 0)),
        purgeExpired: (now) =>
          run((db) => db.deleteFrom("oidc_revocations").where("expires_at", "<", now).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows))),
      })
      const keys = SigningKeys.of({
        insert: (k) =>
          write(
            () => "signing key",
            (db) => db.insertInto("oidc_signing_keys").values({ key_id: k.keyId, environment: k.environment, seq: k.seq, created_at: k.createdAt }).execute(),
          ).pipe(Effect.asVoid),
        list: (environment) => exec((db) => generations(db, environment)).pipe(Effect.flatMap((r) => decodeEach(r.rows, decodeSigningKey))),
        listWithRevocation: (environment, jti) =>
          exec((db) => generationsAndRevocation(db, environment, jti)).pipe(
            Effect.flatMap((r) =>
              Effect.map(
                Effect.forEach(
                  r.rows.filter((row) => Number(row.revoked) === 0),
                  (row) => decodeSigningKey({ key_id: row["key_id"], environment: row["environment"], seq: row["seq"], created_at: row["created_at"] }),
                ),
                (keys) => ({
                  generations: [...keys].sort((a, b) => b.seq - a.seq),
                  revoked: r.rows.some((row) => Number(row.revoked) === 1),
                }),
              ),
            ),
          ),
      })
      const signIns = SessionSignIns.of({
        save: (s) =>
          run((db) =>
            db
              .insertInto("session_sign_ins")
              .values({ session_id: s.sessionId, user_id: s.userId, auth_time: s.authTime, amr: JSON.stringify(s.amr) })
              .onConflict((oc) => oc.column("session_id").doUpdateSet({ user_id: s.userId, auth_time: s.authTime, amr: JSON.stringify(s.amr) }))
              .execute(),
          ).pipe(Effect.asVoid),
        find: (sessionId) =>
          run((db) => db.selectFrom("session_sign_ins").selectAll().where("session_id", "=", sessionId).executeTakeFirst()).pipe(
            Effect.flatMap(first(SessionSignInFromRow)),
          ),
        remove: (sessionId) => run((db) => db.deleteFrom("session_sign_ins").where("session_id", "=", sessionId).execute()).pipe(Effect.asVoid),
      })
      return Context.make(AuthorizationCodes, codes).pipe(
        Context.add(RefreshTokens, tokens),
        Context.add(Consents, consents),
        Context.add(TokenRevocations, revocations),
        Context.add(SigningKeys, keys),
        Context.add(SessionSignIns, signIns),
      )
    }),
  )
