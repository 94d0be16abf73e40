/** Prepared statements: what a prepared statement binds is what kysely would have built for the same values. */
import { describe, expect, it } from "vitest"
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely"
import type { Database } from "./database.ts"
import "./modules.ts"
import { prepare } from "./sql-database.ts"
import { consumeUpToStatement } from "./signing/repositories.ts"

const dialects = {
  sqlite: new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
  postgres: new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }),
}

describe.each(Object.entries(dialects))("prepare on %s", (_name, db) => {
  it("binds each call's values where kysely would have put them, a value used twice in both places, constants kept", () => {
    // the quota statement of every signing request
    const build = consumeUpToStatement
    const prepared = prepare(build)
    const calls: ReadonlyArray<readonly [string, number, number, number]> = [
      ["day:rp:2026-11-28", 1, 100, 86_400_000],
      ["rpm:sign:rp:u:1", 5, 7, 60_000],
      ["k", 0, 0, 0],
    ]
    for (const [key, amount, limit, expiresAt] of calls) {
      const fresh = build(db, key, amount, limit, expiresAt).compile()
      const bound = prepared(db, key, amount, limit, expiresAt)
      expect(bound.sql).toBe(fresh.sql)
      expect(bound.parameters).toEqual(fresh.parameters)
    }
    const constants = prepare((d, kind: string) => d.selectFrom("certificates").selectAll().where("kind", "=", kind).where("status", "=", "valid").limit(1))
    constants(db, "root")
    const issuing = constants(db, "issuing")
    expect(issuing.parameters).toEqual(
      db.selectFrom("certificates").selectAll().where("kind", "=", "issuing").where("status", "=", "valid").limit(1).compile().parameters,
    )
  })

  it("binds a row's columns; a row with other columns (or an undefined one) is a shape of its own", () => {
    const build = (d: Kysely<Database>, row: Record<string, unknown>, id: string) =>
      d
        .updateTable("users")
        .set(row as never)
        .where("id", "=", id)
    const prepared = prepare(build)
    const rows = [
      [{ email: "a@example.com", display_name: "A" }, "u1"],
      [{ email: "b@example.com", display_name: "B" }, "u2"],
      [{ display_name: "C", email: "c@example.com" }, "u3"],
      [{ email: "d@example.com", display_name: undefined }, "u4"],
      [{ email: "e@example.com", display_name: "E", email_verified_at: null }, "u5"],
    ] as const
    for (const [row, id] of rows) {
      const fresh = build(db, row, id).compile()
      const bound = prepared(db, row, id)
      expect(bound.sql).toBe(fresh.sql)
      expect(bound.parameters).toEqual(fresh.parameters)
    }
  })

  it("a parameter kysely would write into the SQL text fails at once rather than being bound wrongly", () => {
    const prepared = prepare((d, column: string) => d.selectFrom("users").select(sql.ref(column).as("x")))
    expect(() => prepared(db, "email")).toThrow()
  })
})
