/** `Sha256Streams` from `node:crypto`: native (SHA-NI) hashing of PDF byte ranges, many times the pure-JS default. */
import { createHash } from "node:crypto"
import { Sha256Streams } from "@signet/core"
import { Layer } from "effect"

/** Incremental SHA-256 by OpenSSL, for hosts on Node. */
export const Sha256StreamsNode: Layer.Layer<Sha256Streams> = Layer.succeed(Sha256Streams, {
  create: () => {
    const hash = createHash("sha256")
    return { update: (bytes) => void hash.update(bytes), digest: () => new Uint8Array(hash.digest()) }
  },
})
