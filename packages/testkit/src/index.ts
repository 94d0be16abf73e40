/** @signet/testkit: a software passkey, a typed HTTP client, fast-check arbitraries and storage conformance suites. */
export * from "./passkey/software-passkey.ts"
export * from "./http/client.ts"
export * from "./http/flows.ts"
export * as arbitraries from "./arbitraries/index.ts"
export * from "./webhooks/receiver.ts"
export * from "./tools.ts"
export * from "./png.ts"
