/**
 * `@signet/client`: a typed client for relying parties of Signet. The engine's OpenAPI types with
 * openapi-fetch, helpers for the three RP flows (signing token → frame; hash signing with callback or
 * events; KYC start → verdict), a Standard Webhooks verifier, and an event-stream consumer with resume.
 */
export * from "./client.ts"
export * from "./events.ts"
export * from "./kyc.ts"
export type { components, operations, paths } from "./openapi.ts"
export * from "./signing.ts"
export * from "./ssc.ts"
export * from "./webhooks.ts"
