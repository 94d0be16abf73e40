/** Group commit on a SQLite file: units of work arriving together share commits, and each still stands alone. */
import BetterSqlite3 from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Data, Deferred, Effect, Exit, Fiber, Option } from "effect"
import { Storage, Users } from "@signet/core"
import { sampleUser } from "@signet/testkit/storage"
import { StorageSqlite } from "./index.ts"

const dir = mkdtempSync(join(tmpdir(), "signet-group-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

class Refused extends Data.TaggedError("Refused") {}

describe("SQLite group commit", () => {
  const filename = join(dir, "group.db")
  it.effect("of 60 units at once, each answers only once its row is committed (seen by another connection); a failing one is undone alone", () =>
    Effect.gen(function* () {
      const storage = yield* Storage
      const users = yield* Users
      const other = new BetterSqlite3(filename, { readonly: true })
      const seen = (id: string) => other.prepare("select count(*) as n from users where id = ?").get(id) as { n: number }
      try {
        const exits = yield* Effect.forEach(
          Array.from({ length: 60 }, (_, i) => i),
          (i) =>
            storage
              .transaction(
                Effect.gen(function* () {
                  yield* users.insert(sampleUser({ id: `usr_${i}`, email: `u${i}@example.com` }))
                  if (i % 10 === 7) return yield* new Refused()
                }),
              )
              .pipe(
                Effect.exit,
                // Checked the moment the unit answers: another connection already sees a kept row.
                Effect.tap((exit) => Effect.sync(() => expect(seen(`usr_${i}`).n).toBe(Exit.isSuccess(exit) ? 1 : 0))),
              ),
          { concurrency: "unbounded" },
        )
        expect(exits.filter(Exit.isFailure).length).toBe(6)
        expect((other.prepare("select count(*) as n from users").get() as { n: number }).n).toBe(54)
      } finally {
        other.close()
      }
    }).pipe(Effect.provide(StorageSqlite({ filename }))),
  )

  it.effect("a read outside a transaction neither waits for a unit still open nor sees its row; once the unit answers, it does", () =>
    Effect.gen(function* () {
      const storage = yield* Storage
      const users = yield* Users
      const inserted = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const unit = yield* storage
        .transaction(
          Effect.gen(function* () {
            yield* users.insert(sampleUser({ id: "usr_held", email: "held@example.com" }))
            yield* Deferred.succeed(inserted, undefined)
            yield* Deferred.await(release)
          }),
        )
        .pipe(Effect.fork)
      yield* Deferred.await(inserted)
      // On the writer's connection this read would wait for the unit (and the test would time out).
      const during = yield* users.findById("usr_held").pipe(Effect.timeout("2 seconds"))
      expect(Option.isNone(during)).toBe(true)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(unit)
      expect(Option.isSome(yield* users.findById("usr_held"))).toBe(true)
    }).pipe(Effect.provide(StorageSqlite({ filename: join(dir, "reads.db") }))),
  )
})
