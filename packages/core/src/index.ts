/**
 * @signet/core: the pure domain of the engine, by capability. Ports are Context tags; adapters live in
 * other packages. Each capability's `index.ts` lists its public names; they are also importable from
 * the subpaths `@signet/core/<capability>`.
 */
export * from "./kernel/index.ts"
export { CATALOGUE, isCatalogued } from "./errors/catalogue.ts"
export type { CataloguedError } from "./errors/catalogue.ts"
export * from "./identity/index.ts"
export * from "./rp/index.ts"
export * from "./authorization/index.ts"
export * from "./signing/index.ts"
export * from "./ssc/index.ts"
export * from "./events/index.ts"
export * from "./kyc/index.ts"
export * from "./pki/index.ts"
export * from "./pades/index.ts"
export * from "./documents/index.ts"
export * from "./billing/index.ts"
export * from "./oidc/index.ts"
export * from "./identity-providers/index.ts"
export { housekeeping, housekeepingRound } from "./housekeeping.ts"
