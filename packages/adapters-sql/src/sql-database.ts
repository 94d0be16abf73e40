/**
 * The database handle the shared repositories run on, and the unit of work over it.
 *
 * Inside `Storage.transaction` every query must go through the transaction's connection:
 * on SQLite kysely has one connection behind a mutex, so a query on the pool from inside a
 * transaction would wait for the transaction to end (a deadlock). The current transaction
 * lives in a FiberRef, which forked child fibers inherit, so repositories pick it up
 * wherever they run.
 */
import { Context, Deferred, Effect, Exit, FiberRef, Layer, Metric, Option } from "effect"
import { type Compilable, CompiledQuery, type ControlledTransaction, type Kysely, type QueryResult, SelectQueryNode, sql, type Transaction } from "kysely"
import { dbCommits, dbTransactionSeconds, setBounded, Storage, traced, UniqueViolation, withTags } from "@signet/core"
import type { SqlDialect } from "./migration.ts"
import { type ConfigView, ConfigWriteWatch, freshConfigView, noteStatement, readEpoch } from "./config-epoch.ts"
import type { Database } from "./database.ts"

/** A transaction in progress and the lock that keeps each repository call in it atomic. */
export interface ActiveTransaction {
  readonly trx: Transaction<Database>
  /**
   * One repository call at a time per transaction: on PostgreSQL a guarded write is three
   * statements (savepoint, write, release) that a concurrent fiber must not interleave with.
   * Taken on PostgreSQL only: on SQLite each call is one statement.
   */
  readonly lock: Effect.Semaphore
  /**
   * Set when a statement failed with a database error (a defect) that the caller then caught:
   * PostgreSQL has aborted the transaction and would answer COMMIT with a silent ROLLBACK,
   * so the commit refuses instead (on both databases, so they behave alike).
   */
  poisoned: boolean
  /** what the transaction knows of the configuration epoch (see config-epoch.ts) */
  readonly config: ConfigView
  /**
   * PostgreSQL: runs a compiled statement straight on the transaction's client, without kysely's
   * executor (its connection lock, plugins and promise hops: about half of a statement's CPU).
   */
  readonly run: StatementRunner | undefined
  /**
   * PostgreSQL: queues a write whose answer the unit does not need; it is sent ahead of the unit's
   * next statement, or with its COMMIT, in the same exchange (see `executeLater`).
   */
  readonly later: ((query: CompiledQuery<unknown>) => void) | undefined
  /** PostgreSQL: sends what waits to go with the next statement (the BEGIN, queued writes) now */
  readonly flush: (() => Promise<void>) | undefined
  /** guarded writes in progress (they hold `lock` across three statements): meanwhile a statement takes the lock too */
  guarding: number
}

/**
 * Group commit on SQLite: units of work that arrive while one runs are run one after another in
 * the same database transaction, each under its own savepoint, and share its one durable COMMIT.
 * A unit's result is released only after that COMMIT, so nothing is reported before it is durable.
 */
interface CommitGroup {
  /** one unit at a time runs in the open transaction (SQLite has one connection anyway) */
  readonly turn: Effect.Semaphore
  /** units waiting for their turn: while there are some, the transaction stays open for them */
  waiting: number
  open: OpenGroup | undefined
}

interface OpenGroup {
  readonly trx: ControlledTransaction<Database>
  /** units run in it so far */
  units: number
  /** set when a unit could not be undone to its savepoint: the whole group rolls back */
  broken: boolean
  /** the configuration epoch as the group's transaction sees it, shared by its units */
  readonly config: ConfigView
  /** the COMMIT's outcome, which every unit of the group waits for */
  readonly done: Deferred.Deferred<void>
}

/** Most units sharing one COMMIT: bounds how long the write lock is held for other processes. */
export const GROUP_COMMIT_LIMIT = 64

