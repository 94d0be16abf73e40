/** @signet/adapters-postgres: storage on PostgreSQL and the LISTEN/NOTIFY event bus. */
export { poolConfig, SqlDatabasePostgres, StoragePostgres } from "./storage-postgres.ts"
export type { StoragePostgresOptions } from "./storage-postgres.ts"
export { channelOf, EventBusPostgres, MAX_PAYLOAD_BYTES } from "./event-bus-postgres.ts"
export type { EventBusPostgresOptions } from "./event-bus-postgres.ts"
