/**
 * A named statement run the short way: once its connection has parsed it and learnt the columns it
 * answers, each run is Bind, Execute and Sync, and its rows are read with the column parsers learnt
 * then. `pg`'s own query also asks for the columns at every run (Describe) and builds their parsers
 * again for each answer; about twenty statements make a signature.
 */
import { createRequire } from "node:module"
import type pg from "pg"

const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as { readonly prepareValue: (value: unknown) => unknown }

/** The columns a named statement answers on one connection, with their parsers. */
interface Columns {
  readonly names: ReadonlyArray<string>
  readonly parsers: ReadonlyArray<(text: string) => unknown>
}

const NO_COLUMNS: Columns = { names: [], parsers: [] }

/** What each connection has learnt of each named statement's columns (by statement name). */
const columnsOf = new WeakMap<object, Map<string, Columns>>()

/** `INSERT 0 1`, `UPDATE 3`, `SELECT 2`: the command and how many rows it touched. */
const COMMAND = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/

/** The parts of `pg`'s connection a run writes to (pg's own `Query` uses the same). */
interface Connection {
  readonly stream: { cork?: () => void; uncork?: () => void }
  readonly parsedStatements: Record<string, string>
  readonly submittedNamedStatements: Record<string, string>
  parse(query: { readonly text: string; readonly name: string; readonly types: ReadonlyArray<number> }): void
  bind(config: {
    readonly portal: string
    readonly statement: string
    readonly values: ReadonlyArray<unknown>
    readonly valueMapper: (value: unknown) => unknown
  }): void
  describe(message: { readonly type: "P"; readonly name: string }): void
  execute(config: { readonly portal: string }): void
  sync(): void
  close(message: { readonly type: "S"; readonly name: string }): void
  sendCopyFail(message: string): void
}

/** The messages of the answer, as `pg` hands them to the query it runs. */
interface Field {
  readonly name: string
  readonly dataTypeID: number
  readonly format: string
}

/**
 * One run of named statement `name` (`text`) with `values` on `client`: a `pg` submittable, for
 * `client.query(run)`. `done` gets the error, or the rows and the command's counts as `pg` reports them.
 */
export class PreparedRun {
  readonly text: string
  readonly name: string
  readonly #values: ReadonlyArray<unknown>
  readonly #client: pg.ClientBase
  readonly #done: (error: Error | undefined, result: pg.QueryResult | undefined) => void
  #columns: Columns | undefined
  /** whether this run asked for the columns (Describe): what it learns is kept for the next runs */
  #describing = false
  readonly #rows: Array<Record<string, unknown>> = []
  #command = ""
  #rowCount: number | null = null
  #failed: Error | undefined
  /** `pg` sets a callback on a submittable it was handed one with; this one reports through `done` */
  callback: unknown

  constructor(
    client: pg.ClientBase,
    name: string,
    text: string,
    values: ReadonlyArray<unknown>,
    done: (error: Error | undefined, result: pg.QueryResult | undefined) => void,
  ) {
    this.#client = client
    this.name = name
    this.text = text
    this.#values = values
    this.#done = done
  }

  submit(connection: Connection): Error | null {
    const previous = connection.parsedStatements[this.name] ?? connection.submittedNamedStatements[this.name]
    if (previous !== undefined && previous !== this.text) return new Error(`statement name ${this.name} names another statement on this connection`)
    let known = columnsOf.get(connection)
    if (known === undefined) {
      known = new Map()
      columnsOf.set(connection, known)
    }
    // Parsed before, and its columns learnt on this connection: neither is asked again.
    this.#columns = previous === undefined ? undefined : known.get(this.name)
    connection.stream.cork?.()
    try {
      if (previous === undefined) {
        connection.parse({ text: this.text, name: this.name, types: [] })
        connection.submittedNamedStatements[this.name] = this.text
      }
      try {
        connection.bind({ portal: "", statement: this.name, values: this.#values, valueMapper: prepareValue })
      } catch (error) {
        // A value pg cannot send: close what was parsed, end the exchange, report it.
        connection.close({ type: "S", name: this.name })
        connection.sync()
        this.#failed = error instanceof Error ? error : new Error(String(error))
        return null
      }
      if (this.#columns === undefined) {
        this.#describing = true
        connection.describe({ type: "P", name: "" })
      }
      connection.execute({ portal: "" })
      connection.sync()
    } finally {
      connection.stream.uncork?.()
    }
    return null
  }

  handleRowDescription(message: { readonly fields: ReadonlyArray<Field> }): void {
    this.#columns = {
      names: message.fields.map((f) => f.name),
      parsers: message.fields.map((f) => this.#client.getTypeParser(f.dataTypeID, f.format === "binary" ? "binary" : "text") as (text: string) => unknown),
    }
  }

  handleDataRow(message: { readonly fields: ReadonlyArray<string | null> }): void {
    const columns = this.#columns
    if (columns === undefined) {
      this.#failed ??= new Error(`rows of statement ${this.name} came before its columns were known`)
      return
    }
    const row: Record<string, unknown> = {}
    const { names, parsers } = columns
    for (let i = 0; i < names.length; i++) {
      const text = message.fields[i]
      row[names[i]!] = text === null || text === undefined ? null : parsers[i]!(text)
    }
    this.#rows.push(row)
  }

  handleCommandComplete(message: { readonly text: string }): void {
    const match = COMMAND.exec(message.text)
    if (match !== null) {
      this.#command = match[1]!
      this.#rowCount = match[3] !== undefined ? Number(match[3]) : match[2] !== undefined ? Number(match[2]) : null
    }
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail("No source stream defined")
  }

  handleCopyData(): void {}

  handleError(error: Error): void {
    // The statement's columns may be what changed ("cached plan must not change result type"): learn them again.
    this.#forget()
    this.#done(error, undefined)
  }

  handleReadyForQuery(connection: Connection): void {
    if (this.#failed !== undefined) {
      this.handleError(this.#failed)
      return
    }
    // A statement that answers no rows (no RowDescription came) has no columns: learnt too.
    if (this.#describing) columnsOf.get(connection)?.set(this.name, this.#columns ?? NO_COLUMNS)
    this.#done(undefined, { command: this.#command, rowCount: this.#rowCount, rows: this.#rows, oid: 0, fields: [] } as unknown as pg.QueryResult)
  }

  #forget(): void {
    const connection = (this.#client as unknown as { readonly connection?: object }).connection
    if (connection !== undefined) columnsOf.get(connection)?.delete(this.name)
  }
}
