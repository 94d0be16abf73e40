/** @signet/adapters-sql: the one schema, migrations and repositories shared by the SQLite and PostgreSQL adapters. */
export type {
  BigIntColumn, CeremoniesTable, Database, FlagColumn, HostedSessionsTable, KeysTable, NullableBigIntColumn,
  PasskeysTable, RelyingPartiesTable, UsersTable, CertificatesTable, SigningRequestsTable, BatchesTable,
  SigningEventsTable, QuotaCountersTable, SscOperationsTable,
} from "./schema.ts"
export { migrateToLatest, migrations } from "./migrations.ts"
export type { MigrateOptions, SqlDialect } from "./migrations.ts"
export {
  guardedWrite, makeSqlDatabase, query, SqlDatabase, StorageSql, transaction, uniqueViolationColumns,
} from "./sql-database.ts"
export type { ActiveTransaction, SqlDatabaseService } from "./sql-database.ts"
export { DbBigInt, DbFlag, DbStringArray, decodeRow, flag, rowEncoder } from "./rows.ts"
export { CertificateFromRow, CertificatesSql } from "./repositories/certificates.ts"
export {
  BatchesSql, BatchFromRow, QuotaCountersSql, SigningEventFromRow, SigningEventsSql, SigningRequestFromRow, SigningRequestsSql,
} from "./repositories/signing.ts"
export { CeremoniesSql, CeremonyFromRow } from "./repositories/ceremonies.ts"
export { HostedSessionFromRow, HostedSessionsSql } from "./repositories/hosted-sessions.ts"
export { KeyRecordsSql, StoredKeyFromRow } from "./repositories/key-records.ts"
export { PasskeyFromRow, PasskeysSql } from "./repositories/passkeys.ts"
export { RelyingPartiesSql, RelyingPartyFromRow } from "./repositories/relying-parties.ts"
export { OrganisationCheckFromRow, RpOrganisationChecksSql } from "./repositories/rp-organisation-checks.ts"
export { UsersSql, UserFromRow } from "./repositories/users.ts"
export { SqlStorageLive } from "./storage.ts"
export type { StorageServices } from "./storage.ts"
export { SscOperationFromRow, SscOperationsSql } from "./repositories/ssc-operations.ts"
export { DeliveriesSql, DeliveryAttemptFromRow, DeliveryFromRow, WebhookSubscriptionFromRow, WebhookSubscriptionsSql } from "./repositories/webhooks.ts"
export {
  KycAuditEntryFromRow, KycAuditSql, KycCaptureFromRow, KycCapturesSql, KycImageFromRow, KycImagesSql, KycRpSettingsFromRow,
  KycStorageSql, KycVerificationFromRow, KycVerificationsSql,
} from "./repositories/kyc.ts"
export type { KycAuditTable, KycCapturesTable, KycImagesTable, KycSettingsTable, KycVerificationsTable } from "./schema.ts"
export { EmailVerificationFromRow, EmailVerificationsSql } from "./repositories/email-verifications.ts"
