/** The pki module of the SQL storage: the software KeyStore's encrypted key records and the certificates the CA issued. */
import { Layer } from "effect"
import type { AnySqlModule } from "../module.ts"
import { pkiMigrations } from "./migrations.ts"
import { KeyRecordsSql } from "./key-records.ts"
import { CertificatesSql } from "./certificates.ts"

export type { KeysTable, CertificatesTable } from "./tables.ts"

/** The pki module: its migrations and repositories. */
export const pkiSql = {
  name: "pki",
  migrations: pkiMigrations,
  repositories: Layer.mergeAll(KeyRecordsSql, CertificatesSql),
} satisfies AnySqlModule
