/** Digests through the web-standard SubtleCrypto, which every supported runtime provides. */
import { sha256 as nobleSha256 } from "@noble/hashes/sha2"
import { Effect } from "effect"

/**
 * The digest of bytes under `algorithm` (SHA-1 only where a standard names it: OCSP certificate and
 * responder ids). Pure: the same input always gives the same digest.
 */
export const digest = (algorithm: "SHA-1" | "SHA-256" | "SHA-384" | "SHA-512", data: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.promise(() => globalThis.crypto.subtle.digest(algorithm, new Uint8Array(data))).pipe(Effect.map((buf) => new Uint8Array(buf)))

// Below this size a JavaScript SHA-256 finishes before SubtleCrypto's thread-pool round trip would start.
const SMALL = 2048

/** SHA-256 of bytes. Pure: the same input always gives the same digest. */
export const sha256 = (data: Uint8Array): Effect.Effect<Uint8Array> => (data.length <= SMALL ? Effect.sync(() => sha256Small(data)!) : digest("SHA-256", data))

/** SHA-256 of up to 2 KiB, computed at once; undefined for larger inputs (use `sha256`). */
export const sha256Small = (data: Uint8Array): Uint8Array | undefined => (data.length <= SMALL ? nobleSha256(data) : undefined)
