/** KeyStore port: signing and decryption keys whose private half never leaves the store. */
import { Context, type Effect, type Option, Schema } from "effect"
import type { UniqueViolation } from "./storage.ts"

/**
 * Key types the store holds: ECDSA P-256 signing keys, RSA-2048 RSASSA-PKCS1-v1_5 signing keys
 * (`RS256`, the ID-token algorithm OpenID Connect requires) and RSA-OAEP 2048 decryption (key transport) keys.
 */
export const KeyAlgorithm = Schema.Literal("ES256", "RS256", "RSA-OAEP-2048")
/** Key types the store holds. */
export type KeyAlgorithm = typeof KeyAlgorithm.Type

/** Public facts about a stored key. */
export interface KeyInfo {
  readonly keyId: string
  readonly algorithm: KeyAlgorithm
  /** Public key as a JWK (kty, crv, x, y). */
  readonly publicJwk: { readonly kty: string; readonly crv?: string; readonly x?: string; readonly y?: string; readonly n?: string; readonly e?: string }
  readonly createdAt: number
}

/** The hash an ECDSA signature is made over (CMS signs with the hash of its digest algorithm). */
export type SignatureHash = "SHA-256" | "SHA-384" | "SHA-512"

/** The hash of RSAES-OAEP (its MGF1 uses the same hash, as WebCrypto requires). */
export type OaepHash = "SHA-1" | "SHA-256" | "SHA-384" | "SHA-512"

/** The ciphertext does not decrypt under the key (wrong key, altered, or not RSAES-OAEP with that hash). */
export class KeyDecryptionFailed extends Schema.TaggedError<KeyDecryptionFailed>()("KeyDecryptionFailed", { keyId: Schema.String }) {}

/** The key id is unknown to the store. */
export class KeyNotFound extends Schema.TaggedError<KeyNotFound>()("KeyNotFound", { keyId: Schema.String }) {}

/** Creates keys, tells their public half and signs with them. */
export class KeyStore extends Context.Tag("@signet/core/KeyStore")<
  KeyStore,
  {
    /** Creates the key if `keyId` is new; returns the existing key otherwise (idempotent under races). */
    readonly ensure: (keyId: string, algorithm: KeyAlgorithm) => Effect.Effect<KeyInfo>
    /** Public facts of a key. */
    readonly get: (keyId: string) => Effect.Effect<KeyInfo, KeyNotFound>
    /**
     * Signs `data` over its hash (SHA-256 unless told): with an `ES256` key the IEEE P1363 (r||s) ECDSA
     * signature, with an `RS256` key the RSASSA-PKCS1-v1_5 signature, as JWS and WebCrypto give them.
     */
    readonly sign: (keyId: string, data: Uint8Array, hash?: SignatureHash) => Effect.Effect<Uint8Array, KeyNotFound>
    /** Decrypts an RSAES-OAEP ciphertext (a wrapped content-encryption key) with an `RSA-OAEP-2048` key. */
    readonly decrypt: (keyId: string, ciphertext: Uint8Array, hash: OaepHash) => Effect.Effect<Uint8Array, KeyNotFound | KeyDecryptionFailed>
  }
>() {}

/** A private key as the software KeyStore keeps it: encrypted, never in the clear. */
export interface StoredKey {
  readonly keyId: string
  readonly algorithm: string
  /** JSON of the public JWK */
  readonly publicJwk: string
  /** base64 of AES-GCM(iv || ciphertext) of the PKCS#8 private key, under the master key */
  readonly encryptedPrivateKey: string
  readonly createdAt: number
}

/** Encrypted key records for the software KeyStore. */
export class KeyRecords extends Context.Tag("@signet/core/KeyRecords")<
  KeyRecords,
  {
    readonly insert: (key: StoredKey) => Effect.Effect<void, UniqueViolation>
    readonly findById: (keyId: string) => Effect.Effect<Option.Option<StoredKey>>
    /** Every key, oldest first. */
    readonly list: () => Effect.Effect<ReadonlyArray<StoredKey>>
  }
>() {}
