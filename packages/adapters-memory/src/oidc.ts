/** The OpenID provider's repositories in memory: codes, refresh tokens, consents, revocations, signing keys, sign-ins. */
import { Context, Option } from "effect"
import {
  AuthorizationCodes,
  Consents,
  RefreshTokens,
  SessionSignIns,
  SigningKeys,
  TokenRevocations,
  type AuthorizationCode,
  type Consent,
  type RefreshToken,
  type SessionSignIn,
  type SigningKey,
} from "@signet/core"
import { purge } from "./identity.ts"
import { type MemoryDatabase, Table, unique } from "./memory-database.ts"
import { orderBy } from "./order.ts"

/** The OpenID provider repositories over `db`. */
export const oidcMemory = (db: MemoryDatabase) => {
  const codes = new Table<string, AuthorizationCode>()
  const tokens = new Table<string, RefreshToken>()
  const consents = new Table<string, Consent>()
  const revocations = new Table<string, { readonly jti: string; readonly expiresAt: number }>()
  const keys = new Table<string, SigningKey>()
  const signIns = new Table<string, SessionSignIn>()
  const generationsOf = (environment: string) => keys.where((k) => k.environment === environment).sort(orderBy([(k) => k.seq, "desc"]))

  return Context.make(
    AuthorizationCodes,
    AuthorizationCodes.of({
      insert: (c) =>
        db.write((j) => {
          if (codes.has(c.codeHash)) unique("code")
          codes.set(j, c.codeHash, c)
        }),
      findByHash: (hash) => db.run(() => Option.fromNullable(codes.get(hash))),
      consume: (hash, at) =>
        db.run((j) => {
          const c = codes.get(hash)
          if (c === undefined || c.consumedAt !== null) return Option.none()
          const consumed = { ...c, consumedAt: at }
          codes.set(j, hash, consumed)
          return Option.some(consumed)
        }),
    }),
  ).pipe(
    Context.add(
      RefreshTokens,
      RefreshTokens.of({
        insert: (t) =>
          db.write((j) => {
            if (tokens.has(t.tokenHash)) unique("refresh token")
            tokens.set(j, t.tokenHash, t)
          }),
        findByHash: (hash) => db.run(() => Option.fromNullable(tokens.get(hash))),
        consume: (hash, at) =>
          db.run((j) => {
            const t = tokens.get(hash)
            if (t === undefined || t.usedAt !== null || t.revokedAt !== null) return Option.none()
            const used = { ...t, usedAt: at }
            tokens.set(j, hash, used)
            return Option.some(used)
          }),
        revokeFamily: (familyId, at) =>
          db.run((j) => {
            for (const t of tokens.where((t) => t.familyId === familyId && t.revokedAt === null)) tokens.set(j, t.tokenHash, { ...t, revokedAt: at })
            return tokens.where((t) => t.familyId === familyId).sort(orderBy([(t) => t.createdAt, "asc"]))
          }),
      }),
    ),
    Context.add(
      Consents,
      Consents.of({
        find: (userId, clientId) => db.run(() => Option.fromNullable(consents.get(JSON.stringify([userId, clientId])))),
        save: (c) => db.run((j) => consents.set(j, JSON.stringify([c.userId, c.clientId]), c)),
      }),
    ),
    Context.add(
      TokenRevocations,
      TokenRevocations.of({
        revoke: (jti, expiresAt) =>
          db.run((j) => {
            if (!revocations.has(jti)) revocations.set(j, jti, { jti, expiresAt })
          }),
        isRevoked: (jti) => db.run(() => revocations.has(jti)),
        purgeExpired: (now) =>
          db.run((j) =>
            purge(
              j,
              revocations,
              (r) => r.expiresAt < now,
              (r) => r.jti,
            ),
          ),
      }),
    ),
    Context.add(
      SigningKeys,
      SigningKeys.of({
        insert: (k) =>
          db.write((j) => {
            if (keys.has(k.keyId) || keys.find((o) => o.environment === k.environment && o.seq === k.seq) !== undefined) unique("signing key")
            keys.set(j, k.keyId, k)
          }),
        list: (environment) => db.run(() => generationsOf(environment)),
        listWithRevocation: (environment, jti) => db.run(() => ({ generations: generationsOf(environment), revoked: revocations.has(jti) })),
      }),
    ),
    Context.add(
      SessionSignIns,
      SessionSignIns.of({
        save: (s) => db.run((j) => signIns.set(j, s.sessionId, s)),
        find: (sessionId) => db.run(() => Option.fromNullable(signIns.get(sessionId))),
        remove: (sessionId) =>
          db.run((j) => {
            signIns.delete(j, sessionId)
          }),
      }),
    ),
  )
}
