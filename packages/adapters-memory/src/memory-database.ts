/**
 * The in-memory database the repositories run on, and the unit of work over it.
 *
 * Tables are `Map`s of immutable records (copied in and out, as a database would). Every
 * statement runs synchronously, so it is atomic by construction. One lock serialises
 * transactions with each other and with statements outside a transaction: a transaction
 * sees nobody else's writes and nobody sees its writes before it ends, as with SQLite's
 * single writer. Each write records how to undo it; a rollback replays the undo log backwards.
 * The current transaction lives in a FiberRef, which forked fibers inherit.
 */
import { Effect, Exit, FiberRef, Option } from "effect"
import { UniqueViolation } from "@signet/core"

/** The undo log of a transaction (or of one statement), newest last. */
export interface Journal {
  readonly undo: Array<() => void>
}

/** A transaction in progress. */
interface ActiveTransaction extends Journal {
  /** Set when a statement in it died and the caller caught it: the commit then refuses (all or nothing). */
  poisoned: boolean
}

/** A table: records by primary key. Writes go through a journal so they can be undone. */
export class Table<K, V> {
  private readonly rows = new Map<K, V>()

  get(key: K): V | undefined {
    const row = this.rows.get(key)
    return row === undefined ? undefined : copy(row)
  }

  has(key: K): boolean {
    return this.rows.has(key)
  }

  /** Every record, in insertion order (copies). */
  all(): Array<V> {
    return Array.from(this.rows.values(), copy)
  }

  /** The records that satisfy `predicate` (copies), in insertion order. */
  where(predicate: (row: V) => boolean): Array<V> {
    const found: Array<V> = []
    for (const row of this.rows.values()) if (predicate(row)) found.push(copy(row))
    return found
  }

  /** The first record that satisfies `predicate` (a copy). */
  find(predicate: (row: V) => boolean): V | undefined {
    for (const row of this.rows.values()) if (predicate(row)) return copy(row)
    return undefined
  }

  set(journal: Journal, key: K, row: V): void {
    const had = this.rows.has(key)
    const before = this.rows.get(key)
    // Replacing keeps the key's insertion position, as a database keeps a row's identity.
    this.rows.set(key, copy(row))
    journal.undo.push(
      had
        ? () => {
            this.rows.set(key, before as V)
          }
        : () => {
            this.rows.delete(key)
          },
    )
  }

  delete(journal: Journal, key: K): boolean {
    if (!this.rows.has(key)) return false
    const before = this.rows.get(key) as V
    const entries = Array.from(this.rows.entries())
    this.rows.delete(key)
    // Undoing a delete restores the row at its old position (listing order falls back on it).
    journal.undo.push(() => {
      this.rows.clear()
      for (const [k, v] of entries) this.rows.set(k, k === key ? before : v)
    })
    return true
  }
}

/** A counter (an auto-increment sequence); like PostgreSQL's identities it is not given back on rollback. */
export class Sequence {
  private last = 0
  next(): number {
    return ++this.last
  }
}

const copy = <V>(row: V): V => structuredClone(row)

/** The lock and the transaction FiberRef of one in-memory database. */
export interface MemoryDatabase {
  /** Runs a read or write statement: atomic, inside the current transaction or alone. A throw is a defect. */
  readonly run: <A>(statement: (journal: Journal) => A) => Effect.Effect<A>
  /** Like `run` for a write that can hit a unique key: `unique(what)` inside fails with `UniqueViolation` and undoes the statement. */
  readonly write: <A>(statement: (journal: Journal) => A) => Effect.Effect<A, UniqueViolation>
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** Thrown by a statement to report a taken unique key (never escapes `write`). */
class UniqueKeyTaken {
  constructor(readonly what: string) {}
}

/** Aborts the current statement with a `UniqueViolation` naming `what`. */
export const unique = (what: string): never => {
  throw new UniqueKeyTaken(what)
}

const rollback = (journal: Journal): void => {
  for (let i = journal.undo.length - 1; i >= 0; i--) journal.undo[i]?.()
  journal.undo.length = 0
}

/** A new, empty database. */
export const makeMemoryDatabase = (): Effect.Effect<MemoryDatabase> =>
  Effect.sync(() => {
    const lock = Effect.unsafeMakeSemaphore(1)
    const current = FiberRef.unsafeMake(Option.none<ActiveTransaction>())

    // One statement: its own undo log, merged into the transaction's on success, replayed on failure.
    const statement = <A>(outer: Journal, body: (journal: Journal) => A): Exit.Exit<A, UniqueViolation> => {
      const own: Journal = { undo: [] }
      try {
        const value = body(own)
        outer.undo.push(...own.undo)
        return Exit.succeed(value)
      } catch (error) {
        rollback(own)
        return error instanceof UniqueKeyTaken ? Exit.fail(new UniqueViolation({ what: error.what })) : Exit.die(error)
      }
    }

    const execute = <A>(body: (journal: Journal) => A): Effect.Effect<A, UniqueViolation> =>
      Effect.flatMap(FiberRef.get(current), (tx) =>
        Option.match(tx, {
          // Alone: the statement is its own transaction, and waits for a running transaction to end.
          onNone: () => lock.withPermits(1)(Effect.suspend(() => statement({ undo: [] }, body))),
          onSome: (active) =>
            Effect.suspend(() => statement(active, body)).pipe(
              Effect.tapDefect(() =>
                Effect.sync(() => {
                  active.poisoned = true
                }),
              ),
            ),
        }),
      )

    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(FiberRef.get(current), (tx) =>
        Option.isSome(tx)
          ? effect
          : lock.withPermits(1)(
              Effect.acquireUseRelease(
                Effect.sync((): ActiveTransaction => ({ undo: [], poisoned: false })),
                (active) =>
                  Effect.locally(effect, current, Option.some(active)).pipe(
                    Effect.tap(() =>
                      active.poisoned ? Effect.die(new Error("transaction not committed: a statement in it failed with a database error")) : Effect.void,
                    ),
                  ),
                (active, exit) =>
                  Effect.sync(() => {
                    if (Exit.isFailure(exit)) rollback(active)
                  }),
              ),
            ),
      )

    return {
      run: (body) => execute(body).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.die(e))),
      write: execute,
      transaction,
    }
  })
