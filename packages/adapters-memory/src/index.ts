/** @signet/adapters-memory: every storage port in memory, for tests and embedders' tests. */
export { StorageMemory } from "./storage-memory.ts"
export type { StorageMemoryServices } from "./storage-memory.ts"
