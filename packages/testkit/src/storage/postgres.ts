/**
 * PostgreSQL for tests: which server to use, and a fresh schema per layer so runs never
 * collide. The server is `DATABASE_URL` when set; otherwise the local trust-auth server of
 * the development machines (`postgres` or `root` user, database `test`). When none answers,
 * suites are skipped with a loud warning, or fail when `SIGNET_REQUIRE_POSTGRES=1` (CI).
 */
import { randomBytes } from "node:crypto"
import { describe, it } from "vitest"
import { Effect, Layer } from "effect"
import pg from "pg"

/** Servers tried, in order, when `DATABASE_URL` is not set. */
export const LOCAL_POSTGRES_CANDIDATES: ReadonlyArray<string> = ["postgres://postgres@127.0.0.1:5432/test", "postgres://root@127.0.0.1:5432/test"]

const PROBE_TIMEOUT_MS = 2000

/** Whether a server answers `select 1` at `connectionString` within 2 s. */
export const probePostgres = async (connectionString: string): Promise<boolean> => {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: PROBE_TIMEOUT_MS })
  client.on("error", () => undefined)
  const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), PROBE_TIMEOUT_MS + 500).unref())
  const attempt = client
    .connect()
    .then(() => client.query("select 1"))
    .then(
      () => true,
      () => false,
    )
    .finally(() => client.end().catch(() => undefined))
  return Promise.race([attempt, timeout])
}

const hide = (url: string): string => url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@")

let found: Promise<string | undefined> | undefined

/**
 * The connection string of a reachable PostgreSQL (probed once per process), or undefined
 * after a loud warning. Throws when `SIGNET_REQUIRE_POSTGRES=1` and none is reachable.
 */
export const findPostgres = (): Promise<string | undefined> => {
  found ??= (async () => {
    const fromEnv = process.env["DATABASE_URL"]
    const candidates = fromEnv !== undefined && fromEnv !== "" ? [fromEnv] : LOCAL_POSTGRES_CANDIDATES
    for (const candidate of candidates) {
      if (await probePostgres(candidate)) return candidate
    }
    const tried = candidates.map(hide).join(", ")
    if (process.env["SIGNET_REQUIRE_POSTGRES"] === "1") {
      throw new Error(`PostgreSQL not reachable (tried ${tried}) and SIGNET_REQUIRE_POSTGRES=1: failing`)
    }
    console.warn(
      `\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n` +
        `!!! PostgreSQL not reachable (tried ${tried}): SKIPPING the PostgreSQL suites.\n` +
        `!!! Set DATABASE_URL, or SIGNET_REQUIRE_POSTGRES=1 to make this a failure.\n` +
        `!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n`,
    )
    return undefined
  })()
  return found
}

/** `describe` that runs `body` with the server's connection string, or is skipped when there is none. */
export const describePostgres = (connectionString: string | undefined, name: string, body: (connectionString: string) => void): void => {
  // One visible skipped test, so the summary counts the skip instead of showing nothing.
  if (connectionString === undefined) describe.skip(name, () => it("PostgreSQL not reachable: SKIPPED", () => undefined))
  else describe(name, () => body(connectionString))
}

/** A new schema name, `signet_test_<random>`. */
export const freshSchemaName = (): string => `signet_test_${randomBytes(6).toString("hex")}`

/** Drops `schema` and everything in it. */
export const dropSchema = async (connectionString: string, schema: string): Promise<void> => {
  const client = new pg.Client({ connectionString })
  client.on("error", () => undefined)
  await client.connect()
  try {
    await client.query(`drop schema if exists ${client.escapeIdentifier(schema)} cascade`)
  } finally {
    await client.end()
  }
}

/** Where a test layer's tables live. */
export interface PostgresTestTarget {
  readonly connectionString: string
  readonly schema: string
}

/**
 * Builds `make` on a fresh schema (`make` creates it, as `StoragePostgres` does) and drops
 * the schema once the layer's other resources are released.
 */
export const withFreshSchema = <A, E, R>(connectionString: string, make: (target: PostgresTestTarget) => Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const schema = freshSchemaName()
      // Added first, so it runs last: after the layer built below has closed its pool.
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => dropSchema(connectionString, schema)).pipe(
          Effect.catchAllDefect((e) => Effect.sync(() => console.warn(`could not drop test schema ${schema}: ${String(e)}`))),
        ),
      )
      return make({ connectionString, schema })
    }),
  )

/** Every `signet_test_*` schema left behind by crashed runs (to clean up by hand or in CI). */
export const listTestSchemas = async (connectionString: string): Promise<ReadonlyArray<string>> => {
  const client = new pg.Client({ connectionString })
  client.on("error", () => undefined)
  await client.connect()
  try {
    const result = await client.query<{ readonly nspname: string }>("select nspname from pg_namespace where nspname like 'signet\\_test\\_%' order by nspname")
    return result.rows.map((r) => r.nspname)
  } finally {
    await client.end()
  }
}
