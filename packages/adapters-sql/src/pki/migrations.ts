/**
 * The pki module's migrations. Frozen once released: a schema change is a new
 * migration with the next global number (see `../migrations.ts`), never an edit.
 */
import type { Migration } from "kysely"
import type { AnyDb, SqlDialect } from "../migration.ts"
import { bumpConfigEpochOn } from "../config-epoch.ts"

/** The pki module's migrations for `dialect`, by global name. */
export const pkiMigrations = (dialect: SqlDialect): Readonly<Record<string, Migration>> => ({
  // The current root and issuing CAs are read from the cache at every signature (config-epoch.ts); signer certificates are not.
  "0020_ca_config_epoch": { up: (db: AnyDb) => bumpConfigEpochOn(db, dialect, "certificates", "kind in ('root', 'issuing')") },
})