/** What the shared repositories need: kysely, which dialect it speaks, and the current transaction. */
export interface SqlDatabaseService {
  readonly db: Kysely<Database>
  readonly dialect: SqlDialect
  /** The transaction the current fiber runs in (inherited by forked fibers); None outside one. */
  readonly currentTransaction: FiberRef.FiberRef<Option.Option<ActiveTransaction>>
  /** SQLite: units of work share commits (see CommitGroup); PostgreSQL groups commits itself */
  readonly group: CommitGroup | undefined
  /**
   * SQLite: runs a compiled statement at once on the one connection (better-sqlite3 is synchronous).
   * Used only inside the current transaction, which holds that connection; outside one, a statement
   * waits for kysely's connection like any other (it must not read another unit's uncommitted rows).
   */
  readonly runNow: ((query: CompiledQuery<unknown>) => QueryResult<unknown>) | undefined
  /**
   * SQLite on a file: runs a read (a SELECT) at once on a second, query-only connection, for reads
   * made outside any transaction. Under WAL it sees the last committed state, never a commit
   * group's uncommitted rows, and it does not wait for the writer's connection while a group
   * commits. Undefined for `:memory:` (a second connection would be another database) and PostgreSQL.
   */
  readonly readNow: ((query: CompiledQuery<unknown>) => QueryResult<unknown>) | undefined
  /**
   * PostgreSQL: starts a unit of work's transaction on a pooled client. Its BEGIN and the read of
   * the configuration epoch (into `config`) go with the unit's first statement, in one exchange.
   */
  readonly beginWithEpoch: ((config: ConfigView) => Promise<BegunTransaction>) | undefined
  /** PostgreSQL: runs a compiled statement outside any transaction on a pooled connection, without kysely's executor */
  readonly runOnPool: StatementRunner | undefined
  /** the tables whose reads may be cached (see `cachedRead`); registered by their repositories */
  readonly configTables: Set<string>
  /** cached results by statement and parameters, each with the epoch it was read under */
  readonly configCache: Map<string, { readonly epoch: string; readonly result: QueryResult<unknown> }>
}

/**
 * Runs a compiled statement and calls `done` once with its error or its result: a callback, not a
 * promise, because it runs about twenty times a signature and each promise is an allocation and a
 * turn of the microtask queue.
 */
export type StatementRunner = (query: CompiledQuery<unknown>, done: (error: unknown, result: QueryResult<unknown> | undefined) => void) => void

/** A transaction a dialect began for a unit of work (`beginWithEpoch`). */
export interface BegunTransaction {
  /** kysely's handle on the transaction's connection */
  readonly trx: Transaction<Database>
  readonly run: ActiveTransaction["run"]
  readonly later?: ActiveTransaction["later"]
  readonly flush?: ActiveTransaction["flush"]
  /** COMMIT (true) or ROLLBACK; either way the connection is given back. Fails when the transaction did not commit. */
  readonly end: (commit: boolean) => Promise<void>
}

/** The database the SQL repositories run on; provided by `StorageSqlite` / `StoragePostgres`. */
export class SqlDatabase extends Context.Tag("@signet/adapters-sql/SqlDatabase")<SqlDatabase, SqlDatabaseService>() {}

/** Builds the service for an open kysely instance (each instance gets its own transaction FiberRef). */
export const makeSqlDatabase = (
  db: Kysely<Database>,
  dialect: SqlDialect,
  runNow?: (query: CompiledQuery<unknown>) => QueryResult<unknown>,
  readNow?: (query: CompiledQuery<unknown>) => QueryResult<unknown>,
  beginWithEpoch?: SqlDatabaseService["beginWithEpoch"],
  runOnPool?: SqlDatabaseService["runOnPool"],
): Effect.Effect<SqlDatabaseService> =>
  Effect.sync(() => ({
    db,
    dialect,
    runNow,
    readNow,
    beginWithEpoch,
    runOnPool,
    currentTransaction: FiberRef.unsafeMake(Option.none<ActiveTransaction>()),
    configTables: new Set<string>(),
    configCache: new Map(),
    group: dialect === "sqlite" ? { turn: Effect.unsafeMakeSemaphore(1), waiting: 0, open: undefined } : undefined,
  }))

