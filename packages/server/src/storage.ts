/** Picks the storage adapter from the database setting: a `postgres://` URL or a SQLite file. */
import { StoragePostgres, EventBusPostgres } from "@signet/adapters-postgres"
import { StorageSqlite } from "@signet/adapters-sqlite"
import { EventBusInProcess, type EventBus } from "@signet/core"
import type { Layer } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import type { StorageServices } from "@signet/adapters-http"
import { EventBusWorkers } from "./cluster.ts"
import { isPostgresUrl } from "./config.ts"

/**
 * Storage and event bus for a database setting. PostgreSQL: LISTEN/NOTIFY, across every process and
 * node; the storage opens at most `pool` connections (StoragePostgres's default, 10, without it) and
 * names its statements unless `preparedStatements` is false.
 * SQLite: one machine; the in-process bus, or with `workers` the bus the cluster's primary relays.
 */
export const storageFor = (
  database: string,
  options: { readonly workers?: boolean; readonly pool?: number | undefined; readonly preparedStatements?: boolean | undefined } = {},
): { readonly storage: Layer.Layer<StorageServices, unknown>; readonly eventBus: Layer.Layer<EventBus, unknown> } => {
  if (isPostgresUrl(database)) {
    const storage = StoragePostgres({
      connectionString: database,
      ...(options.pool === undefined ? {} : { maxConnections: options.pool }),
      ...(options.preparedStatements === undefined ? {} : { preparedStatements: options.preparedStatements }),
    })
    return { storage, eventBus: EventBusPostgres({ connectionString: database }) }
  }
  if (database !== ":memory:") mkdirSync(dirname(database), { recursive: true })
  return { storage: StorageSqlite({ filename: database }), eventBus: options.workers === true ? EventBusWorkers : EventBusInProcess }
}
