/**
 * The configuration epoch: rows that change rarely (an RP's record, its plan, the current CAs,
 * its webhook subscriptions) are read on every signature, so a unit of work may take them from a
 * cache instead, and stays exactly as correct across nodes and processes as a read would be.
 *
 * - One row, `config_epoch`, counts changes. A trigger on each cached table bumps it in the
 *   same transaction as any write to the table, whoever makes it: this engine, another node,
 *   an operator's SQL. A change and its bump commit together or not at all.
 * - A unit of work reads the epoch once (on PostgreSQL in the exchange of its BEGIN, see
 *   `beginWithEpoch`; on SQLite at its first cached read) and takes a cached result only when it
 *   was read under that same epoch. A result read under epoch E reflects every
 *   change up to E; a unit that sees E saw nothing newer in those tables when it read it.
 * - A unit of work that writes to a cached table itself (seen from the statements it runs)
 *   reads those tables from the database for the rest of its transaction and fills nothing:
 *   what it sees may never commit.
 */
import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from "kysely"
import { sql } from "kysely"
import type { AnyDb, SqlDialect } from "./migration.ts"

/** What one database transaction knows of the configuration epoch (shared by a SQLite commit group's units). */
export interface ConfigView {
  /** the epoch read in this transaction; undefined until a cached read needs it */
  epoch: string | undefined
  /** set once the transaction wrote to a cached table: the cache is bypassed until it ends */
  written: boolean
}

/** A fresh view for a transaction that has read nothing yet. */
export const freshConfigView = (): ConfigView => ({ epoch: undefined, written: false })

/** The statement that reads the epoch. */
export const readEpoch = sql<{ readonly epoch: string | number | bigint }>`select epoch from config_epoch where id = 1`

const WRITES = new Set(["InsertQueryNode", "UpdateQueryNode", "DeleteQueryNode", "MergeQueryNode"])

const namesTable = (node: unknown, tables: ReadonlySet<string>): boolean => {
  if (typeof node !== "object" || node === null) return false
  const n = node as { readonly kind?: unknown; readonly table?: unknown; readonly identifier?: { readonly name?: unknown } }
  if (n.kind === "SchemableIdentifierNode" && typeof n.identifier?.name === "string") return tables.has(n.identifier.name)
  for (const value of Object.values(node)) {
    if (Array.isArray(value) ? value.some((v) => namesTable(v, tables)) : namesTable(value, tables)) return true
  }
  return false
}

const mentions = (text: string, tables: ReadonlySet<string>): boolean => {
  const lower = text.toLowerCase()
  for (const table of tables) if (lower.includes(table)) return true
  return false
}

/**
 * Whether a statement may write to one of `tables`: an insert, update, delete or merge that names
 * one (in any clause), a select whose WITH holds such a write, or raw SQL that mentions one and is
 * not a plain read. Errs on the side of yes: a wrong yes only costs a read.
 */
const maybeWrites = (node: OperationNode, tables: ReadonlySet<string>): boolean => {
  if (WRITES.has(node.kind)) return namesTable(node, tables)
  if (node.kind === "RawNode") {
    const text = (node as unknown as { readonly sqlFragments: ReadonlyArray<string> }).sqlFragments.join(" ")
    return !/^\s*select\b/i.test(text) && mentions(text, tables)
  }
  if (node.kind === "SelectQueryNode") return (node as unknown as { readonly with?: unknown }).with !== undefined && namesTable(node, tables)
  return false
}

/** The answers for a set of cached tables, by node: a prepared statement's node is the same object at every call. */
const verdictsFor = new WeakMap<ReadonlySet<string>, WeakMap<OperationNode, boolean>>()

/** Marks `view` written when `node` may write to one of `tables`. */
export const noteStatement = (view: ConfigView, node: OperationNode, tables: ReadonlySet<string>): void => {
  if (view.written || tables.size === 0) return
  // The common case, a plain select, is answered without the memo (a built statement is a new node each time).
  if (node.kind === "SelectQueryNode" && (node as unknown as { readonly with?: unknown }).with === undefined) return
  let verdicts = verdictsFor.get(tables)
  if (verdicts === undefined) {
    verdicts = new WeakMap()
    verdictsFor.set(tables, verdicts)
  }
  let verdict = verdicts.get(node)
  if (verdict === undefined) {
    verdict = maybeWrites(node, tables)
    verdicts.set(node, verdict)
  }
  if (verdict) view.written = true
}

