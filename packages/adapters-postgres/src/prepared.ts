/**
 * Statements run the short way, several in one exchange. A named statement is parsed once per
 * connection, and once its columns are known each run is Bind and Execute, its rows read with the
 * column parsers learnt then (`pg`'s own query asks for the columns, Describe, and builds their
 * parsers at every run). The statements of one run, and optionally the transaction's COMMIT after
 * them, are written to the socket at once and end with one Sync: one round trip for all of them,
 * where each is a write and a wake-up of the other side (about 0.1 ms of the engine's thread a
 * statement on a loopback connection).
 */
import { createRequire } from "node:module"
import type pg from "pg"

const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as { readonly prepareValue: (value: unknown) => unknown }

/** One statement of a run: named (parsed once per connection) or unnamed (parsed at each run). */
export interface RunStatement {
  readonly name: string | undefined
  readonly text: string
  readonly values: ReadonlyArray<unknown>
}

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

/** One statement's part of a run as it goes. */
interface Step {
  readonly statement: RunStatement
  columns: Columns | undefined
  /** this run asked for its columns (Describe): a named statement keeps what it learns */
  describing: boolean
  /** this run parsed the named statement: it counts as parsed once the statement completed */
  parsing: boolean
  readonly rows: Array<Record<string, unknown>>
  command: string
  rowCount: number | null
}

const COMMIT: RunStatement = { name: undefined, text: "commit", values: [] }

/**
 * `statements` run on `client` in one exchange, then `commit` (the COMMIT of the transaction they
 * run in) when set: a `pg` submittable, for `client.query(run)`. `done` gets the first error (the
 * statements after it did not run), or each statement's rows and command counts as `pg` reports
 * them, the COMMIT's last.
 */
export class StatementsRun {
  readonly #client: pg.ClientBase
  readonly #steps: ReadonlyArray<Step>
  readonly #done: (error: Error | undefined, results: ReadonlyArray<pg.QueryResult> | undefined) => void
  /** the step whose answer comes now */
  #at = 0
  #failed: Error | undefined
  /** `pg` sets a callback on a submittable it was handed one with; this one reports through `done` */
  callback: unknown

  constructor(
    client: pg.ClientBase,
    statements: ReadonlyArray<RunStatement>,
    commit: boolean,
    done: (error: Error | undefined, results: ReadonlyArray<pg.QueryResult> | undefined) => void,
  ) {
    this.#client = client
    const all = commit ? [...statements, COMMIT] : statements
    this.#steps = all.map((statement) => ({ statement, columns: undefined, describing: false, parsing: false, rows: [], command: "", rowCount: null }))
    this.#done = done
  }

  submit(connection: Connection): Error | null {
    for (const { statement } of this.#steps) {
      if (statement.name === undefined) continue
      const previous = connection.parsedStatements[statement.name] ?? connection.submittedNamedStatements[statement.name]
      if (previous !== undefined && previous !== statement.text) return new Error(`statement name ${statement.name} names another statement on this connection`)
    }
    let known = columnsOf.get(connection)
    if (known === undefined) {
      known = new Map()
      columnsOf.set(connection, known)
    }
    connection.stream.cork?.()
    try {
      for (const step of this.#steps) {
        const { name, text, values } = step.statement
        if (name === undefined) {
          connection.parse({ text, name: "", types: [] })
        } else if ((connection.parsedStatements[name] ?? connection.submittedNamedStatements[name]) === undefined) {
          // A run that failed after this name's Parse may have left it parsed: closing a name that is not there is no error.
          connection.close({ type: "S", name })
          connection.parse({ text, name, types: [] })
          connection.submittedNamedStatements[name] = text
          step.parsing = true
        } else {
          // Parsed before, and its columns learnt on this connection: neither is asked again.
          step.columns = known.get(name)
        }
        try {
          connection.bind({ portal: "", statement: name ?? "", values, valueMapper: prepareValue })
        } catch (error) {
          // A value pg cannot send: the statements before it are sent; end the exchange and report it.
          if (step.parsing) delete connection.submittedNamedStatements[name!]
          this.#failed = error instanceof Error ? error : new Error(String(error))
          break
        }
        if (step.columns === undefined && step.statement !== COMMIT) {
          step.describing = true
          connection.describe({ type: "P", name: "" })
        }
        connection.execute({ portal: "" })
      }
      connection.sync()
    } finally {
      connection.stream.uncork?.()
    }
    return null
  }

  handleRowDescription(message: { readonly fields: ReadonlyArray<Field> }): void {
    const step = this.#steps[this.#at]
    if (step === undefined) return
    step.columns = {
      names: message.fields.map((f) => f.name),
      parsers: message.fields.map((f) => this.#client.getTypeParser(f.dataTypeID, f.format === "binary" ? "binary" : "text") as (text: string) => unknown),
    }
  }

  handleDataRow(message: { readonly fields: ReadonlyArray<string | null> }): void {
    const step = this.#steps[this.#at]
    const columns = step?.columns
    if (step === undefined || columns === undefined) {
      this.#failed ??= new Error(`rows of statement ${step?.statement.name ?? "(unnamed)"} came before its columns were known`)
      return
    }
    const row: Record<string, unknown> = {}
    const { names, parsers } = columns
    for (let i = 0; i < names.length; i++) {
      const text = message.fields[i]
      row[names[i]!] = text === null || text === undefined ? null : parsers[i]!(text)
    }
    step.rows.push(row)
  }

  handleCommandComplete(message: { readonly text: string }, connection: Connection): void {
    const step = this.#steps[this.#at++]
    if (step === undefined) return
    const match = COMMAND.exec(message.text)
    if (match !== null) {
      step.command = match[1]!
      step.rowCount = match[3] !== undefined ? Number(match[3]) : match[2] !== undefined ? Number(match[2]) : null
    }
    const { name, text } = step.statement
    if (name === undefined) return
    if (step.parsing) {
      connection.parsedStatements[name] = text
      delete connection.submittedNamedStatements[name]
    }
    // A statement that answers no rows (no RowDescription came) has no columns: learnt too.
    if (step.describing) columnsOf.get(connection)?.set(name, step.columns ?? NO_COLUMNS)
  }

  handleEmptyQuery(): void {
    this.#at++
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail("No source stream defined")
  }

  handleCopyData(): void {}

  handleError(error: Error, connection?: Connection): void {
    const failing = this.#steps[this.#at]
    // Its columns may be what changed ("cached plan must not change result type"): learnt again at its next run.
    const conn = connection ?? (this.#client as unknown as { readonly connection?: Connection }).connection
    if (conn !== undefined) {
      if (failing?.statement.name !== undefined) columnsOf.get(conn)?.delete(failing.statement.name)
      // The statements from the failing one on did not complete: a name parsed by this run is parsed again (closed first) next time.
      for (const step of this.#steps.slice(this.#at)) if (step.parsing) delete conn.submittedNamedStatements[step.statement.name!]
    }
    this.#done(error, undefined)
  }

  handleReadyForQuery(connection: Connection): void {
    if (this.#failed !== undefined) {
      this.handleError(this.#failed, connection)
      return
    }
    this.#done(
      undefined,
      this.#steps.map(({ command, rowCount, rows }) => ({ command, rowCount, rows, oid: 0, fields: [] }) as unknown as pg.QueryResult),
    )
  }
}
