/** The storage contract on PostgreSQL (a fresh schema per test); plus what only PostgreSQL shows. */
import { relyingPartyModel, signingModel, signingTokenModel, tokenFamilyModel } from "@signet/testkit/models"
import { expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Metric, Option } from "effect"
import pg from "pg"
import { type Kysely, sql } from "kysely"
import { type Database, execute, executeLater, SqlDatabase } from "@signet/adapters-sql"
import { RelyingParties, Storage, Users, dbPoolConnections, withTags } from "@signet/core"
import {
  describePostgres,
  findPostgres,
  freshSchemaName,
  dropSchema,
  sampleRelyingParty,
  sampleUser,
  storageConformance,
  withFreshSchema,
} from "@signet/testkit/storage"
import { StoragePostgres } from "./index.ts"

const url = await findPostgres()

describePostgres(url, "StoragePostgres", (connectionString) => {
  storageConformance("postgres", () => withFreshSchema(connectionString, StoragePostgres))

  it.effect("keeps ms timestamps as bigint and the tables in the given schema", () =>
    Effect.gen(function* () {
      const { db } = yield* SqlDatabase
      const columns = yield* Effect.promise(() =>
        sql<{ table_name: string; column_name: string; data_type: string }>`
      select table_name, column_name, data_type from information_schema.columns
      where table_schema = current_schema() and column_name in ('created_at', 'counter')`.execute(db),
      )
      expect(columns.rows.length).toBeGreaterThanOrEqual(7)
      for (const row of columns.rows) expect(row.data_type).toBe("bigint")
      const schema = yield* Effect.promise(() => sql<{ s: string }>`select current_schema() as s`.execute(db))
      expect(schema.rows[0]?.s).toMatch(/^signet_test_[0-9a-f]{12}$/)
    }).pipe(Effect.provide(withFreshSchema(connectionString, StoragePostgres))),
  )

  it.effect("reports the pool's occupancy as signet_db_pool_connections while queries run", () =>
    Effect.gen(function* () {
      const { db } = yield* SqlDatabase
      yield* Effect.promise(() => Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.05)`.execute(db))))
      // the gauges are written once per event-loop turn
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
      const total = yield* Metric.value(withTags(dbPoolConnections, { state: "total" }))
      const idle = yield* Metric.value(withTags(dbPoolConnections, { state: "idle" }))
      expect(total.value).toBeGreaterThanOrEqual(3)
      expect(idle.value).toBe(total.value)
    }).pipe(Effect.provide(withFreshSchema(connectionString, StoragePostgres))),
  )

  it.effect("several nodes starting at once on one new schema all migrate and share the rows", () =>
    Effect.gen(function* () {
      const schema = freshSchemaName()
      yield* Effect.addFinalizer(() => Effect.promise(() => dropSchema(connectionString, schema)))
      const nodes = yield* Effect.forEach([1, 2, 3, 4], () => Layer.build(StoragePostgres({ connectionString, schema })), { concurrency: "unbounded" })
      const [a, b] = [nodes[0]!, nodes[1]!]
      const rp = yield* Effect.flatMap(RelyingParties, (r) => r.insert(sampleRelyingParty())).pipe(Effect.provide(a))
      expect(yield* Effect.flatMap(RelyingParties, (r) => r.findByClientId(rp.clientId)).pipe(Effect.provide(b))).toEqual(Option.some(rp))
      yield* Effect.flatMap(Users, (u) => u.insert(sampleUser())).pipe(Effect.provide(b))
      expect(yield* Effect.flatMap(Users, (u) => u.findByEmail("ALICE@example.com")).pipe(Effect.provide(nodes[3]!))).toEqual(Option.some(sampleUser()))
    }).pipe(Effect.scoped),
  )

  /** The engine's statements PostgreSQL holds prepared on the one connection of a pool of one. */
  const preparedOnConnection = Effect.gen(function* () {
    const { db } = yield* SqlDatabase
    const prepared = yield* Effect.promise(() => sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db))
    return prepared.rows.filter((r) => r.name.startsWith("signet_"))
  })

  it.effect("names its statements, so PostgreSQL parses and plans each once per connection; not when told not to", () =>
    Effect.gen(function* () {
      const findUser = Effect.flatMap(Users, (u) => u.findById("u_missing"))
      const named = yield* Effect.gen(function* () {
        yield* Effect.flatMap(Storage, (s) => s.transaction(findUser))
        yield* findUser
        return yield* preparedOnConnection
      }).pipe(Effect.provide(withFreshSchema(connectionString, (o) => StoragePostgres({ ...o, maxConnections: 1 }))))
      // in a transaction and outside one: the same statement, prepared once
      expect(named.filter((r) => r.statement.includes('from "users" where "id"'))).toHaveLength(1)
      const unnamed = yield* Effect.gen(function* () {
        yield* Effect.flatMap(Storage, (s) => s.transaction(findUser))
        yield* findUser
        return yield* preparedOnConnection
      }).pipe(Effect.provide(withFreshSchema(connectionString, (o) => StoragePostgres({ ...o, maxConnections: 1, preparedStatements: false }))))
      expect(unnamed).toEqual([])
    }),
  )

  it.effect("a write whose answer is not needed goes with the next statement: the unit reads it, commits it, and fails with it", () =>
    Effect.gen(function* () {
      const service = yield* SqlDatabase
      const later = executeLater(service)
      const now = execute(service)
      const insert = (clientId: string) => (db: Kysely<Database>) =>
        db.insertInto("usage_days").values({ client_id: clientId, day: "2026-11-29", signatures: 1, quota_refusals: 0 }).compile()
      const count = (clientId: string) =>
        Effect.map(
          now((db) => db.selectFrom("usage_days").select("client_id").where("client_id", "=", clientId).compile()),
          (r) => r.rows.length,
        )
      const unit = <A, E>(effect: Effect.Effect<A, E>) => Effect.flatMap(Storage, (s) => s.transaction(effect))
      // read by the unit's next statement, then committed with it
      expect(yield* unit(Effect.zipRight(later(insert("rp_a")), count("rp_a")))).toBe(1)
      // sent with the COMMIT: committed
      yield* unit(later(insert("rp_b")))
      expect(yield* count("rp_b")).toBe(1)
      // A failing one (the row is there) fails the statement it went with, and nothing of the unit commits.
      const withStatement = yield* Effect.exit(unit(Effect.zipRight(later(insert("rp_a")), Effect.zipRight(later(insert("rp_c")), count("rp_c")))))
      expect(Exit.isFailure(withStatement) && Cause.pretty(withStatement.cause)).toMatch(/duplicate key/)
      // Failing at the COMMIT: the unit fails, the writes before it are gone.
      const atCommit = yield* Effect.exit(unit(Effect.zipRight(later(insert("rp_d")), later(insert("rp_b")))))
      expect(Exit.isFailure(atCommit) && Cause.pretty(atCommit.cause)).toMatch(/duplicate key/)
      expect([yield* count("rp_c"), yield* count("rp_d")]).toEqual([0, 0])
      // The pool's one connection runs on.
      expect(yield* unit(count("rp_a"))).toBe(1)
    }).pipe(Effect.provide(withFreshSchema(connectionString, (o) => StoragePostgres({ ...o, maxConnections: 1 })))),
  )

  it.effect("reads a unit makes at once go in one exchange, each answered with its own rows; a failing one fails the unit", () =>
    Effect.gen(function* () {
      const service = yield* SqlDatabase
      const storage = yield* Storage
      expect(storage.readsTogether).toBe(true)
      const now = execute(service)
      const later = executeLater(service)
      const insert = (clientId: string) => (db: Kysely<Database>) =>
        db.insertInto("usage_days").values({ client_id: clientId, day: "2026-11-29", signatures: clientId.length, quota_refusals: 0 }).compile()
      yield* storage.transaction(Effect.all([now(insert("rp_a")), now(insert("rp_bb")), now(insert("rp_ccc"))], { concurrency: "unbounded" }))
      const read = (clientId: string) =>
        Effect.map(
          now((db) => db.selectFrom("usage_days").select("signatures").where("client_id", "=", clientId).compile()),
          (r) => r.rows.map((row) => Number((row as { readonly signatures: unknown }).signatures)),
        )
      // Exchanges with PostgreSQL, counted as pg is handed them.
      let exchanges = 0
      const query = pg.Client.prototype.query
      pg.Client.prototype.query = function (this: pg.Client, ...args: Array<never>) {
        exchanges++
        return (query as (...a: Array<never>) => unknown).apply(this, args)
      } as typeof query
      try {
        const answers = yield* storage.transaction(
          Effect.zipRight(read("rp_a"), Effect.all([read("rp_ccc"), read("rp_a"), read("rp_none"), read("rp_bb")], { concurrency: "unbounded" })),
        )
        expect(answers).toEqual([[6], [4], [], [5]])
        // the BEGIN with the first read, then the four together, then the COMMIT
        expect(exchanges).toBe(3)
      } finally {
        pg.Client.prototype.query = query
      }
      // A duplicate key among reads and writes sent together: every one of them fails, and the unit with them.
      const failed = yield* Effect.exit(
        storage.transaction(
          Effect.zipRight(later(insert("rp_dd")), Effect.all([read("rp_a"), now(insert("rp_a")), read("rp_bb")], { concurrency: "unbounded" })),
        ),
      )
      expect(Exit.isFailure(failed) && Cause.pretty(failed.cause)).toMatch(/duplicate key/)
      expect(yield* read("rp_dd")).toEqual([])
    }).pipe(Effect.provide(withFreshSchema(connectionString, (o) => StoragePostgres({ ...o, maxConnections: 1 })))),
  )

  it.effect("a connection whose prepared statement another node's migration changed fails it once, then runs its statements unnamed", () =>
    Effect.gen(function* () {
      const user = sampleUser()
      yield* Effect.flatMap(Users, (u) => u.insert(user))
      const findUser = Effect.flatMap(Users, (u) => u.findById(user.id))
      expect(yield* findUser).toEqual(Option.some(user))
      // Another node adds a column: `select *` now has another shape than the statement prepared here.
      const { db } = yield* SqlDatabase
      const schema = (yield* Effect.promise(() => sql<{ s: string }>`select current_schema() as s`.execute(db))).rows[0]!.s
      const other = new pg.Client({ connectionString })
      yield* Effect.promise(async () => {
        await other.connect()
        await other.query(`alter table ${other.escapeIdentifier(schema)}.users add column added_by_a_later_version text`)
        await other.end()
      })
      const failed = yield* Effect.exit(Effect.flatMap(Storage, (s) => s.transaction(findUser)))
      expect(Exit.isFailure(failed) && Cause.pretty(failed.cause)).toMatch(/cached plan must not change result type/)
      // The same connection (a pool of one) answers the next ones, in a transaction and outside.
      expect(yield* Effect.flatMap(Storage, (s) => s.transaction(findUser))).toEqual(Option.some(user))
      expect(yield* findUser).toEqual(Option.some(user))
    }).pipe(Effect.provide(withFreshSchema(connectionString, (o) => StoragePostgres({ ...o, maxConnections: 1 })))),
  )

  it("refuses a schema name that is not a plain lower-case identifier", async () => {
    await expect(Effect.runPromise(Layer.launch(StoragePostgres({ connectionString, schema: "Bad-Name" })))).rejects.toThrow(/invalid PostgreSQL schema name/)
  })
})

describePostgres(url, "StoragePostgres models", (connectionString) => {
  relyingPartyModel("postgres", () => withFreshSchema(connectionString, StoragePostgres))
  signingModel("postgres", () => withFreshSchema(connectionString, StoragePostgres))
  signingTokenModel("postgres", () => withFreshSchema(connectionString, StoragePostgres))
  tokenFamilyModel("postgres", () => withFreshSchema(connectionString, StoragePostgres))
})
