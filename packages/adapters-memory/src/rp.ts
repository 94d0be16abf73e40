/** Relying parties and their organisation checks in memory. */
import { Context, Option } from "effect"
import { RelyingParties, RpOrganisationChecks, type OrganisationCheck, type RelyingParty } from "@signet/core"
import { type MemoryDatabase, Sequence, Table, unique } from "./memory-database.ts"
import { orderBy } from "./order.ts"

/** The RP repositories over `db`. */
export const rpMemory = (db: MemoryDatabase) => {
  const rps = new Table<number, RelyingParty>()
  const rpIds = new Sequence()
  const checks = new Table<number, OrganisationCheck>()
  const checkIds = new Sequence()
  return Context.make(
    RelyingParties,
    RelyingParties.of({
      insert: (input) =>
        db.write((j) => {
          if (rps.find((rp) => rp.clientId === input.clientId) !== undefined) unique("client id")
          const rp: RelyingParty = { ...input, id: rpIds.next() }
          rps.set(j, rp.id, rp)
          return rp
        }),
      update: (rp) =>
        db.run((j) => {
          if (!rps.has(rp.id)) return
          // A client id taken by another RP is a broken invariant of the caller: a defect, as a database error is.
          if (rps.find((other) => other.clientId === rp.clientId && other.id !== rp.id) !== undefined) {
            throw new Error(`relying party ${rp.id}: client id ${rp.clientId} is taken`)
          }
          rps.set(j, rp.id, rp)
        }),
      findById: (id) => db.run(() => Option.fromNullable(rps.get(id))),
      findByClientId: (clientId) => db.run(() => Option.fromNullable(rps.find((rp) => rp.clientId === clientId))),
      list: () => db.run(() => rps.all().sort(orderBy([(rp) => rp.createdAt, "asc"], [(rp) => rp.id, "asc"]))),
    }),
  ).pipe(
    Context.add(
      RpOrganisationChecks,
      RpOrganisationChecks.of({
        insert: (input) =>
          db.run((j) => {
            const check: OrganisationCheck = { ...input, id: checkIds.next() }
            checks.set(j, check.id, check)
            return check
          }),
        listByClientId: (clientId) => db.run(() => checks.where((c) => c.clientId === clientId).sort(orderBy([(c) => c.id, "asc"]))),
      }),
    ),
  )
}
