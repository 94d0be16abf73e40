/**
 * kysely's SQLite dialect with two changes that matter when more than one process opens
 * the same file: transactions start with `begin immediate`, taking the write lock up front
 * (a deferred transaction that reads and then writes fails with SQLITE_BUSY when another
 * process wrote in between, and busy_timeout cannot help it), and DDL runs in a transaction,
 * so kysely's migrator holds that lock while it reads and applies migrations (kysely's
 * own SQLite migration lock is a no-op).
 */
import {
  CompiledQuery,
  type QueryResult,
  type DatabaseConnection,
  type Driver,
  SqliteAdapter,
  SqliteDialect,
  type SqliteDatabase,
  type SqliteDialectConfig,
  SqliteDriver,
  type SqliteStatement,
} from "kysely"

/** How many prepared statements a connection keeps (the engine issues a few dozen distinct queries). */
const STATEMENT_CACHE = 256

/**
 * kysely prepares every statement on every call; preparing costs as much as running a small
 * query. Statements are reusable in better-sqlite3, and the one connection is used by one
 * query at a time (kysely's mutex), so a small cache by SQL text is safe.
 */
export const withStatementCache = (database: SqliteDatabase): SqliteDatabase => {
  const cache = new Map<string, SqliteStatement>()
  return {
    close: () => database.close(),
    prepare: (sql: string) => {
      const hit = cache.get(sql)
      if (hit !== undefined) return hit
      const statement = database.prepare(sql)
      if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value!)
      cache.set(sql, statement)
      return statement
    },
  }
}

/**
 * Runs a compiled statement at once, as kysely's own SQLite connection does but without its
 * asynchronous round: for statements inside a transaction, which already holds the connection.
 */
export const runNowOn =
  (database: SqliteDatabase) =>
  (query: CompiledQuery<unknown>): QueryResult<unknown> => {
    const statement = database.prepare(query.sql)
    if (statement.reader) return { rows: statement.all(query.parameters) as Array<unknown> }
    const { changes, lastInsertRowid } = statement.run(query.parameters)
    // set one by one, not spread from temporary objects: this runs for every write inside a transaction
    const result: { rows: Array<unknown>; numAffectedRows?: bigint; insertId?: bigint } = { rows: [] }
    if (changes !== undefined && changes !== null) result.numAffectedRows = BigInt(changes)
    if (lastInsertRowid !== undefined && lastInsertRowid !== null) result.insertId = BigInt(lastInsertRowid)
    return result
  }

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"))
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true
  }
}

/** SQLite dialect whose transactions (and migrations) take the write lock when they begin. */
export class SqliteImmediateDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig

  constructor(config: SqliteDialectConfig) {
    super(config)
    this.#config = config
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config)
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlSqliteAdapter()
  }
}
