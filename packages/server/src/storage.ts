/** Picks the storage adapter from the database setting: a `postgres://` URL or a SQLite file. */
import { StoragePostgres, EventBusPostgres } from "@signet/adapters-postgres"
import { StorageSqlite } from "@signet/adapters-sqlite"
import { EventBusInProcess, type EventBus } from "@signet/core"
import type { Layer } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import type { StorageServices } from "@signet/adapters-http"

/** Storage and event bus for a database setting. SQLite runs one node (in-process bus); PostgreSQL many (LISTEN/NOTIFY). */
export const storageFor = (
  database: string,
): { readonly storage: Layer.Layer<StorageServices, unknown>; readonly eventBus: Layer.Layer<EventBus, unknown> } => {
  if (/^postgres(ql)?:\/\//.test(database)) {
    return { storage: StoragePostgres({ connectionString: database }), eventBus: EventBusPostgres({ connectionString: database }) }
  }
  if (database !== ":memory:") mkdirSync(dirname(database), { recursive: true })
  return { storage: StorageSqlite({ filename: database }), eventBus: EventBusInProcess }
}
