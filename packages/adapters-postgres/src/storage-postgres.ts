/** Storage on PostgreSQL: the shared store of several stateless engine nodes. */
import { dbPoolConnections, withTags } from "@signet/core"
import { Effect, Layer } from "effect"
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  Kysely,
  PostgresDialect,
  PostgresIntrospector,
  type QueryResult,
  type SchemaMetadata,
  sql,
  type TableMetadata,
  Transaction,
} from "kysely"
import pg from "pg"
import { type RunStatement, StatementsRun } from "./prepared.ts"
import {
  type BegunTransaction,
  type ConfigView,
  type Database,
  makeSqlDatabase,
  type StatementRunner,
  migrateToLatest,
  SqlDatabase,
  SqlStorageLive,
  type StorageServices,
} from "@signet/adapters-sql"

/** Where the engine's tables live. */
export interface StoragePostgresOptions {
  /** e.g. `postgres://user@host:5432/db` */
  readonly connectionString: string
  /** Schema for the tables (created if missing); the server's default search path when absent. Lower-case identifier. */
  readonly schema?: string
  /** Pool size (default 10). */
  readonly maxConnections?: number
  /**
   * Name the engine's prepared statements, so that PostgreSQL parses and plans each once per
   * connection (default true). Off behind a pooler that does not keep them (PgBouncer in transaction
   * mode before 1.21); on, a connection that finds one missing or changed stops naming (docs/operations.md#postgresql).
   */
  readonly preparedStatements?: boolean
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

// A unit of work's first two statements, sent with its first own one (named like the rest: parsed once per connection).
const BEGIN = CompiledQuery.raw("begin")
const EPOCH = CompiledQuery.raw("select epoch from config_epoch where id = 1")

/**
 * What PostgreSQL answers when a named statement of this connection no longer fits: its result
 * columns changed (0A000: another node migrated the table), or a pooler between gave the
 * statement's name to another server connection (26000 missing, 42P05 already there).
 */
const NAMED_STATEMENT_GONE = new Set(["0A000", "26000", "42P05"])

/**
 * A `pg` client that runs named statements (`{ name, text, values }`) unnamed once one of them
 * failed as `NAMED_STATEMENT_GONE` says (that statement's transaction fails; the next ones work).
 */
class NamingClient extends pg.Client {
  #unnamed = false
  /** whether this connection runs its statements unnamed (see above) */
  get unnamed(): boolean {
    return this.#unnamed
  }
  /** Stops naming on this connection when `error` says a named statement no longer fits. */
  noteGone(error: unknown): void {
    const code = typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined
    if (typeof code === "string" && NAMED_STATEMENT_GONE.has(code)) this.#unnamed = true
  }
  // pg's query has a dozen overloads (hence any); only a named statement is looked at, the rest is forwarded as given.
  override query(...args: Array<any>): any {
    const first = args[0]
    const query = super.query as (...a: Array<any>) => any
    // A submittable (`StatementsRun`) reports through its own callback.
    if (typeof first !== "object" || first === null || typeof first.name !== "string" || typeof first.text !== "string" || typeof first.submit === "function")
      return query.apply(this, args)
    if (this.#unnamed) return query.call(this, { text: first.text, values: first.values }, ...args.slice(1))
    // pg-pool's query passes a callback; the engine's own calls take the promise.
    const callback = args[args.length - 1]
    if (typeof callback === "function") {
      return query.call(this, ...args.slice(0, -1), (error: unknown, result: unknown) => {
        if (error) this.noteGone(error)
        callback(error, result)
      })
    }
    return (query.apply(this, args) as Promise<pg.QueryResult>).catch((error: unknown) => {
      this.noteGone(error)
      throw error
    })
  }
}

/** Most statement names a storage gives out; statements past them run unnamed. */
const STATEMENT_NAMES = 1000

/**
 * A compiled statement as pg runs it: named after its text (the same text, the same name, on every
 * connection) unless naming is off (`names` undefined) or the names are used up.
 */
const statementConfig =
  (names: Map<string, string> | undefined) =>
  (compiled: CompiledQuery<unknown>): pg.QueryConfig => {
    const values = compiled.parameters as Array<unknown>
    if (names === undefined) return { text: compiled.sql, values }
    let name = names.get(compiled.sql)
    if (name === undefined && names.size < STATEMENT_NAMES) {
      name = `signet_${names.size}`
      names.set(compiled.sql, name)
    }
    return name === undefined ? { text: compiled.sql, values } : { name, text: compiled.sql, values }
  }

/** A statement's result as kysely's PostgreSQL driver reports it. */
const resultOf = (result: pg.QueryResult): QueryResult<unknown> => {
  const { command, rowCount, rows } = result
  const writes = command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE"
  return writes ? { numAffectedRows: BigInt(rowCount ?? 0), rows: rows ?? [] } : { rows: rows ?? [] }
}

/** Runs `config` on `on` (a client, or the pool: any of its clients) with pg's callback: no promise made. */
const runOn = (on: pg.Pool | pg.ClientBase, config: pg.QueryConfig, done: Parameters<StatementRunner>[1]): void => {
  ;(on.query as (config: pg.QueryConfig, callback: (error: Error | undefined, result: pg.QueryResult) => void) => void).call(on, config, (error, result) =>
    error ? done(error, undefined) : done(undefined, resultOf(result)),
  )
}

const epochOf = (rows: ReadonlyArray<unknown>): string | undefined => {
  const epoch = (rows[0] as { readonly epoch?: unknown } | undefined)?.epoch
  return typeof epoch === "string" || typeof epoch === "number" || typeof epoch === "bigint" ? String(epoch) : undefined
}

/** A statement of an exchange, and what is done with its answer once the exchange succeeded. */
interface Queued {
  readonly statement: RunStatement
  readonly answered?: (result: pg.QueryResult) => void
  /** set for a statement someone waits for: told when the exchange fails */
  readonly failed?: (error: Error) => void
}

/**
 * Starts a unit of work's transaction on a pooled client, without kysely's transaction machinery
 * (its connection lock, driver and promise hops, about half the CPU of a short transaction).
 * Nothing is sent yet: the BEGIN and the read of the configuration epoch (into `config`) go with
 * the unit's first statement, and writes whose answer the unit does not need (`later`) with its
 * next statement or its COMMIT, each exchange one round trip. Statements run straight on the
 * client; `trx` is a kysely handle on that one client for the repositories' built queries. The
 * client goes back to the pool after COMMIT or ROLLBACK, and is closed when either failed.
 */
const beginOn = async (
  pool: pg.Pool,
  handle: (connection: DatabaseConnection) => Transaction<Database>,
  configOf: (compiled: CompiledQuery<unknown>) => pg.QueryConfig,
  config: ConfigView,
): Promise<BegunTransaction> => {
  const client = await pool.connect()
  const naming = client as unknown as NamingClient
  const statementOf = (compiled: CompiledQuery<unknown>): RunStatement => {
    const { name, text, values } = configOf(compiled)
    return { name: naming.unnamed ? undefined : name, text, values: (values ?? []) as ReadonlyArray<unknown> }
  }
  // What waits for the next exchange: the BEGIN with the epoch's read at first, then queued writes
  // and the statements of this turn of the microtask queue.
  let queued: Array<Queued> = [
    { statement: statementOf(BEGIN) },
    {
      statement: statementOf(EPOCH),
      answered: (result) => {
        config.epoch = epochOf(result.rows)
      },
    },
  ]
  let begun = false
  /** Everything queued (and the COMMIT) in one exchange; `done` gets the last answer (the COMMIT's). */
  const send = (commit: boolean, done?: (error: Error | undefined, last: pg.QueryResult | undefined) => void) => {
    const these = queued
    queued = []
    begun = true
    client.query(
      new StatementsRun(
        client,
        these.map((q) => q.statement),
        commit,
        (error, results) => {
          if (error !== undefined) {
            naming.noteGone(error)
            for (const q of these) q.failed?.(error)
            return done?.(error, undefined)
          }
          these.forEach((q, i) => {
            q.answered?.(results![i]!)
          })
          done?.(undefined, results!.at(-1))
        },
      ) as never,
    )
  }
  const flush = () =>
    new Promise<void>((resolve, reject) => {
      if (queued.length === 0) return resolve()
      send(false, (error) => (error === undefined ? resolve() : reject(error)))
    })
  // Whether a turn's exchange is scheduled: statements the unit's fibers issue in the same turn of
  // the microtask queue (reads made concurrently) go together.
  let scheduled = false
  const sendWaited = () => {
    scheduled = false
    // Sent already (with a flush or the COMMIT), or only writes nobody waits for: nothing to do now.
    if (queued.some((q) => q.failed !== undefined)) send(false)
  }
  const run: StatementRunner = (compiled, done) => {
    queued.push({ statement: statementOf(compiled), answered: (result) => done(undefined, resultOf(result)), failed: (error) => done(error, undefined) })
    if (scheduled) return
    scheduled = true
    queueMicrotask(sendWaited)
  }
  const connection: DatabaseConnection = {
    // as kysely's driver runs a built query (it copies the parameters; pg only reads them), after what waits
    executeQuery: async (compiled) => {
      await flush()
      return resultOf(await client.query(compiled.sql, compiled.parameters as Array<unknown>)) as never
    },
    streamQuery: () => {
      throw new Error("a unit of work's transaction does not stream")
    },
  }
  const ended = (commit: boolean): Promise<pg.QueryResult | undefined> => {
    if (!commit) {
      queued = []
      // Nothing was sent: there is no transaction to roll back.
      return begun ? client.query("rollback") : Promise.resolve(undefined)
    }
    return new Promise((resolve, reject) => send(true, (error, last) => (error === undefined ? resolve(last) : reject(error))))
  }
  return {
    trx: handle(connection),
    run,
    later: (compiled) => {
      queued.push({ statement: statementOf(compiled) })
    },
    flush,
    end: async (commit) => {
      try {
        const answer = await ended(commit)
        // An aborted transaction answers COMMIT with ROLLBACK, and no error.
        if (commit && answer?.command !== "COMMIT") throw new Error(`transaction not committed: PostgreSQL answered ${answer?.command}`)
      } catch (error) {
        // Closed with its connection: a transaction a queued write failed in is still open on it.
        client.release(error as Error)
        throw error
      }
      client.release()
    },
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
      const configOf = statementConfig(options.preparedStatements === false ? undefined : new Map())
      const { db, pool, dialect } = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const opened = new pg.Pool({ ...poolConfig(options), Client: NamingClient })
          // An idle client's error (server restart, network) is emitted on the pool; unhandled, it would crash the process.
          opened.on("error", (error) => console.error(`[signet] PostgreSQL pool: idle client error: ${error.message}`))
          // The pool's occupancy for `/metrics`, kept current: the pool changes on every query, so the
          // gauges are written once per turn of the event loop, not once per change.
          let pending = false
          const observe = () => {
            if (pending) return
            pending = true
            queueMicrotask(() => {
              pending = false
              poolTotal.unsafeUpdate(opened.totalCount, [])
              poolIdle.unsafeUpdate(opened.idleCount, [])
              poolWaiting.unsafeUpdate(opened.waitingCount, [])
            })
          }
          for (const event of ["connect", "acquire", "release", "remove"] as const) opened.on(event, observe)
          const dialect = new PostgresCurrentSchemaDialect({ pool: opened })
          return { db: new Kysely<Database>({ dialect }), pool: opened, dialect }
        }),
        ({ db }) => Effect.promise(() => db.destroy()),
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
      // A kysely handle on one transaction's client: the base handle's compiler and plugins, that one connection.
      const executor = db.getExecutor()
      const driver = dialect.createDriver()
      const config = { dialect: dialect }
      const handle = (connection: DatabaseConnection) =>
        new Transaction<Database>({
          config,
          dialect: dialect,
          driver,
          executor: executor.withConnectionProvider({ provideConnection: (consumer) => consumer(connection) }),
        })
      const beginWithEpoch = (config: ConfigView) => beginOn(pool, handle, configOf, config)
      // Outside a transaction: on any pooled connection, as kysely would take one.
      const runOnPool: StatementRunner = (compiled, done) => runOn(pool, configOf(compiled), done)
      return yield* makeSqlDatabase(db, "postgres", undefined, undefined, beginWithEpoch, runOnPool)
    }),
  )

/** Storage on PostgreSQL: the unit of work and every repository (and the `SqlDatabase` under them). */
export const StoragePostgres = (options: StoragePostgresOptions): Layer.Layer<StorageServices | SqlDatabase> =>
  SqlStorageLive.pipe(Layer.provideMerge(SqlDatabasePostgres(options)))
