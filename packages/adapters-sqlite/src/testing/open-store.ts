/** Child process for the multi-process test: opens (and so migrates) the store at argv[2], writes a user, exits. */
import { Effect } from "effect"
import { Users } from "@signet/core"
import { StorageSqlite } from "../index.ts"

const [filename, userId] = [process.argv[2], process.argv[3]]
if (filename === undefined || userId === undefined) throw new Error("usage: open-store <file> <user id>")
await Effect.runPromise(
  Effect.gen(function* () {
    yield* (yield* Users).insert({ id: userId, email: `${userId}@example.com`, displayName: userId, createdAt: 1, emailVerifiedAt: 1 })
  }).pipe(Effect.provide(StorageSqlite({ filename }))),
)
