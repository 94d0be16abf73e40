/** KYC verifications, captures, images, audit log and settings in memory. */
import { Context, Option } from "effect"
import {
  KycAudit,
  KycCaptures,
  KycImages,
  KycVerifications,
  type KycAuditEntry,
  type KycCapture,
  type KycImage,
  type KycRpSettings,
  type KycVerification,
} from "@signet/core"
import { purge } from "./identity.ts"
import { type MemoryDatabase, Sequence, Table, unique } from "./memory-database.ts"
import { orderBy } from "./order.ts"

/** The identifier another verification of the same RP holds already, as the SQL unique indexes name it. */
const takenIdentifier = (rows: Table<string, KycVerification>, v: KycVerification): string | undefined => {
  const others = rows.where((o) => o.id !== v.id && o.clientId === v.clientId)
  if (others.some((o) => o.customerId === v.customerId)) return "customer_id"
  if (others.some((o) => o.phoneNumber === v.phoneNumber)) return "phone_number"
  // NULL is never equal to NULL in a unique index
  if (v.rpUrn !== null && others.some((o) => o.rpUrn === v.rpUrn)) return "rp_urn"
  return undefined
}

/** The KYC repositories over `db`. */
export const kycMemory = (db: MemoryDatabase) => {
  const verifications = new Table<string, KycVerification>()
  const captures = new Table<string, KycCapture>()
  const images = new Table<string, KycImage>()
  const audit = new Table<number, KycAuditEntry & { readonly seq: number }>()
  const auditSeqs = new Sequence()
  const settings = new Table<string, KycRpSettings>()
  const one = (predicate: (v: KycVerification) => boolean) => db.run(() => Option.fromNullable(verifications.find(predicate)))

  return Context.make(
    KycVerifications,
    KycVerifications.of({
      insert: (v) =>
        db.write((j) => {
          // the SQL adapter names the primary key `customer_id` too
          if (verifications.has(v.id)) unique("customer_id")
          const taken = takenIdentifier(verifications, v)
          if (taken !== undefined) unique(taken)
          verifications.set(j, v.id, v)
        }),
      findByCustomer: (clientId, customerId) => one((v) => v.clientId === clientId && v.customerId === customerId),
      findByPhone: (clientId, phone) => one((v) => v.clientId === clientId && v.phoneNumber === phone),
      findByRpUrn: (clientId, urn) => one((v) => v.clientId === clientId && v.rpUrn === urn),
      findById: (id) => db.run(() => Option.fromNullable(verifications.get(id))),
      findBySessionToken: (hash) => one((v) => v.sessionTokenHash === hash),
      findVerifiedAnywhere: (customerId) =>
        db.run(() =>
          Option.fromNullable(
            verifications
              .where((v) => v.customerId === customerId && v.status === "verified")
              .sort(orderBy([(v) => v.updatedAt, "desc"], [(v) => v.id, "asc"]))[0],
          ),
        ),
      list: (filter) =>
        db.run(() =>
          verifications
            .where((v) => (filter.clientId === undefined || v.clientId === filter.clientId) && (filter.status === undefined || v.status === filter.status))
            .sort(orderBy([(v) => v.updatedAt, "desc"], [(v) => v.id, "asc"]))
            .slice(0, Math.max(0, filter.limit)),
        ),
      update: (next, expectedVersion) =>
        db.write((j) => {
          const stored = verifications.get(next.id)
          if (stored === undefined || stored.version !== expectedVersion) return false
          const taken = takenIdentifier(verifications, next)
          if (taken !== undefined) unique(taken)
          verifications.set(j, next.id, next)
          return true
        }),
      remove: (id) =>
        db.run((j) => {
          purge(
            j,
            images,
            (i) => i.verificationId === id,
            (i) => i.id,
          )
          purge(
            j,
            captures,
            (c) => c.verificationId === id,
            (c) => c.id,
          )
          verifications.delete(j, id)
        }),
    }),
  ).pipe(
    Context.add(
      KycCaptures,
      KycCaptures.of({
        insert: (c) =>
          db.write((j) => {
            if (captures.has(c.id)) unique("capture id")
            captures.set(j, c.id, c)
          }),
        findById: (id) => db.run(() => Option.fromNullable(captures.get(id))),
        consume: (id, at) =>
          db.run((j) => {
            const c = captures.get(id)
            if (c === undefined || c.consumedAt !== null) return false
            captures.set(j, id, { ...c, consumedAt: at })
            return true
          }),
      }),
    ),
    Context.add(
      KycImages,
      KycImages.of({
        insert: (i) =>
          db.write((j) => {
            if (images.has(i.id)) unique("image id")
            images.set(j, i.id, i)
          }),
        findById: (id) => db.run(() => Option.fromNullable(images.get(id))),
        listFor: (verificationId, kind) =>
          db.run(() =>
            images
              .where((i) => i.verificationId === verificationId && i.kind === kind)
              .sort(orderBy([(i) => i.position, "asc"], [(i) => i.createdAt, "asc"], [(i) => i.id, "asc"])),
          ),
        removeFor: (verificationId, kind) =>
          db.run((j) => {
            purge(
              j,
              images,
              (i) => i.verificationId === verificationId && i.kind === kind,
              (i) => i.id,
            )
          }),
        purgeBefore: (before) =>
          db.run((j) =>
            purge(
              j,
              images,
              (i) => i.createdAt < before,
              (i) => i.id,
            ),
          ),
      }),
    ),
    Context.add(
      KycAudit,
      KycAudit.of({
        append: (entry) =>
          db.run((j) => {
            const seq = auditSeqs.next()
            audit.set(j, seq, { ...entry, seq })
          }),
        listFor: (verificationId) =>
          db.run(() =>
            audit
              .where((e) => e.verificationId === verificationId)
              .sort(orderBy([(e) => e.seq, "asc"]))
              .map(({ seq: _, ...entry }) => entry),
          ),
        settingsOf: (clientId) => db.run(() => Option.fromNullable(settings.get(clientId))),
        saveSettings: (s) => db.run((j) => settings.set(j, s.clientId, s)),
      }),
    ),
  )
}
