/** Statements run the short way answer what `pg`'s own query answers, run after run, several in one exchange. */
import { describePostgres, dropSchema, findPostgres, freshSchemaName } from "@signet/testkit/storage"
import pg from "pg"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type RunStatement, StatementsRun } from "./prepared.ts"

const url = await findPostgres()

describePostgres(url, "StatementsRun", (connectionString) => {
  const schema = freshSchemaName()
  let client: pg.Client
  beforeAll(async () => {
    client = new pg.Client({ connectionString, options: `-c search_path=${schema}` })
    await client.connect()
    await client.query(`create schema ${schema}`)
    await client.query(
      "create table t (id text primary key, n bigint not null, flag boolean, note text, data bytea, doc jsonb, at timestamptz default '2026-01-02T03:04:05Z')",
    )
  })
  afterAll(async () => {
    await client.end()
    await dropSchema(connectionString, schema)
  })

  const runs = (statements: ReadonlyArray<RunStatement>, commit = false) =>
    new Promise<ReadonlyArray<pg.QueryResult>>((resolve, reject) => {
      client.query(new StatementsRun(client, statements, commit, (error, results) => (error ? reject(error) : resolve(results!))) as never)
    })
  const short = async (name: string, text: string, values: ReadonlyArray<unknown>) => (await runs([{ name, text, values }]))[0]!
  const own = (text: string, values: ReadonlyArray<unknown>) => client.query(text, values as Array<unknown>)

  it("answers the same rows, command and row count as pg's query, on the first run and the runs after", async () => {
    const insert = "insert into t (id, n, flag, note, data, doc) values ($1, $2, $3, $4, $5, $6)"
    for (const row of [
      ["a", 1n, true, "é ü", Buffer.from([0, 1, 255]), { k: [1, "x"] }],
      ["b", 9007199254740993n, null, null, null, null],
      ["c", -5, false, "", Buffer.alloc(0), []],
    ]) {
      const answer = await short("ins", insert, row)
      expect({ command: answer.command, rowCount: answer.rowCount, rows: answer.rows }).toEqual({ command: "INSERT", rowCount: 1, rows: [] })
    }
    const select = "select * from t where id = any($1) order by id"
    for (let run = 0; run < 3; run++) {
      const ids = run === 2 ? ["zz"] : ["a", "b", "c"]
      const mine = await short("sel", select, [ids])
      const theirs = await own(select, [ids])
      expect(mine.rows).toEqual(theirs.rows)
      expect([mine.command, mine.rowCount]).toEqual([theirs.command, theirs.rowCount])
    }
    const update = "update t set n = n + 1 where id <> $1"
    expect((await short("upd", update, ["a"])).rowCount).toBe(2)
    expect((await short("upd", update, ["zz"])).rowCount).toBe(3)
    const returning = "delete from t where id = $1 returning id, n"
    expect((await short("del", returning, ["c"])).rows).toEqual([{ id: "c", n: "-3" }])
    expect((await short("del", returning, ["c"])).rows).toEqual([])
  })

  it("reports a failing run with PostgreSQL's error and runs again after it", async () => {
    const insert = "insert into t (id, n) values ($1, $2)"
    await short("ins2", insert, ["dup", 1])
    await expect(short("ins2", insert, ["dup", 2])).rejects.toMatchObject({ code: "23505" })
    expect((await short("ins2", insert, ["dup2", 3])).rowCount).toBe(1)
  })

  it("learns the columns again when the table changed under the statement", async () => {
    const select = "select * from t where id = $1"
    const before = await short("sel2", select, ["a"])
    expect(Object.keys(before.rows[0]!)).not.toContain("extra")
    await client.query("alter table t add column extra text default 'x'")
    // PostgreSQL refuses the old plan's shape once; the run after describes the statement anew
    await expect(short("sel2", select, ["a"])).rejects.toMatchObject({ code: "0A000" })
    await client.query("deallocate sel2")
    delete (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements["sel2"]
    const after = await short("sel2", select, ["a"])
    expect(after.rows[0]).toMatchObject({ id: "a", extra: "x" })
  })

  it("runs several statements in one exchange, each answered as pg answers it alone, the COMMIT last", async () => {
    await client.query("begin")
    const answers = await runs(
      [
        { name: "m_ins", text: "insert into t (id, n) values ($1, $2)", values: ["m1", 7] },
        { name: undefined, text: "update t set n = n * 2 where id = $1", values: ["m1"] },
        { name: "m_sel", text: "select id, n from t where id = $1", values: ["m1"] },
        { name: "m_sel", text: "select id, n from t where id = $1", values: ["zz"] },
      ],
      true,
    )
    expect(answers.map((a) => [a.command, a.rowCount])).toEqual([
      ["INSERT", 1],
      ["UPDATE", 1],
      ["SELECT", 1],
      ["SELECT", 0],
      ["COMMIT", null],
    ])
    expect(answers[2]!.rows).toEqual([{ id: "m1", n: "14" }])
    // committed: another connection sees it
    const other = new pg.Client({ connectionString, options: `-c search_path=${schema}` })
    await other.connect()
    expect((await other.query("select n from t where id = 'm1'")).rows).toEqual([{ n: "14" }])
    await other.end()
  })

  it("stops at the first failing statement: those after it do not run, the transaction does not commit, and the connection runs on", async () => {
    await client.query("begin")
    await expect(
      runs(
        [
          { name: "f_ins", text: "insert into t (id, n) values ($1, $2)", values: ["f1", 1] },
          { name: "f_ins", text: "insert into t (id, n) values ($1, $2)", values: ["f1", 2] },
          { name: "f_new", text: "insert into t (id, n) values ($1, $2) returning id", values: ["f2", 3] },
        ],
        true,
      ),
    ).rejects.toMatchObject({ code: "23505" })
    expect((await client.query("rollback")).command).toBe("ROLLBACK")
    expect((await own("select id from t where id = any($1)", [["f1", "f2"]])).rows).toEqual([])
    // The statement that never ran is parsed at its next run; the failed one's name is usable again.
    expect((await short("f_new", "insert into t (id, n) values ($1, $2) returning id", ["f2", 3])).rows).toEqual([{ id: "f2" }])
    expect((await short("f_ins", "insert into t (id, n) values ($1, $2)", ["f1", 1])).rowCount).toBe(1)
  })
})
