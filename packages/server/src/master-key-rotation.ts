/**
 * `pnpm admin rotate-master-key --new <key>`: every private key, webhook secret, KYC image,
 * signature image, provider client secret and prepared PDF re-sealed under a new master key, in
 * batches of rows, one transaction per batch (docs/operations.md). The engine must be stopped: on
 * SQLite the command holds the database exclusively and refuses to start while another process
 * has it open; on PostgreSQL the operator stops every node.
 */
import { rotateSealedColumns, SqlDatabase, type SealedTableRotation } from "@signet/adapters-sql"
import { SqlDatabasePostgres } from "@signet/adapters-postgres"
import { holdSqliteExclusively, SqlDatabaseSqlite } from "@signet/adapters-sqlite"
import { masterKeyResealer, parseMasterKey } from "@signet/adapters-crypto"
import { Cause, Effect, Exit, type Layer } from "effect"
import { isPostgresUrl, loadConfig } from "./config.ts"

/** How a rotation runs. */
export interface MasterKeyRotationOptions {
  /** SQLite file or `postgres://` URL */
  readonly database: string
  /** the master key the database is sealed under now */
  readonly previous: Uint8Array
  /** the master key to seal it under */
  readonly next: Uint8Array
  readonly batchSize?: number
  readonly pauseMs?: number
  readonly onBatch?: (progress: SealedTableRotation) => void
}

/** Re-seals the database under `next`; run it again after an interruption: it picks up where it stopped. */
export const rotateMasterKey = async (options: MasterKeyRotationOptions): Promise<ReadonlyArray<SealedTableRotation>> => {
  const resealer = await masterKeyResealer(options.previous, options.next)
  const layer: Layer.Layer<SqlDatabase> = isPostgresUrl(options.database)
    ? SqlDatabasePostgres({ connectionString: options.database, maxConnections: 2 })
    : SqlDatabaseSqlite({ filename: options.database, busyTimeoutMs: 1000 })
  const program = Effect.gen(function* () {
    const { db, dialect } = yield* SqlDatabase
    // On SQLite the command holds the file alone until it ends: a running engine makes it refuse now.
    if (dialect === "sqlite") yield* Effect.promise(() => holdSqliteExclusively(db, options.database))
    return yield* Effect.promise(() =>
      rotateSealedColumns(db, resealer, {
        ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
        ...(options.pauseMs !== undefined ? { pauseMs: options.pauseMs } : {}),
        ...(options.onBatch !== undefined ? { onBatch: options.onBatch } : {}),
      }),
    )
  })
  const exit = await Effect.runPromiseExit(Effect.scoped(Effect.provide(program, layer)))
  if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
  return exit.value
}

const numberFlag = (argv: ReadonlyArray<string>, name: string): number | undefined => {
  const at = argv.indexOf(name)
  if (at < 0) return undefined
  const value = Number(argv[at + 1])
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} takes a whole number`)
  return value
}

/**
 * The admin command: `rotate-master-key --new <key> [--batch-size N] [--pause-ms N]` (the new key
 * may come from `SIGNET_NEW_MASTER_KEY` instead, kept out of the process list). Prints one JSON line
 * per committed batch, then the summary.
 */
export const rotateMasterKeyCommand = async (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Promise<void> => {
  const config = loadConfig(env, [...argv], { demo: argv.includes("--demo") })
  if (config.masterKey === undefined || config.masterKey === "") {
    throw new Error("rotate-master-key needs the current key in SIGNET_MASTER_KEY (a demo database's derived key is not rotated)")
  }
  const at = argv.indexOf("--new")
  const next = at >= 0 ? argv[at + 1] : env["SIGNET_NEW_MASTER_KEY"]
  if (next === undefined || next === "")
    throw new Error("rotate-master-key needs --new <key> (or SIGNET_NEW_MASTER_KEY): 64 hex characters or base64 of 32 bytes")
  const started = performance.now()
  const batchSize = numberFlag(argv, "--batch-size")
  const pauseMs = numberFlag(argv, "--pause-ms")
  const tables = await rotateMasterKey({
    database: config.database,
    previous: parseMasterKey(config.masterKey),
    next: parseMasterKey(next),
    ...(batchSize !== undefined ? { batchSize } : {}),
    ...(pauseMs !== undefined ? { pauseMs } : {}),
    onBatch: (progress) => process.stdout.write(`${JSON.stringify({ progress })}\n`),
  })
  const summary = {
    tables,
    ms: Math.round(performance.now() - started),
    next: "start the engine with SIGNET_MASTER_KEY set to the new key; the old key opens nothing now",
  }
  process.stdout.write(`${JSON.stringify({ rotated: summary })}\n`)
}
