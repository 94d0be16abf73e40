/** Storage on PostgreSQL: the shared store of several stateless engine nodes. */
import { dbPoolConnections, withTags } from "@signet/core"
import { Effect, Layer } from "effect"
import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  Kysely,
  PostgresDialect,
  PostgresIntrospector,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from "kysely"
import pg from "pg"
import { type Database, makeSqlDatabase, migrateToLatest, SqlDatabase, SqlStorageLive, type StorageServices } from "@signet/adapters-sql"

/** Where the engine's tables live. */
export interface StoragePostgresOptions {
  /** e.g. `postgres://user@host:5432/db` */
  readonly connectionString: string
  /** Schema for the tables (created if missing); the server's default search path when absent. Lower-case identifier. */
  readonly schema?: string
  /** Pool size (default 10). */
  readonly maxConnections?: number
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** pg connection settings for `options`: the schema goes into every connection's search path. */
export const poolConfig = (options: StoragePostgresOptions): pg.PoolConfig => {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    // Unquoted in search_path and quoted in CREATE SCHEMA: only names that read the same both ways are safe.
    throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(options.schema)}: use [a-z_][a-z0-9_]*`)
  }
  return {
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  }
}

/**
 * The migrator asks the introspector whether its tables exist. Kysely's own introspector reads every
 * schema's columns, naming their types; when another session drops a schema meanwhile (tests drop
 * theirs all the time; operators may too), that lookup fails with 3F000. Only the current schema's
 * table names matter here, and reading them names no other schema.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<any>
  readonly #full: PostgresIntrospector
  constructor(db: Kysely<any>) {
    this.#db = db
    this.#full = new PostgresIntrospector(db)
  }
  getSchemas(): Promise<Array<SchemaMetadata>> {
    return this.#full.getSchemas()
  }
  async getTables(_options?: DatabaseMetadataOptions): Promise<Array<TableMetadata>> {
    const rows = await sql<{ readonly name: string; readonly schema: string; readonly kind: string }>`
      select c.relname as name, n.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm')`.execute(this.#db)
    return rows.rows.map((r) => ({ name: r.name, schema: r.schema, isView: r.kind === "v" || r.kind === "m", columns: [] }))
  }
  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) }
  }
}

/** PostgreSQL with the current-schema introspector. */
class PostgresCurrentSchemaDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db)
  }
}

const isDuplicateSchema = (e: unknown): boolean => {
  const code = typeof e === "object" && e !== null ? (e as { readonly code?: unknown }).code : undefined
  // 42P06 duplicate_schema; 23505 when two sessions race on the catalogue despite IF NOT EXISTS.
  return code === "42P06" || code === "23505"
}

const poolTotal = withTags(dbPoolConnections, { state: "total" })
const poolIdle = withTags(dbPoolConnections, { state: "idle" })
const poolWaiting = withTags(dbPoolConnections, { state: "waiting" })

/** Opens the pool, creates the schema if missing, runs the migrations; ends the pool when the scope ends. */
export const SqlDatabasePostgres = (options: StoragePostgresOptions): Layer.Layer<SqlDatabase> =>
  Layer.scoped(
    SqlDatabase,
    Effect.gen(function* () {
      const db = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const pool = new pg.Pool(poolConfig(options))
          // An idle client's error (server restart, network) is emitted on the pool; unhandled, it would crash the process.
          pool.on("error", (error) => console.error(`[signet] PostgreSQL pool: idle client error: ${error.message}`))
          // The pool's occupancy for `/metrics`, kept current: the pool changes on every query, so the
          // gauges are written once per turn of the event loop, not once per change.
          let pending = false
          const observe = () => {
            if (pending) return
            pending = true
            queueMicrotask(() => {
              pending = false
              poolTotal.unsafeUpdate(pool.totalCount, [])
              poolIdle.unsafeUpdate(pool.idleCount, [])
              poolWaiting.unsafeUpdate(pool.waitingCount, [])
            })
          }
          for (const event of ["connect", "acquire", "release", "remove"] as const) pool.on(event, observe)
          return new Kysely<Database>({ dialect: new PostgresCurrentSchemaDialect({ pool }) })
        }),
        (kysely) => Effect.promise(() => kysely.destroy()),
      )
      if (options.schema !== undefined) {
        const schema = options.schema
        yield* Effect.promise(() =>
          sql`create schema if not exists ${sql.id(schema)}`.execute(db).catch((e: unknown) => {
            if (!isDuplicateSchema(e)) throw e
          }),
        )
      }
      // The migration tables go in the same schema; kysely must be told, or it finds another schema's table and skips its own.
      const current = yield* Effect.promise(() => sql<{ readonly schema: string | null }>`select current_schema() as schema`.execute(db))
      const migrationTableSchema = current.rows[0]?.schema
      if (migrationTableSchema === undefined || migrationTableSchema === null) {
        return yield* Effect.dieMessage("PostgreSQL: no current schema (the search path names no existing schema)")
      }
      yield* migrateToLatest(db, "postgres", { migrationTableSchema })
      return yield* makeSqlDatabase(db, "postgres")
    }),
  )

/** Storage on PostgreSQL: the unit of work and every repository (and the `SqlDatabase` under them). */
export const StoragePostgres = (options: StoragePostgresOptions): Layer.Layer<StorageServices | SqlDatabase> =>
  SqlStorageLive.pipe(Layer.provideMerge(SqlDatabasePostgres(options)))
