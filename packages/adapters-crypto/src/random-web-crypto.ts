/** `Random` from the runtime's CSPRNG (Web Crypto `getRandomValues`). */
import { Random } from "@signet/core"
import { Effect, Layer } from "effect"

/** Bytes drawn from the CSPRNG at once; a request asks for a few ids and nonces of 16 to 32 bytes. */
const POOL = 4096

/**
 * Cryptographically strong randomness for secrets, nonces and ids. Small draws are served from
 * a pool refilled 4 KiB at a time (one call into the CSPRNG instead of one per id, as Node's
 * `randomUUID` does); each byte is handed out once, and a draw is a copy, never a view of the pool.
 */
export const RandomWebCrypto: Layer.Layer<Random> = Layer.sync(Random, () => {
  let pool = new Uint8Array(0)
  let at = 0
  return {
    bytes: (length) =>
      Effect.sync(() => {
        if (length > POOL / 8) return globalThis.crypto.getRandomValues(new Uint8Array(length))
        if (at + length > pool.length) {
          pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL))
          at = 0
        }
        const drawn = pool.slice(at, at + length)
        // The pool's copy is wiped: a drawn secret does not stay behind in memory.
        pool.fill(0, at, at + length)
        at += length
        return drawn
      }),
  }
})
