/** @signet/adapters-crypto: Web Crypto implementations of the Random and KeyStore ports. */
export * from "./random-web-crypto.ts"
export * from "./key-store-software.ts"
export * from "./vault-master-key.ts"
