/** Identity repositories in memory: users, passkeys, ceremonies, hosted sessions, e-mail verifications. */
import { Context, Option } from "effect"
import {
  Ceremonies,
  EmailVerifications,
  HostedSessions,
  Passkeys,
  Users,
  type Ceremony,
  type EmailVerification,
  type HostedSession,
  type Passkey,
  type User,
} from "@signet/core"
import { type MemoryDatabase, Table, unique } from "./memory-database.ts"
import { orderBy } from "./order.ts"

/** The identity repositories over `db`. */
export const identityMemory = (db: MemoryDatabase) => {
  const users = new Table<string, User>()
  const passkeys = new Table<string, Passkey>()
  const ceremonies = new Table<string, Ceremony>()
  const sessions = new Table<string, HostedSession>()
  const verifications = new Table<string, EmailVerification>()

  return Context.make(
    Users,
    Users.of({
      // The e-mail is reported whenever it is taken, also when the id is taken too (as the SQL adapter does).
      insert: (user) =>
        db.write((j) => {
          const email = user.email.toLowerCase()
          if (users.find((u) => u.email === email) !== undefined) unique("email")
          if (users.has(user.id)) unique("user id")
          users.set(j, user.id, { ...user, email })
        }),
      findById: (id) => db.run(() => Option.fromNullable(users.get(id))),
      findByEmail: (email) => db.run(() => Option.fromNullable(users.find((u) => u.email === email.toLowerCase()))),
      markEmailVerified: (id, at) =>
        db.run((j) => {
          const user = users.get(id)
          if (user !== undefined) users.set(j, id, { ...user, emailVerifiedAt: at })
        }),
    }),
  ).pipe(
    Context.add(
      Passkeys,
      Passkeys.of({
        insert: (p) =>
          db.write((j) => {
            if (passkeys.has(p.id)) unique("credential id")
            passkeys.set(j, p.id, p)
          }),
        findById: (id) => db.run(() => Option.fromNullable(passkeys.get(id))),
        listByUser: (userId) => db.run(() => passkeys.where((p) => p.userId === userId).sort(orderBy([(p) => p.createdAt, "asc"], [(p) => p.id, "asc"]))),
        recordUse: (id, counter, at) =>
          db.run((j) => {
            const p = passkeys.get(id)
            if (p !== undefined) passkeys.set(j, id, { ...p, counter, lastUsedAt: at })
          }),
      }),
    ),
    Context.add(
      Ceremonies,
      Ceremonies.of({
        insert: (c) =>
          db.write((j) => {
            if (ceremonies.has(c.id)) unique("ceremony id")
            ceremonies.set(j, c.id, c)
          }),
        findById: (id) => db.run(() => Option.fromNullable(ceremonies.get(id))),
        consume: (id, at) =>
          db.run((j) => {
            const c = ceremonies.get(id)
            if (c === undefined || c.consumedAt !== null) return Option.none()
            const consumed = { ...c, consumedAt: at }
            ceremonies.set(j, id, consumed)
            return Option.some(consumed)
          }),
      }),
    ),
    Context.add(
      HostedSessions,
      HostedSessions.of({
        insert: (s) =>
          db.write((j) => {
            if (sessions.has(s.id)) unique("session id")
            sessions.set(j, s.id, s)
          }),
        findById: (id) => db.run(() => Option.fromNullable(sessions.get(id))),
      }),
    ),
    Context.add(
      EmailVerifications,
      EmailVerifications.of({
        insert: (v) =>
          db.write((j) => {
            if (verifications.has(v.id)) unique("e-mail verification id")
            verifications.set(j, v.id, { ...v, email: v.email.toLowerCase() })
          }),
        findById: (id) => db.run(() => Option.fromNullable(verifications.get(id))),
        recordFailedAttempt: (id, max) =>
          db.run((j) => {
            const v = verifications.get(id)
            if (v === undefined || v.attempts >= max) return Option.none()
            verifications.set(j, id, { ...v, attempts: v.attempts + 1 })
            return Option.some(v.attempts + 1)
          }),
        markVerified: (id, at, max) =>
          db.run((j) => {
            const v = verifications.get(id)
            if (v === undefined || v.verifiedAt !== null || v.consumedAt !== null || v.attempts >= max) return false
            verifications.set(j, id, { ...v, verifiedAt: at })
            return true
          }),
        consume: (id, at) =>
          db.run((j) => {
            const v = verifications.get(id)
            if (v === undefined || v.verifiedAt === null || v.consumedAt !== null) return Option.none()
            const consumed = { ...v, consumedAt: at }
            verifications.set(j, id, consumed)
            return Option.some(consumed)
          }),
        countSince: (email, since) => db.run(() => verifications.where((v) => v.email === email.toLowerCase() && v.createdAt >= since).length),
        purgeExpired: (now) =>
          db.run((j) =>
            purge(
              j,
              verifications,
              (v) => v.expiresAt < now,
              (v) => v.id,
            ),
          ),
      }),
    ),
  )
}

/** Deletes the rows `expired` selects; answers how many. */
export const purge = <K, V>(j: Parameters<Table<K, V>["set"]>[0], table: Table<K, V>, expired: (row: V) => boolean, key: (row: V) => K): number => {
  const gone = table.where(expired)
  for (const row of gone) table.delete(j, key(row))
  return gone.length
}
