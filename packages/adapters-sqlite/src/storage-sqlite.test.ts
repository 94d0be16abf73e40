/** The storage contract on SQLite, in memory and in a WAL file; plus what only a file shows. */
import { relyingPartyModel, signingModel, signingTokenModel, tokenFamilyModel } from "@signet/testkit/models"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { sql } from "kysely"
import { SqlDatabase } from "@signet/adapters-sql"
import { RelyingParties, Users } from "@signet/core"
import { sampleRelyingParty, sampleUser, storageConformance } from "@signet/testkit/storage"
import { StorageSqlite } from "./index.ts"

const dir = mkdtempSync(join(tmpdir(), "signet-sqlite-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const freshFile = (): string => join(dir, `test-${++files}.db`)

storageConformance("sqlite :memory:", () => StorageSqlite({ filename: ":memory:" }))
storageConformance("sqlite WAL file", () => StorageSqlite({ filename: freshFile() }))

describe("StorageSqlite file", () => {
  it.effect("runs in WAL mode with foreign keys on", () =>
    Effect.gen(function* () {
      const { db } = yield* SqlDatabase
      const journal = yield* Effect.promise(() => sql<{ journal_mode: string }>`pragma journal_mode`.execute(db))
      const fk = yield* Effect.promise(() => sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db))
      expect(journal.rows[0]?.journal_mode).toBe("wal")
      expect(fk.rows[0]?.foreign_keys).toBe(1)
    }).pipe(Effect.provide(StorageSqlite({ filename: freshFile() }))),
  )

  it.effect("keeps its rows across close and reopen, and migrating again is a no-op", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      const rp = yield* Effect.gen(function* () {
        yield* (yield* Users).insert(sampleUser())
        return yield* (yield* RelyingParties).insert(sampleRelyingParty())
      }).pipe(Effect.provide(StorageSqlite({ filename })))
      const [user, rps] = yield* Effect.gen(function* () {
        return [yield* (yield* Users).findById(sampleUser().id), yield* (yield* RelyingParties).list()] as const
      }).pipe(Effect.provide(StorageSqlite({ filename })))
      expect(user).toEqual(Option.some(sampleUser()))
      expect(rps).toEqual([rp])
    }),
  )

  it.effect("two stores on one file (two processes' view) see each other's writes", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      // Built one after the other: within one process better-sqlite3 would block the event loop on the other's lock.
      const a = yield* Layer.build(StorageSqlite({ filename }))
      const b = yield* Layer.build(StorageSqlite({ filename }))
      yield* (yield* Effect.provide(Users, a)).insert(sampleUser())
      expect(yield* (yield* Effect.provide(Users, b)).findByEmail("alice@example.com")).toEqual(Option.some(sampleUser()))
    }).pipe(Effect.scoped),
  )

  it.effect(
    "three processes opening a new file at once all migrate and write",
    () =>
      Effect.gen(function* () {
        const filename = freshFile()
        const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
        const child = join(packageDir, "src", "testing", "open-store.ts")
        yield* Effect.promise(() =>
          Promise.all(
            ["usr_p1", "usr_p2", "usr_p3"].map((id) =>
              promisify(execFile)(process.execPath, ["--conditions=@signet/source", "--import", "tsx", child, filename, id], { cwd: packageDir }),
            ),
          ),
        )
        const found = yield* Effect.forEach(["usr_p1", "usr_p2", "usr_p3"], (id) => Effect.flatMap(Users, (u) => u.findById(id))).pipe(
          Effect.provide(StorageSqlite({ filename })),
        )
        expect(found.every(Option.isSome)).toBe(true)
      }),
    60_000,
  )
})

relyingPartyModel("sqlite", () => StorageSqlite({ filename: ":memory:" }))
signingModel("sqlite", () => StorageSqlite({ filename: ":memory:" }))
signingTokenModel("sqlite", () => StorageSqlite({ filename: ":memory:" }))
tokenFamilyModel("sqlite", () => StorageSqlite({ filename: ":memory:" }))
