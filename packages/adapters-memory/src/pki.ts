/** The software KeyStore's key records and the CA's certificates in memory. */
import { Context, Option } from "effect"
import { Certificates, KeyRecords, type StoredCertificate, type StoredKey } from "@signet/core"
import { type MemoryDatabase, Table, unique } from "./memory-database.ts"
import { orderBy } from "./order.ts"

/** Key records and certificates over `db`. */
export const pkiMemory = (db: MemoryDatabase) => {
  const keys = new Table<string, StoredKey>()
  const certificates = new Table<string, StoredCertificate>()
  // The oldest valid one: callers that raced to create a CA all settle on the first one written.
  const currentCa = (kind: StoredCertificate["kind"], environment: string) =>
    Option.fromNullable(
      certificates
        .where((c) => c.kind === kind && c.environment === environment && c.status === "valid")
        .sort(orderBy([(c) => c.createdAt, "asc"], [(c) => c.serial, "asc"]))[0],
    )
  return Context.make(
    KeyRecords,
    KeyRecords.of({
      insert: (k) =>
        db.write((j) => {
          if (keys.has(k.keyId)) unique("key id")
          keys.set(j, k.keyId, k)
        }),
      findById: (keyId) => db.run(() => Option.fromNullable(keys.get(keyId))),
      list: () => db.run(() => keys.all().sort(orderBy([(k) => k.createdAt, "asc"], [(k) => k.keyId, "asc"]))),
    }),
  ).pipe(
    Context.add(
      Certificates,
      Certificates.of({
        insert: (c) =>
          db.write((j) => {
            if (certificates.has(c.serial)) unique("certificate serial")
            certificates.set(j, c.serial, c)
          }),
        findBySerial: (serial) => db.run(() => Option.fromNullable(certificates.get(serial))),
        findCurrentCa: (kind, environment) => db.run(() => currentCa(kind, environment)),
        findCurrentCas: (environment) => db.run(() => ({ root: currentCa("root", environment), issuing: currentCa("issuing", environment) })),
        listByUser: (userId) =>
          db.run(() => certificates.where((c) => c.userId === userId).sort(orderBy([(c) => c.createdAt, "desc"], [(c) => c.serial, "asc"]))),
        listRevokedBy: (issuerSerial) =>
          db.run(() =>
            certificates
              .where((c) => c.issuerSerial === issuerSerial && c.status === "revoked")
              .sort(orderBy([(c) => c.revokedAt, "asc"], [(c) => c.serial, "asc"])),
          ),
        revoke: (serial, at, reason) =>
          db.run((j) => {
            const c = certificates.get(serial)
            if (c !== undefined && c.status === "valid") certificates.set(j, serial, { ...c, status: "revoked", revokedAt: at, revocationReason: reason })
          }),
      }),
    ),
  )
}
