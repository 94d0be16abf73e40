/**
 * The migrator: every module's versioned migrations, collected from the module list and run
 * in name order. Names are `NNNN_what`; the number is global across modules (a new migration
 * takes the next free one, in whichever module it belongs to) and never changes once
 * released, because existing databases record the names they have applied.
 */
import { Effect } from "effect"
import { type Kysely, type Migration, Migrator } from "kysely"
import type { Database } from "./database.ts"
import type { SqlDialect } from "./migration.ts"
import type { AnySqlModule } from "./module.ts"
import { sqlModules } from "./modules.ts"

export type { SqlDialect } from "./migration.ts"

/**
 * The migrations of `modules` for `dialect`, by name, sorted by name (the order they run in).
 * Two migrations with the same name or the same number are a programming error: it throws.
 */
export const collectMigrations = (modules: ReadonlyArray<AnySqlModule>, dialect: SqlDialect): Readonly<Record<string, Migration>> => {
  const all = new Map<string, { readonly module: string; readonly migration: Migration }>()
  const numbers = new Map<string, string>()
  for (const module of modules) {
    for (const [name, migration] of Object.entries(module.migrations(dialect))) {
      const number = /^(\d{4})_[a-z0-9_]+$/.exec(name)?.[1]
      if (number === undefined) throw new Error(`migration ${name} (module ${module.name}) is not named NNNN_what`)
      const taken = numbers.get(number)
      if (taken !== undefined) {
        throw new Error(`migration number ${number} is used twice: ${taken} (module ${all.get(taken)?.module}) and ${name} (module ${module.name})`)
      }
      numbers.set(number, name)
      all.set(name, { module: module.name, migration })
    }
  }
  return Object.fromEntries([...all.keys()].sort().map((name) => [name, all.get(name)!.migration]))
}

/** Every migration of the engine for `dialect`, by name; names sort in the order they run. */
export const migrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => collectMigrations(sqlModules, dialect)

/** Where kysely keeps its bookkeeping tables; on PostgreSQL pass the schema the tables live in. */
export interface MigrateOptions {
  readonly migrationTableSchema?: string
}

/**
 * Brings the database to the latest migration. Safe when several processes start at
 * once: kysely's migration lock (PostgreSQL advisory lock; SQLite write lock taken by the
 * dialect's `begin immediate`) serialises them and the late ones find nothing to do.
 * A failed migration is a defect: the engine must not run on a half-known schema.
 */
export const migrateToLatest = (db: Kysely<Database>, dialect: SqlDialect, options: MigrateOptions = {}): Effect.Effect<void> =>
  Effect.promise(async () => {
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations(dialect) },
      ...(options.migrationTableSchema === undefined ? {} : { migrationTableSchema: options.migrationTableSchema }),
    })
    const { error, results } = await migrator.migrateToLatest()
    if (error !== undefined) {
      const failed = results?.find((r) => r.status === "Error")?.migrationName
      throw new Error(`migration ${failed ?? "(setup)"} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
  })
