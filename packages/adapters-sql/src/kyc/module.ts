/** The kyc module of the SQL storage: identity verifications, liveness captures, images, the KYC audit log and per-RP settings. */
import type { AnySqlModule } from "../module.ts"
import { kycMigrations } from "./migrations.ts"
import { KycStorageSql } from "./repositories.ts"

export type { KycVerificationsTable, KycCapturesTable, KycImagesTable, KycAuditTable, KycSettingsTable } from "./tables.ts"

/** The kyc module: its migrations and repositories. */
export const kycSql = {
  name: "kyc",
  migrations: kycMigrations,
  repositories: KycStorageSql,
} satisfies AnySqlModule
