/** The embedded storage: one SQLite file (or `:memory:`) through better-sqlite3. */
import BetterSqlite3 from "better-sqlite3"
import { Effect, Layer } from "effect"
import { Kysely } from "kysely"
import { type Database, makeSqlDatabase, migrateToLatest, SqlDatabase, SqlStorageLive, type StorageServices } from "@signet/adapters-sql"
import { runNowOn, SqliteImmediateDialect, withStatementCache } from "./sqlite-dialect.ts"

/** Where the SQLite database lives and how long a writer waits for another process's lock. */
export interface StorageSqliteOptions {
  /** A file path, or `":memory:"` for a private in-memory database (tests). */
  readonly filename: string
  /** How long to wait for a lock held by another process before failing, in ms (default 5000). */
  readonly busyTimeoutMs?: number
}

/** Opens the database, applies the pragmas and migrations; closes it when the scope ends. */
export const SqlDatabaseSqlite = (options: StorageSqliteOptions): Layer.Layer<SqlDatabase> =>
  Layer.scoped(
    SqlDatabase,
    Effect.gen(function* () {
      const busyTimeoutMs = options.busyTimeoutMs ?? 5000
      const { db, database } = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const sqlite = new BetterSqlite3(options.filename, { timeout: busyTimeoutMs })
          // WAL lets readers in other processes run while one writes; NORMAL sync is durable enough under WAL.
          sqlite.pragma("journal_mode = WAL")
          // FULL: a commit is on disk before it returns, so a reported state change survives a power loss
          // (NORMAL in WAL mode may lose the last commits). The engine reports only what is durable.
          sqlite.pragma("synchronous = FULL")
          sqlite.pragma("foreign_keys = ON")
          sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`)
          // Each unit of a commit group runs under a savepoint, whose journal (the pages as they were
          // before the unit) SQLite keeps in a temporary file past 64 KiB: about three times the bytes
          // of the WAL, one system call per page, thrown away at the group's COMMIT. Kept in memory.
          sqlite.pragma("temp_store = MEMORY")
          // A checkpoint copies the WAL's pages into the database file inside the COMMIT that passes
          // the threshold, on the serving thread. At SQLite's 1,000 pages a busy node checkpoints every
          // few group commits and copies its hot pages (indexes, counters) each time; at 10,000 (about
          // 40 MB of WAL) it copies them ten times less often. The COMMIT of a group of 64 units took
          // 3.7 to 4.0 ms on average at 1,000 and 2.8 to 3.1 ms at 10,000 (b64, alternated three times).
          sqlite.pragma("wal_autocheckpoint = 10000")
          const database = withStatementCache(sqlite)
          return { db: new Kysely<Database>({ dialect: new SqliteImmediateDialect({ database }) }), database }
        }),
        ({ db }) => Effect.promise(() => db.destroy()),
      )
      yield* migrateToLatest(db, "sqlite")
      // A second connection for reads outside transactions (opened after the migrations, so it
      // starts on the current schema); a private in-memory database cannot be opened twice.
      const reader =
        options.filename === ":memory:" || options.filename === ""
          ? undefined
          : yield* Effect.acquireRelease(
              Effect.sync(() => {
                const sqlite = new BetterSqlite3(options.filename, { timeout: busyTimeoutMs })
                // It never writes: a write here would wait for the writer's lock while holding the thread.
                sqlite.pragma("query_only = ON")
                sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`)
                return sqlite
              }),
              (sqlite) => Effect.sync(() => sqlite.close()),
            )
      return yield* makeSqlDatabase(db, "sqlite", runNowOn(database), reader === undefined ? undefined : runNowOn(withStatementCache(reader)))
    }),
  )

/** Storage on SQLite: the unit of work and every repository (and the `SqlDatabase` under them). */
export const StorageSqlite = (options: StorageSqliteOptions): Layer.Layer<StorageServices | SqlDatabase> =>
  SqlStorageLive.pipe(Layer.provideMerge(SqlDatabaseSqlite(options)))
