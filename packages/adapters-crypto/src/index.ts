/** @signet/adapters-crypto: Web Crypto implementations of the Random and KeyStore ports, native streaming SHA-256 and native ES256 verification. */
export * from "./random-web-crypto.ts"
export * from "./key-store-software.ts"
export * from "./vault-master-key.ts"
export * from "./es256-verifier-node.ts"
export * from "./sha256-streams-node.ts"
export * from "./sha2-streams-node.ts"
export * from "./master-key-rotation.ts"
