/** The shape of a capability module of the SQL storage: its migrations and its repositories. */
import type { Layer } from "effect"
import type { Migration } from "kysely"
import type { SqlDialect } from "./migration.ts"
import type { SqlDatabase } from "./sql-database.ts"

/**
 * What one capability brings to the SQL storage. Its tables are declared in its own
 * `tables.ts` (merged into `Database`); the module list in `modules.ts` composes the
 * migrator and the storage layer from these.
 */
export interface SqlModule<Services> {
  /** the module's name: its folder */
  readonly name: string
  /**
   * its migrations for `dialect`, by name `NNNN_what`: the number is global across modules
   * (the next free one when a migration is added) and a name never changes once released
   */
  readonly migrations: (dialect: SqlDialect) => Readonly<Record<string, Migration>>
  /** its repositories, over the database a dialect package provides */
  readonly repositories: Layer.Layer<Services, never, SqlDatabase>
}

/** The services a module's repositories provide. */
export type ServicesOf<M> = M extends SqlModule<infer S> ? S : never

/** A module without migrations of its own. */
export const noMigrations = (): Readonly<Record<string, Migration>> => ({})

/** Any module: a layer's services are contravariant, so `never` admits every module's set. */
export type AnySqlModule = SqlModule<never>
