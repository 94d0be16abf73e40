/** Every storage port over one SQL database, shared by SQLite and PostgreSQL, composed from the module list. */
import { Layer } from "effect"
import type { AnySqlModule, ServicesOf } from "./module.ts"
import { sqlModules } from "./modules.ts"
import type { SqlDatabase } from "./sql-database.ts"

/** Every tag the storage adapters provide: the union of the modules' repositories. */
export type StorageServices = ServicesOf<(typeof sqlModules)[number]>

const modules: ReadonlyArray<AnySqlModule> = sqlModules

/** The unit of work and every repository, over the `SqlDatabase` a dialect package provides. */
export const SqlStorageLive: Layer.Layer<StorageServices, never, SqlDatabase> = modules
  .map((module) => module.repositories)
  // Merging a list loses the per-element types; what the merge provides is the union of the
  // modules' services, which is `StorageServices` by definition (computed from the same list).
  .reduce((all, layer) => Layer.merge(all, layer), Layer.empty) as Layer.Layer<StorageServices, never, SqlDatabase>
