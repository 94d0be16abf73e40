/** The identity-provider repositories: providers, external logins in flight, identity links and link offers. */
import { Effect, Layer, Schema } from "effect"
import { ExternalLogin, ExternalLogins, IdentityLink, IdentityLinks, IdentityProvider, IdentityProviders, LinkOffer, LinkOffers } from "@signet/core"
import { DbBigInt, DbStringArray, decodeRow, decodeEach } from "../rows.ts"
import { guardedWrite, query, SqlDatabase } from "../sql-database.ts"

/** An `identity_providers` row decoded to the domain `IdentityProvider`. */
export const IdentityProviderFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    owner_client_id: Schema.NullOr(Schema.String),
    name: Schema.String,
    issuer: Schema.String,
    client_id: Schema.String,
    client_secret_sealed: Schema.String,
    scopes: DbStringArray,
    authorization_endpoint: Schema.String,
    token_endpoint: Schema.String,
    jwks_uri: Schema.String,
    userinfo_endpoint: Schema.NullOr(Schema.String),
    created_at: DbBigInt,
  }),
  IdentityProvider,
  {
    strict: true,
    decode: (r) => ({
      id: r.id,
      ownerClientId: r.owner_client_id,
      name: r.name,
      issuer: r.issuer,
      clientId: r.client_id,
      clientSecretSealed: r.client_secret_sealed,
      scopes: r.scopes,
      authorizationEndpoint: r.authorization_endpoint,
      tokenEndpoint: r.token_endpoint,
      jwksUri: r.jwks_uri,
      userinfoEndpoint: r.userinfo_endpoint,
      createdAt: r.created_at,
    }),
    encode: (p) => ({
      id: p.id,
      owner_client_id: p.ownerClientId,
      name: p.name,
      issuer: p.issuer,
      client_id: p.clientId,
      client_secret_sealed: p.clientSecretSealed,
      scopes: p.scopes,
      authorization_endpoint: p.authorizationEndpoint,
      token_endpoint: p.tokenEndpoint,
      jwks_uri: p.jwksUri,
      userinfo_endpoint: p.userinfoEndpoint,
      created_at: p.createdAt,
    }),
  },
)

/** An `external_logins` row decoded to the domain `ExternalLogin`. */
export const ExternalLoginFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    provider_id: Schema.String,
    nonce: Schema.String,
    code_verifier: Schema.String,
    browser_binding_hash: Schema.String,
    return_to: Schema.String,
    link_user_id: Schema.NullOr(Schema.String),
    client_id: Schema.NullOr(Schema.String),
    created_at: DbBigInt,
    expires_at: DbBigInt,
    consumed_at: Schema.NullOr(DbBigInt),
  }),
  ExternalLogin,
  {
    strict: true,
    decode: (r) => ({
      id: r.id,
      providerId: r.provider_id,
      nonce: r.nonce,
      codeVerifier: r.code_verifier,
      browserBindingHash: r.browser_binding_hash,
      returnTo: r.return_to,
      linkUserId: r.link_user_id,
      clientId: r.client_id,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      consumedAt: r.consumed_at,
    }),
    encode: (l) => ({
      id: l.id,
      provider_id: l.providerId,
      nonce: l.nonce,
      code_verifier: l.codeVerifier,
      browser_binding_hash: l.browserBindingHash,
      return_to: l.returnTo,
      link_user_id: l.linkUserId,
      client_id: l.clientId,
      created_at: l.createdAt,
      expires_at: l.expiresAt,
      consumed_at: l.consumedAt,
    }),
  },
)

/** An `identity_links` row decoded to the domain `IdentityLink`. */
export const IdentityLinkFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    user_id: Schema.String,
    provider_id: Schema.String,
    issuer: Schema.String,
    subject: Schema.String,
    email: Schema.NullOr(Schema.String),
    created_at: DbBigInt,
  }),
  IdentityLink,
  {
    strict: true,
    decode: (r) => ({ id: r.id, userId: r.user_id, providerId: r.provider_id, issuer: r.issuer, subject: r.subject, email: r.email, createdAt: r.created_at }),
    encode: (l) => ({ id: l.id, user_id: l.userId, provider_id: l.providerId, issuer: l.issuer, subject: l.subject, email: l.email, created_at: l.createdAt }),
  },
)