/** The unique-key columns named by a database error, e.g. `["email"]`; None when it is not a unique violation. */
export const uniqueViolationColumns = (error: unknown): Option.Option<ReadonlyArray<string>> => {
  if (typeof error !== "object" || error === null) return Option.none()
  const { code, message, detail, constraint } = error as {
    readonly code?: unknown
    readonly message?: unknown
    readonly detail?: unknown
    readonly constraint?: unknown
  }
  if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    // "UNIQUE constraint failed: users.email" (or "t.a, t.b" for a composite key)
    const list = typeof message === "string" ? /constraint failed: (.*)$/.exec(message)?.[1] : undefined
    return Option.some(list === undefined ? [] : list.split(",").map((c) => c.trim().replace(/^.*\./, "")))
  }
  if (code === "23505") {
    // "Key (email)=(a@b.c) already exists."; the constraint name when the detail is withheld
    const list = typeof detail === "string" ? /^Key \(([^)]*)\)=/.exec(detail)?.[1] : undefined
    if (list !== undefined) return Option.some(list.split(",").map((c) => c.trim().replace(/^"|"$/g, "")))
    return Option.some(typeof constraint === "string" ? [constraint] : [])
  }
  return Option.none()
}

/**
 * Runs `run` on the current transaction's connection, or on the database outside one.
 * Database failures are defects (the caller cannot do anything about them).
 */
export const query =
  (service: SqlDatabaseService) =>
  <A>(run: (db: Kysely<Database>) => Promise<A>): Effect.Effect<A> =>
    Effect.flatMap(FiberRef.get(service.currentTransaction), (tx) =>
      Option.match(tx, {
        onNone: () => Effect.promise(() => run(service.db)),
        onSome: (active) => {
          const statement = poisonOnDefect(
            active,
            Effect.promise(() => run(active.trx)),
          )
          // SQLite: every repository call is one statement, which kysely's one connection runs one at a time anyway.
          return service.dialect === "postgres" ? active.lock.withPermits(1)(statement) : statement
        },
      }),
    )

const poisonOnDefect = <A, E>(active: ActiveTransaction, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.tapDefect(effect, () =>
    Effect.sync(() => {
      active.poisoned = true
    }),
  )

/**
 * Like `query`, for a write that can hit a unique key: the violation becomes
 * `UniqueViolation` with `what` naming the key. On PostgreSQL inside a transaction the
 * write runs under a savepoint, because a failed statement would otherwise abort the whole
 * transaction while SQLite carries on: with the savepoint both behave the same.
 */
export const guardedWrite =
  (service: SqlDatabaseService) =>
  <A>(what: (columns: ReadonlyArray<string>) => string, run: (db: Kysely<Database>) => Promise<A>): Effect.Effect<A, UniqueViolation> => {
    const attempt = (db: Kysely<Database>): Effect.Effect<A, UniqueViolation> =>
      Effect.tryPromise({ try: () => run(db), catch: (e) => e }).pipe(
        Effect.catchAll((e) =>
          Option.match(uniqueViolationColumns(e), {
            onNone: () => Effect.die(e),
            onSome: (columns) => Effect.fail(new UniqueViolation({ what: what(columns) })),
          }),
        ),
      )
    return Effect.flatMap(FiberRef.get(service.currentTransaction), (tx) => {
      if (Option.isNone(tx)) return attempt(service.db)
      const active = tx.value
      const { trx, lock } = active
      if (service.dialect !== "postgres") return poisonOnDefect(active, attempt(trx))
      const savepoint = (statement: ReturnType<typeof sql>) => Effect.promise(() => statement.execute(trx))
      // Counted from before the lock is taken: meanwhile another fiber's statement queues on the lock (see `execute`).
      return Effect.suspend(() => {
        active.guarding++
        return lock.withPermits(1)(
          Effect.gen(function* () {
            yield* savepoint(sql`savepoint signet_guarded_write`)
            const exit = yield* Effect.exit(poisonOnDefect(active, attempt(trx)))
            yield* savepoint(Exit.isSuccess(exit) ? sql`release savepoint signet_guarded_write` : sql`rollback to savepoint signet_guarded_write`)
            return yield* exit
          }),
        )
      }).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            active.guarding--
          }),
        ),
      )
    })
  }

// Stands for parameter `index` (or its column `column`) while a prepared statement's shape is compiled.
class Slot {
  constructor(
    readonly index: number,
    readonly column: string | undefined,
  ) {}
}

const isRow = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === "object" && value !== null && !Array.isArray(value)

