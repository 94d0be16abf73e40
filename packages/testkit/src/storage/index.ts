/** Storage test kit: the storage contract suite, sample aggregates and PostgreSQL test helpers. */
export { storageConformance } from "./conformance.ts"
export type { StorageTags } from "./conformance.ts"
export {
  bareRelyingParty,
  FAR_FUTURE_MS,
  sampleCeremony,
  sampleHostedSession,
  samplePasskey,
  sampleRelyingParty,
  sampleStoredKey,
  samplePlanSubscription,
  sampleUser,
} from "./fixtures.ts"
export {
  describePostgres,
  dropSchema,
  findPostgres,
  freshSchemaName,
  listTestSchemas,
  LOCAL_POSTGRES_CANDIDATES,
  probePostgres,
  withFreshSchema,
} from "./postgres.ts"
export type { PostgresTestTarget } from "./postgres.ts"