/** A `link_offers` row decoded to the domain `LinkOffer`. */
export const LinkOfferFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.String,
    user_id: Schema.String,
    provider_id: Schema.String,
    issuer: Schema.String,
    subject: Schema.String,
    email: Schema.NullOr(Schema.String),
    browser_binding_hash: Schema.String,
    return_to: Schema.String,
    client_id: Schema.NullOr(Schema.String),
    created_at: DbBigInt,
    expires_at: DbBigInt,
    consumed_at: Schema.NullOr(DbBigInt),
  }),
  LinkOffer,
  {
    strict: true,
    decode: (r) => ({
      id: r.id,
      userId: r.user_id,
      providerId: r.provider_id,
      issuer: r.issuer,
      subject: r.subject,
      email: r.email,
      browserBindingHash: r.browser_binding_hash,
      returnTo: r.return_to,
      clientId: r.client_id,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      consumedAt: r.consumed_at,
    }),
    encode: (o) => ({
      id: o.id,
      user_id: o.userId,
      provider_id: o.providerId,
      issuer: o.issuer,
      subject: o.subject,
      email: o.email,
      browser_binding_hash: o.browserBindingHash,
      return_to: o.returnTo,
      client_id: o.clientId,
      created_at: o.createdAt,
      expires_at: o.expiresAt,
      consumed_at: o.consumedAt,
    }),
  },
)

const first =
  <A>(decode: (row: unknown) => Effect.Effect<A>) =>
  (row: unknown) =>
    row === undefined ? Effect.succeedNone : Effect.asSome(decode(row))

const decodeProvider = decodeRow(IdentityProviderFromRow)
const decodeLogin = decodeRow(ExternalLoginFromRow)
const decodeLink = decodeRow(IdentityLinkFromRow)
const decodeOffer = decodeRow(LinkOfferFromRow)

/** `IdentityProviders` on the SQL database. */
export const IdentityProvidersSql: Layer.Layer<IdentityProviders, never, SqlDatabase> = Layer.effect(
  IdentityProviders,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    return IdentityProviders.of({
      insert: (p) =>
        write(
          () => "identity provider id",
          (db) =>
            db
              .insertInto("identity_providers")
              .values({
                id: p.id,
                owner_client_id: p.ownerClientId,
                name: p.name,
                issuer: p.issuer,
                client_id: p.clientId,
                client_secret_sealed: p.clientSecretSealed,
                scopes: JSON.stringify(p.scopes),
                authorization_endpoint: p.authorizationEndpoint,
                token_endpoint: p.tokenEndpoint,
                jwks_uri: p.jwksUri,
                userinfo_endpoint: p.userinfoEndpoint,
                created_at: p.createdAt,
              })
              .execute(),
        ).pipe(Effect.asVoid),
      findById: (id) =>
        run((db) => db.selectFrom("identity_providers").selectAll().where("id", "=", id).executeTakeFirst()).pipe(Effect.flatMap(first(decodeProvider))),
      list: () =>
        run((db) => db.selectFrom("identity_providers").selectAll().orderBy("created_at").orderBy("id").execute()).pipe(
          Effect.flatMap((rows) => decodeEach(rows, decodeProvider)),
        ),
      remove: (id) =>
        run((db) => db.deleteFrom("identity_providers").where("id", "=", id).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows) > 0)),
    })
  }),
)

