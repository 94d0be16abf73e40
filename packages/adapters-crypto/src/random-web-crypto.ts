/** `Random` from the runtime's CSPRNG (Web Crypto `getRandomValues`). */
import { Random } from "@signet/core"
import { Effect, Layer } from "effect"

/** Cryptographically strong randomness for secrets, nonces and ids. */
export const RandomWebCrypto: Layer.Layer<Random> = Layer.succeed(Random, {
  bytes: (length) => Effect.sync(() => globalThis.crypto.getRandomValues(new Uint8Array(length))),
})