/** Sees every statement built on a transaction's kysely handle and marks its view when one writes to a cached table. */
export class ConfigWriteWatch implements KyselyPlugin {
  readonly #view: ConfigView
  readonly #tables: ReadonlySet<string>
  constructor(view: ConfigView, tables: ReadonlySet<string>) {
    this.#view = view
    this.#tables = tables
  }
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    noteStatement(this.#view, args.node, this.#tables)
    return args.node
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result)
  }
}

/** Migration step (kernel): the epoch row, and on PostgreSQL the trigger function that bumps it. */
export const createConfigEpoch = async (db: AnyDb, dialect: SqlDialect): Promise<void> => {
  await db.schema
    .createTable("config_epoch")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("epoch", dialect === "postgres" ? "bigint" : "integer", (c) => c.notNull())
    .execute()
  await sql`insert into config_epoch (id, epoch) values (1, 0)`.execute(db)
  if (dialect === "postgres") {
    // The search path is fixed at creation: a write from a session with another path still bumps this schema's row.
    await sql`create function signet_bump_config_epoch() returns trigger language plpgsql set search_path from current as $$
      begin
        update config_epoch set epoch = epoch + 1 where id = 1;
        return null;
      end
    $$`.execute(db)
  }
}

/**
 * Migration step (the module that owns `table`): every write to `table` bumps the epoch in its own
 * transaction. `onlyWhen` limits it to rows the cached reads can return (a SQL condition on the row,
 * the same for the row before and after a change, e.g. `kind in ('root', 'issuing')`).
 */
export const bumpConfigEpochOn = async (db: AnyDb, dialect: SqlDialect, table: string, onlyWhen?: string): Promise<void> => {
  const name = (suffix: string) => sql.id(`${table}_config_epoch_${suffix}`)
  const on = sql.table(table)
  const condition = (row: "new" | "old") => (onlyWhen === undefined ? sql`` : sql`when (${sql.raw(qualify(onlyWhen, row))})`)
  if (dialect === "postgres") {
    if (onlyWhen === undefined) {
      await sql`create trigger ${name("change")} after insert or update or delete or truncate on ${on}
        for each statement execute function signet_bump_config_epoch()`.execute(db)
      return
    }
    await sql`create trigger ${name("write")} after insert or update on ${on}
      for each row ${condition("new")} execute function signet_bump_config_epoch()`.execute(db)
    // An update that moves a row out of the condition changes what the cached read returns too.
    await sql`create trigger ${name("update_old")} after update on ${on}
      for each row ${condition("old")} execute function signet_bump_config_epoch()`.execute(db)
    await sql`create trigger ${name("delete")} after delete on ${on}
      for each row ${condition("old")} execute function signet_bump_config_epoch()`.execute(db)
    await sql`create trigger ${name("truncate")} after truncate on ${on}
      for each statement execute function signet_bump_config_epoch()`.execute(db)
    return
  }
  for (const [event, row] of [
    ["insert", "new"],
    ["update", "new"],
    ["delete", "old"],
  ] as const) {
    await sql`create trigger ${name(event)} after ${sql.raw(event)} on ${on} ${condition(row)}
      begin update config_epoch set epoch = epoch + 1 where id = 1; end`.execute(db)
  }
  if (onlyWhen !== undefined) {
    // An update that moves a row out of the condition changes what the cached read returns too.
    await sql`create trigger ${name("update_old")} after update on ${on} ${condition("old")}
      begin update config_epoch set epoch = epoch + 1 where id = 1; end`.execute(db)
  }
}

// `kind in (...)` → `new.kind in (...)`: the condition's leading column names the row's.
const qualify = (condition: string, row: "new" | "old"): string => `${row}.${condition.trim()}`