/** `ExternalLogins` on the SQL database; `consume` is one conditional UPDATE, so it is atomic. */
export const ExternalLoginsSql: Layer.Layer<ExternalLogins, never, SqlDatabase> = Layer.effect(
  ExternalLogins,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    return ExternalLogins.of({
      insert: (l) =>
        write(
          () => "external login id",
          (db) =>
            db
              .insertInto("external_logins")
              .values({
                id: l.id,
                provider_id: l.providerId,
                nonce: l.nonce,
                code_verifier: l.codeVerifier,
                browser_binding_hash: l.browserBindingHash,
                return_to: l.returnTo,
                link_user_id: l.linkUserId,
                client_id: l.clientId,
                created_at: l.createdAt,
                expires_at: l.expiresAt,
                consumed_at: l.consumedAt,
              })
              .execute(),
        ).pipe(Effect.asVoid),
      consume: (id, at) =>
        run((db) =>
          db.updateTable("external_logins").set({ consumed_at: at }).where("id", "=", id).where("consumed_at", "is", null).returningAll().executeTakeFirst(),
        ).pipe(Effect.flatMap(first(decodeLogin))),
      purgeExpired: (now) =>
        run((db) => db.deleteFrom("external_logins").where("expires_at", "<", now).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows))),
    })
  }),
)

/** `IdentityLinks` on the SQL database. */
export const IdentityLinksSql: Layer.Layer<IdentityLinks, never, SqlDatabase> = Layer.effect(
  IdentityLinks,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    return IdentityLinks.of({
      insert: (l) =>
        write(
          (columns) => (columns.includes("subject") || columns.includes("identity_links_identity_key") ? "external identity" : "link id"),
          (db) =>
            db
              .insertInto("identity_links")
              .values({
                id: l.id,
                user_id: l.userId,
                provider_id: l.providerId,
                issuer: l.issuer,
                subject: l.subject,
                email: l.email,
                created_at: l.createdAt,
              })
              .execute(),
        ).pipe(Effect.asVoid),
      findByIdentity: (issuer, subject) =>
        run((db) => db.selectFrom("identity_links").selectAll().where("issuer", "=", issuer).where("subject", "=", subject).executeTakeFirst()).pipe(
          Effect.flatMap(first(decodeLink)),
        ),
      listByUser: (userId) =>
        run((db) => db.selectFrom("identity_links").selectAll().where("user_id", "=", userId).orderBy("created_at").orderBy("id").execute()).pipe(
          Effect.flatMap((rows) => decodeEach(rows, decodeLink)),
        ),
      remove: (id, userId) =>
        run((db) => db.deleteFrom("identity_links").where("id", "=", id).where("user_id", "=", userId).executeTakeFirst()).pipe(
          Effect.map((r) => Number(r.numDeletedRows) > 0),
        ),
    })
  }),
)

/** `LinkOffers` on the SQL database; `consume` is one conditional UPDATE, so it is atomic. */
export const LinkOffersSql: Layer.Layer<LinkOffers, never, SqlDatabase> = Layer.effect(
  LinkOffers,
  Effect.gen(function* () {
    const service = yield* SqlDatabase
    const run = query(service)
    const write = guardedWrite(service)
    return LinkOffers.of({
      insert: (o) =>
        write(
          () => "link offer id",
          (db) =>
            db
              .insertInto("link_offers")
              .values({
                id: o.id,
                user_id: o.userId,
                provider_id: o.providerId,
                issuer: o.issuer,
                subject: o.subject,
                email: o.email,
                browser_binding_hash: o.browserBindingHash,
                return_to: o.returnTo,
                client_id: o.clientId,
                created_at: o.createdAt,
                expires_at: o.expiresAt,
                consumed_at: o.consumedAt,
              })
              .execute(),
        ).pipe(Effect.asVoid),
      findById: (id) => run((db) => db.selectFrom("link_offers").selectAll().where("id", "=", id).executeTakeFirst()).pipe(Effect.flatMap(first(decodeOffer))),
      consume: (id, at) =>
        run((db) =>
          db.updateTable("link_offers").set({ consumed_at: at }).where("id", "=", id).where("consumed_at", "is", null).returningAll().executeTakeFirst(),
        ).pipe(Effect.flatMap(first(decodeOffer))),
      purgeExpired: (now) =>
        run((db) => db.deleteFrom("link_offers").where("expires_at", "<", now).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows))),
    })
  }),
)

/** Every identity-provider repository. */
export const IdentityProviderStorageSql = Layer.mergeAll(IdentityProvidersSql, ExternalLoginsSql, IdentityLinksSql, LinkOffersSql)
