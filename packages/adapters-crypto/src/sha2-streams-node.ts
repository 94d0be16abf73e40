/** `Sha2Streams` from `node:crypto`: native SHA-384 and SHA-512 of PDF byte ranges, for signatures that name them. */
import { createHash } from "node:crypto"
import { Sha2Streams } from "@signet/core"
import { Layer } from "effect"

/** Incremental SHA-384 and SHA-512 by OpenSSL, for hosts on Node. */
export const Sha2StreamsNode: Layer.Layer<Sha2Streams> = Layer.succeed(Sha2Streams, {
  create: (algorithm) => {
    const hash = createHash(algorithm === "SHA-384" ? "sha384" : "sha512")
    return { update: (bytes) => void hash.update(bytes), digest: () => new Uint8Array(hash.digest()) }
  },
})
