/** @signet/adapters-sql: the one schema, migrations and repositories shared by the SQLite and PostgreSQL adapters. */
export type { BigIntColumn, FlagColumn, NullableBigIntColumn } from "./columns.ts"
export type { Database } from "./database.ts"
export { collectMigrations, migrateToLatest, migrations } from "./migrations.ts"
export type { MigrateOptions, SqlDialect } from "./migrations.ts"
export { typesOf } from "./migration.ts"
export type { AnyDb, ColumnTypes } from "./migration.ts"
export { noMigrations } from "./module.ts"
export type { AnySqlModule, ServicesOf, SqlModule } from "./module.ts"
export { sqlModules } from "./modules.ts"
export {
  cachedRead,
  execute,
  executeLater,
  guardedWrite,
  makeSqlDatabase,
  query,
  SqlDatabase,
  StorageSql,
  transaction,
  uniqueViolationColumns,
} from "./sql-database.ts"
export type { ActiveTransaction, BegunTransaction, SqlDatabaseService, StatementRunner } from "./sql-database.ts"
export { bumpConfigEpochOn } from "./config-epoch.ts"
export type { ConfigView } from "./config-epoch.ts"
export { DbBigInt, DbFlag, DbStringArray, decodeRow, flag, rowEncoder } from "./rows.ts"
export { SqlStorageLive } from "./storage.ts"
export type { StorageServices } from "./storage.ts"
// The modules, their tables and their row codecs.
export { kernelSql } from "./kernel/module.ts"
export { rpSql } from "./rp/module.ts"
export type { RelyingPartiesTable, RpOrganisationChecksTable } from "./rp/module.ts"
export { RelyingPartiesSql, RelyingPartyFromRow } from "./rp/relying-parties.ts"
export { OrganisationCheckFromRow, RpOrganisationChecksSql } from "./rp/organisation-checks.ts"
export { identitySql } from "./identity/module.ts"
export type { CeremoniesTable, EmailVerificationsTable, HostedSessionsTable, PasskeysTable, UsersTable } from "./identity/module.ts"
export { CeremoniesSql, CeremonyFromRow } from "./identity/ceremonies.ts"
export { EmailVerificationFromRow, EmailVerificationsSql } from "./identity/email-verifications.ts"
export { HostedSessionFromRow, HostedSessionsSql } from "./identity/hosted-sessions.ts"
export { PasskeyFromRow, PasskeysSql } from "./identity/passkeys.ts"
export { UserFromRow, UsersSql } from "./identity/users.ts"
export { pkiSql } from "./pki/module.ts"
export type { CertificatesTable, KeysTable } from "./pki/module.ts"
export { CertificateFromRow, CertificatesSql } from "./pki/certificates.ts"
export { KeyRecordsSql, StoredKeyFromRow } from "./pki/key-records.ts"
export { signingSql } from "./signing/module.ts"
export type { BatchesTable, QuotaCountersTable, SigningEventsTable, SigningRequestsTable } from "./signing/module.ts"
export {
  BatchesSql,
  BatchFromRow,
  QuotaCountersSql,
  SigningEventFromRow,
  SigningEventsSql,
  SigningRequestFromRow,
  SigningRequestsSql,
} from "./signing/repositories.ts"
export { sscSql } from "./ssc/module.ts"
export type { SscOperationsTable } from "./ssc/module.ts"
export { SscOperationFromRow, SscOperationsSql } from "./ssc/repositories.ts"
export { eventsSql } from "./events/module.ts"
export type { DeliveriesTable, DeliveryAttemptsTable, WebhookSubscriptionsTable } from "./events/module.ts"
export {
  DeliveriesSql,
  DeliveryAttemptFromRow,
  DeliveryFromRow,
  WebhookSubscriptionFromRow,
  WebhookSubscriptionsSql,
} from "./events/repositories.ts"
export { kycSql } from "./kyc/module.ts"
export type { KycAuditTable, KycCapturesTable, KycImagesTable, KycSettingsTable, KycVerificationsTable } from "./kyc/module.ts"
export {
  KycAuditEntryFromRow,
  KycAuditSql,
  KycCaptureFromRow,
  KycCapturesSql,
  KycImageFromRow,
  KycImagesSql,
  KycRpSettingsFromRow,
  KycStorageSql,
  KycVerificationFromRow,
  KycVerificationsSql,
} from "./kyc/repositories.ts"
export { documentsSql } from "./documents/module.ts"
export { padesSql } from "./pades/module.ts"
export { oidcSql } from "./oidc/module.ts"
export { billingSql } from "./billing/module.ts"
export { identityProvidersSql } from "./identity-providers/module.ts"
export { authorizationSql } from "./authorization/module.ts"
export { rotateSealedColumns } from "./master-key-rotation.ts"
export type { RotateSealedOptions, SealedTableRotation, SealedValueResealer } from "./master-key-rotation.ts"