// The columns of a row parameter: kysely leaves out a column whose value is undefined, and so does the shape.
const columnsOf = (row: Readonly<Record<string, unknown>>): Array<string> => Object.keys(row).filter((column) => row[column] !== undefined)

/** The shape of a call's parameters: each row's defined columns, in order (`columnsOf`), built without intermediate arrays (it is made on every call). */
const shapeKey = (params: ReadonlyArray<unknown>): string => {
  let key = ""
  for (let i = 0; i < params.length; i++) {
    if (i > 0) key += "|"
    const p = params[i]
    if (!isRow(p)) continue
    let first = true
    for (const column of Object.keys(p)) {
      if (p[column] === undefined) continue
      key += first ? column : `,${column}`
      first = false
    }
  }
  return key
}

/**
 * A statement of fixed shape: kysely builds and compiles it on the first call, later calls only
 * bind their parameters. `build` must use its parameters as values only (never to choose the
 * shape); a parameter kysely would write into the SQL text instead makes kysely throw at once.
 * An object parameter is a row: each of its columns is a parameter, and each set of column names
 * is a shape of its own. Make one per `SqlDatabase` (the SQL text is the dialect's).
 */
export const prepare = <P extends ReadonlyArray<unknown>, O>(build: (db: Kysely<Database>, ...params: P) => Compilable<O>) => {
  const shapes = new Map<string, { readonly query: CompiledQuery<O>; readonly slots: ReadonlyArray<Slot | undefined> }>()
  return (db: Kysely<Database>, ...params: P): CompiledQuery<O> => {
    const key = shapeKey(params)
    let shape = shapes.get(key)
    if (shape === undefined) {
      const stand = params.map((p, index) =>
        isRow(p) ? Object.fromEntries(columnsOf(p).map((column) => [column, new Slot(index, column)])) : new Slot(index, undefined),
      )
      const query = build(db, ...(stand as unknown as P)).compile()
      shape = { query, slots: query.parameters.map((p) => (p instanceof Slot ? p : undefined)) }
      shapes.set(key, shape)
    }
    const { query, slots } = shape
    return {
      ...query,
      parameters: slots.map((slot, i) => {
        if (slot === undefined) return query.parameters[i]
        const value = params[slot.index]
        return slot.column === undefined ? value : (value as Readonly<Record<string, unknown>>)[slot.column]
      }),
    }
  }
}

/**
 * Runs a prepared statement (`prepare`) like `query` runs a built one; answers kysely's result
 * (its rows, and for a write the rows it changed). Inside a SQLite transaction it runs at once on
 * the transaction's connection, without kysely's asynchronous round; outside one, a read runs at
 * once on the read connection (`readNow`) where there is one.
 */
export const execute =
  (service: SqlDatabaseService) =>
  <O>(statement: (db: Kysely<Database>) => CompiledQuery<O>): Effect.Effect<QueryResult<O>> =>
    // One runtime step for a statement run at once (about twenty a signature): the transaction is
    // read off the fiber and the statement's result returned as an Exit, where `FiberRef.get`,
    // `flatMap`, `sync` and `tapDefect` would take five.
    Effect.withFiberRuntime((fiber) => {
      const tx = fiber.getFiberRef(service.currentTransaction)
      const runNow = service.runNow
      if (Option.isSome(tx)) {
        const active = tx.value
        const compiled = statement(active.trx)
        // A prepared statement is compiled once, so the transaction's plugin does not see it run: noted here.
        noteStatement(active.config, compiled.query, service.configTables)
        if (runNow === undefined) {
          const run = active.run
          // While a guarded write holds the lock across its three statements, this one waits for it.
          if (run === undefined || active.guarding > 0) return query(service)((db) => db.executeQuery(compiled))
          return answered(run, compiled, active)
        }
        try {
          return Exit.succeed(runNow(compiled) as QueryResult<O>)
        } catch (defect) {
          // A database error inside a transaction: it can no longer commit (poisonOnDefect).
          active.poisoned = true
          return Exit.die(defect)
        }
      }
      const readNow = service.readNow
      if (readNow !== undefined) {
        const compiled = statement(service.db)
        if (SelectQueryNode.is(compiled.query)) return Effect.sync(() => readNow(compiled) as QueryResult<O>)
        return query(service)((db) => db.executeQuery(compiled))
      }
      const runOnPool = service.runOnPool
      if (runOnPool !== undefined) return answered(runOnPool, statement(service.db), undefined)
      return query(service)((db) => db.executeQuery(statement(db)))
    })

