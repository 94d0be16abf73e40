/** @signet/adapters-sqlite: the embedded default storage on SQLite (better-sqlite3). */
export { SqlDatabaseSqlite, StorageSqlite } from "./storage-sqlite.ts"
export type { StorageSqliteOptions } from "./storage-sqlite.ts"
export { SqliteImmediateDialect } from "./sqlite-dialect.ts"
export { backupSqlite, restoreSqlite, SqliteBackupRefused } from "./backup.ts"
export type { SqliteBackupResult } from "./backup.ts"
export { holdSqliteExclusively } from "./exclusive.ts"
