/** External identity providers, sign-ins in flight, identity links and link offers in memory. */
import { Context, Option } from "effect"
import {
  ExternalLogins,
  IdentityLinks,
  IdentityProviders,
  LinkOffers,
  type ExternalLogin,
  type IdentityLink,
  type IdentityProvider,
  type LinkOffer,
} from "@signet/core"
import { purge } from "./identity.ts"
import { type MemoryDatabase, Table, unique } from "./memory-database.ts"
import { orderBy } from "./order.ts"

/** The identity-provider repositories over `db`. */
export const identityProvidersMemory = (db: MemoryDatabase) => {
  const providers = new Table<string, IdentityProvider>()
  const logins = new Table<string, ExternalLogin>()
  const links = new Table<string, IdentityLink>()
  const offers = new Table<string, LinkOffer>()
  const oldestFirst = orderBy<{ readonly createdAt: number; readonly id: string }>([(r) => r.createdAt, "asc"], [(r) => r.id, "asc"])

  return Context.make(
    IdentityProviders,
    IdentityProviders.of({
      insert: (p) =>
        db.write((j) => {
          if (providers.has(p.id)) unique("identity provider id")
          providers.set(j, p.id, p)
        }),
      findById: (id) => db.run(() => Option.fromNullable(providers.get(id))),
      list: () => db.run(() => providers.all().sort(oldestFirst)),
      remove: (id) => db.run((j) => providers.delete(j, id)),
    }),
  ).pipe(
    Context.add(
      ExternalLogins,
      ExternalLogins.of({
        insert: (l) =>
          db.write((j) => {
            if (logins.has(l.id)) unique("external login id")
            logins.set(j, l.id, l)
          }),
        consume: (id, at) =>
          db.run((j) => {
            const l = logins.get(id)
            if (l === undefined || l.consumedAt !== null) return Option.none()
            const consumed = { ...l, consumedAt: at }
            logins.set(j, id, consumed)
            return Option.some(consumed)
          }),
        purgeExpired: (now) =>
          db.run((j) =>
            purge(
              j,
              logins,
              (l) => l.expiresAt < now,
              (l) => l.id,
            ),
          ),
      }),
    ),
    Context.add(
      IdentityLinks,
      IdentityLinks.of({
        insert: (l) =>
          db.write((j) => {
            if (links.find((o) => o.issuer === l.issuer && o.subject === l.subject) !== undefined) unique("external identity")
            if (links.has(l.id)) unique("link id")
            links.set(j, l.id, l)
          }),
        findByIdentity: (issuer, subject) => db.run(() => Option.fromNullable(links.find((l) => l.issuer === issuer && l.subject === subject))),
        listByUser: (userId) => db.run(() => links.where((l) => l.userId === userId).sort(oldestFirst)),
        remove: (id, userId) => db.run((j) => links.get(id)?.userId === userId && links.delete(j, id)),
      }),
    ),
    Context.add(
      LinkOffers,
      LinkOffers.of({
        insert: (o) =>
          db.write((j) => {
            if (offers.has(o.id)) unique("link offer id")
            offers.set(j, o.id, o)
          }),
        findById: (id) => db.run(() => Option.fromNullable(offers.get(id))),
        consume: (id, at) =>
          db.run((j) => {
            const o = offers.get(id)
            if (o === undefined || o.consumedAt !== null) return Option.none()
            const consumed = { ...o, consumedAt: at }
            offers.set(j, id, consumed)
            return Option.some(consumed)
          }),
        purgeExpired: (now) =>
          db.run((j) =>
            purge(
              j,
              offers,
              (o) => o.expiresAt < now,
              (o) => o.id,
            ),
          ),
      }),
    ),
  )
}