/**
 * Runs a write whose answer the caller does not need (an appended event, a counter, a usage
 * row). Inside a PostgreSQL unit of work it is queued and sent ahead of the unit's next statement,
 * or with its COMMIT, in the same exchange: one round trip fewer each. If it fails, the statement
 * it went with fails and the unit with it (a defect, as for any database error), so nothing it
 * belonged to commits. Elsewhere it runs at once, like `execute`.
 */
export const executeLater = (service: SqlDatabaseService) => {
  const now = execute(service)
  return (statement: (db: Kysely<Database>) => CompiledQuery<unknown>): Effect.Effect<void> =>
    Effect.withFiberRuntime((fiber) => {
      const tx = fiber.getFiberRef(service.currentTransaction)
      if (Option.isSome(tx)) {
        const active = tx.value
        // While a guarded write holds the lock across its statements, this one runs in turn, not with them.
        if (active.later !== undefined && active.guarding === 0) {
          const compiled = statement(active.trx)
          noteStatement(active.config, compiled.query, service.configTables)
          active.later(compiled)
          return Exit.void
        }
      }
      return Effect.asVoid(now(statement))
    })
}

/** A statement's answer in one runtime step; a database error is a defect and, inside a transaction, poisons it (see `poisonOnDefect`). */
const answered = <O>(run: StatementRunner, compiled: CompiledQuery<O>, active: ActiveTransaction | undefined): Effect.Effect<QueryResult<O>> =>
  Effect.async<QueryResult<O>>((resume) => {
    run(compiled, (defect, result) => {
      if (result !== undefined) return resume(Exit.succeed(result as QueryResult<O>))
      if (active !== undefined) active.poisoned = true
      resume(Exit.die(defect))
    })
  })

/**
 * Runs `effect` in one transaction (on PostgreSQL the dialect's own, `beginWithEpoch`; otherwise
 * kysely's controlled transaction): commit on success, rollback on failure, defect or
 * interruption. A nested call joins the outer transaction.
 * On SQLite the transaction may be shared with other units of work (group commit, above).
 */
export const transaction =
  (service: SqlDatabaseService) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(FiberRef.get(service.currentTransaction), (current) =>
      Option.isSome(current)
        ? effect
        : measured(
            service.dialect,
            service.group !== undefined
              ? grouped(service, service.group, effect)
              : Effect.acquireUseRelease(
                  Effect.sync(freshConfigView).pipe(
                    Effect.flatMap((config) =>
                      Effect.promise(() => (service.beginWithEpoch !== undefined ? service.beginWithEpoch(config) : beginControlled(service.db))).pipe(
                        Effect.map((begun) => ({ config, begun })),
                      ),
                    ),
                    Effect.map(({ config, begun: { trx, run, later, flush, end } }) => {
                      const tx: ActiveTransaction = {
                        trx: trx.withPlugin(new ConfigWriteWatch(config, service.configTables)),
                        lock: Effect.unsafeMakeSemaphore(1),
                        poisoned: false,
                        config,
                        run,
                        later,
                        flush,
                        guarding: 0,
                      }
                      return { tx, end }
                    }),
                  ),
                  ({ tx }) => Effect.locally(effect, service.currentTransaction, Option.some(tx)),
                  ({ tx, end }, exit) =>
                    Exit.isSuccess(exit)
                      ? Effect.suspend(() =>
                          tx.poisoned
                            ? Effect.die(new Error("transaction not committed: a statement in it failed with a database error"))
                            : Effect.promise(() => end(true)).pipe(Effect.zipRight(Metric.increment(postgresCommits))),
                        ).pipe(
                          // A statement failed: roll back (a failed COMMIT has ended the transaction already), then report it.
                          Effect.catchAllDefect((defect) =>
                            (tx.poisoned ? Effect.promise(() => end(false)) : Effect.void).pipe(
                              Effect.catchAllDefect(() => Effect.void),
                              Effect.zipRight(Effect.die(defect)),
                            ),
                          ),
                        )
                      : Effect.promise(() => end(false)),
                ),
          ),
    )

/** A kysely controlled transaction as a `BegunTransaction` (dialects that begin none of their own). */
const beginControlled = async (db: Kysely<Database>): Promise<BegunTransaction> => {
  const trx = await db.startTransaction().execute()
  return {
    trx,
    run: undefined,
    end: async (commit) => {
      if (!commit) return void (await trx.rollback().execute())
      try {
        await trx.commit().execute()
      } catch (error) {
        // A failed COMMIT leaves kysely's connection checked out: roll back to give it back.
        await trx
          .rollback()
          .execute()
          .catch(() => undefined)
        throw error
      }
    },
  }
}

// Tagged once: a metric tagged afresh per transaction has a new key, built and hashed on each update.
const transactionSeconds = {
  sqlite: {
    commit: withTags(dbTransactionSeconds, { dialect: "sqlite", outcome: "commit" }),
    rollback: withTags(dbTransactionSeconds, { dialect: "sqlite", outcome: "rollback" }),
  },
  postgres: {
    commit: withTags(dbTransactionSeconds, { dialect: "postgres", outcome: "commit" }),
    rollback: withTags(dbTransactionSeconds, { dialect: "postgres", outcome: "rollback" }),
  },
} satisfies Record<SqlDialect, unknown>

/** A transaction as a span (`storage.transaction`) and a time in `signet_db_transaction_duration_seconds`. */
const measured = <A, E, R>(dialect: SqlDialect, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const started = performance.now()
    return effect.pipe(
      Effect.onExit((exit) => Metric.update(transactionSeconds[dialect][Exit.isSuccess(exit) ? "commit" : "rollback"], (performance.now() - started) / 1000)),
      // No stack trace per span: it would point here, at the unit of work, on every transaction.
      traced("storage.transaction", { attributes: { "db.system": dialect === "postgres" ? "postgresql" : "sqlite" } }),
    )
  })

/**
 * The savepoint statements of a unit in the commit group: fixed text without parameters, the same
 * on both dialects, so compiled once here (kysely compiled them twice for every unit of work).
 */
const UNIT_SAVEPOINT = CompiledQuery.raw("savepoint signet_unit")
const UNIT_ROLLBACK = CompiledQuery.raw("rollback to savepoint signet_unit")
const UNIT_RELEASE = CompiledQuery.raw("release savepoint signet_unit")

/**
 * A savepoint statement of the commit group, and how it ended. On SQLite, whose group transaction
 * holds the one connection, it runs at once, when this is called, and its Exit is yielded without
 * a step of the runtime (two per statement otherwise, four around it for its Exit): call it only
 * where it is yielded.
 */
const statementExit = (
  service: SqlDatabaseService,
  trx: ControlledTransaction<Database>,
  statement: CompiledQuery<unknown>,
): Effect.Effect<Exit.Exit<unknown>> => {
  const runNow = service.runNow
  if (runNow === undefined) return Effect.exit(Effect.promise(() => trx.executeQuery(statement)))
  try {
    runNow(statement)
    return Exit.succeed(Exit.void)
  } catch (defect) {
    return Exit.succeed(Exit.die(defect))
  }
}

const sqliteCommits = withTags(dbCommits, { dialect: "sqlite" })
const postgresCommits = withTags(dbCommits, { dialect: "postgres" })

/** Ends the open group: COMMIT (or ROLLBACK when broken), then tells its units. Called holding the turn. */
const endGroup = (group: CommitGroup, open: OpenGroup): Effect.Effect<void> =>
  Effect.gen(function* () {
    group.open = undefined
    const outcome = yield* Effect.exit(
      open.broken
        ? Effect.promise(() => open.trx.rollback().execute()).pipe(
            Effect.zipRight(Effect.die(new Error("transaction not committed: a unit of work in its group could not be undone"))),
          )
        : Effect.promise(() => open.trx.commit().execute()).pipe(Effect.zipRight(Metric.increment(sqliteCommits))),
    )
    if (Exit.isFailure(outcome)) {
      // A failed COMMIT leaves kysely's connection checked out: roll back to return it.
      yield* Effect.promise(() => open.trx.rollback().execute()).pipe(Effect.catchAllDefect(() => Effect.void))
    }
    yield* Deferred.done(open.done, outcome)
  })

/** Resumes once the event loop has handled the I/O that is ready now (Node's check phase). */
const afterThisTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** Commits `open` after this turn of the event loop, unless a unit still runs in it or it has ended. */
const closeAfterThisTurn = (group: CommitGroup, open: OpenGroup): Effect.Effect<void> =>
  Effect.gen(function* () {
    yield* afterThisTurn
    yield* group.turn.take(1)
    // A unit that joined meanwhile has scheduled its own close; whichever takes the turn first commits.
    if (group.open === open) yield* endGroup(group, open).pipe(Effect.ensuring(group.turn.release(1)))
    else yield* group.turn.release(1)
  }).pipe(Effect.uninterruptible)

/**
 * One unit of work in the SQLite commit group: it waits for its turn, runs under a savepoint in
 * the group's transaction (opening one when none is open), is undone to its savepoint when it
 * fails, and then either hands the open transaction to the next waiting unit or commits it.
 * Either way it returns only once the group's COMMIT is done (a failed COMMIT fails every unit).
 */
const grouped = <A, E, R>(service: SqlDatabaseService, group: CommitGroup, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    // Uninterruptible (acquire): a unit counted as waiting always takes its turn, so a group left open always has a successor.
    Effect.gen(function* () {
      group.waiting++
      yield* group.turn.take(1)
      group.waiting--
      const open =
        group.open ??
        (yield* Effect.promise(() => service.db.startTransaction().execute()).pipe(
          Effect.zip(Deferred.make<void>()),
          Effect.map(([trx, done]): OpenGroup => {
            const config = freshConfigView()
            return { trx: trx.withPlugin(new ConfigWriteWatch(config, service.configTables)), units: 0, broken: false, done, config }
          }),
          Effect.tapDefect(() => group.turn.release(1)),
        ))
      group.open = open
      open.units++
      const started = yield* statementExit(service, open.trx, UNIT_SAVEPOINT)
      if (Exit.isFailure(started)) open.broken = true
      return {
        open,
        tx: {
          trx: open.trx,
          lock: Effect.unsafeMakeSemaphore(1),
          poisoned: Exit.isFailure(started),
          config: open.config,
          run: undefined,
          later: undefined,
          flush: undefined,
          guarding: 0,
        } satisfies ActiveTransaction,
      }
    }),
    // The unit's transaction is the fiber's while it runs, and none again in `release` (a unit runs
    // only outside a transaction: see `transaction`). What `Effect.locally` does, without the second
    // acquire-use-release (about fifteen runtime steps) inside this one.
    ({ tx }) =>
      tx.poisoned
        ? Effect.die(new Error("transaction not started: its savepoint failed"))
        : Effect.zipRight(FiberRef.set(service.currentTransaction, Option.some(tx)), effect),
    ({ open, tx }, exit) =>
      Effect.gen(function* () {
        yield* FiberRef.set(service.currentTransaction, Option.none())
        const kept = Exit.isSuccess(exit) && !tx.poisoned
        if (!open.broken) {
          // Undone to its savepoint when it failed; if even that fails, SQLite may have dropped the whole transaction.
          let ended = kept ? undefined : yield* statementExit(service, open.trx, UNIT_ROLLBACK)
          if (ended === undefined || Exit.isSuccess(ended)) ended = yield* statementExit(service, open.trx, UNIT_RELEASE)
          if (Exit.isFailure(ended)) open.broken = true
        }
        if (open.units >= GROUP_COMMIT_LIMIT || open.broken) yield* endGroup(group, open).pipe(Effect.ensuring(group.turn.release(1)))
        else {
          // The next unit, if one waits, runs in the open transaction. If none waits yet, the COMMIT
          // waits for the requests that are ready now (the rest of this turn of the event loop) to
          // bring their units: units that arrive together share one durable commit.
          yield* group.turn.release(1)
          if (group.waiting === 0) yield* Effect.forkDaemon(closeAfterThisTurn(group, open))
        }
        const committed = yield* Effect.exit(Deferred.await(open.done))
        // What a unit saw of the units before it in the group is gone too: every unit fails.
        if (Exit.isFailure(committed)) return yield* Effect.die(new Error("transaction not committed: its group's COMMIT failed"))
        if (Exit.isSuccess(exit) && !kept) {
          return yield* Effect.die(new Error("transaction not committed: a statement in it failed with a database error"))
        }
      }),
  )

/** `Storage` (the unit of work) over the SQL database. */
export const StorageSql: Layer.Layer<Storage, never, SqlDatabase> = Layer.effect(
  Storage,
  Effect.map(SqlDatabase, (service) => Storage.of({ transaction: transaction(service), readsTogether: service.beginWithEpoch !== undefined })),
)

// The statement's text and its parameters (strings and numbers in the cached reads; anything else as JSON).
const cacheKey = (compiled: CompiledQuery<unknown>): string => {
  let key = compiled.sql
  for (const p of compiled.parameters)
    key += typeof p === "string" || typeof p === "number" ? `\u0000${typeof p === "string" ? "s" : "n"}${p}` : `\u0000j${JSON.stringify(p)}`
  return key
}

/** Most cached results kept per database (a few per RP: its record, plan and webhooks; the CAs). */
const CONFIG_CACHE_LIMIT = 4096

/**
 * A read of `table`, which changes rarely and whose writes bump the configuration epoch (a trigger
 * of its module's migration): inside a unit of work it is answered from the cache when the result
 * was read under the epoch the unit sees; outside one it is an ordinary read. Registers `table`, so
 * that a transaction writing to it stops using the cache. See config-epoch.ts.
 */
export const cachedRead = (service: SqlDatabaseService, table: string) => {
  service.configTables.add(table)
  const run = execute(service)
  const readIt = (active: ActiveTransaction): Effect.Effect<string> =>
    active.config.epoch !== undefined
      ? Effect.succeed(active.config.epoch)
      : Effect.map(
          run((db) => readEpoch.compile(db)),
          (r) => {
            const row = r.rows[0]
            if (row === undefined) throw new Error("config_epoch has no row: the database was not migrated by this engine")
            const epoch = String(row.epoch)
            active.config.epoch = epoch
            return epoch
          },
        )
  // On PostgreSQL the epoch is read with the BEGIN, which waits for the unit's first statement: sent now when none came yet.
  const epochOf = (active: ActiveTransaction): Effect.Effect<string> => {
    const flush = active.flush
    if (active.config.epoch !== undefined || flush === undefined) return readIt(active)
    return Effect.zipRight(
      poisonOnDefect(
        active,
        Effect.promise(() => flush()),
      ),
      Effect.suspend(() => readIt(active)),
    )
  }
  const readAt = <O>(active: ActiveTransaction, statement: (db: Kysely<Database>) => CompiledQuery<O>, epoch: string): Effect.Effect<QueryResult<O>> => {
    const compiled = statement(active.trx)
    const key = cacheKey(compiled)
    const hit = service.configCache.get(key)
    if (hit !== undefined && hit.epoch === epoch) return Exit.succeed(hit.result as QueryResult<O>)
    return Effect.tap(
      run(() => compiled),
      (result) => {
        // Filled only by a transaction that has not written to a cached table: what it read is committed state.
        if (active.config.written || active.config.epoch !== epoch) return
        setBounded(service.configCache, key, { epoch, result }, CONFIG_CACHE_LIMIT)
      },
    )
  }
  return <O>(statement: (db: Kysely<Database>) => CompiledQuery<O>): Effect.Effect<QueryResult<O>> =>
    Effect.withFiberRuntime((fiber) => {
      const tx = fiber.getFiberRef(service.currentTransaction)
      if (Option.isNone(tx) || tx.value.config.written) return run(statement)
      const active = tx.value
      // The epoch is read once per transaction; after that a hit is answered in this one step.
      const known = active.config.epoch
      return known !== undefined ? readAt(active, statement, known) : Effect.flatMap(epochOf(active), (epoch) => readAt(active, statement, epoch))
    })
}
