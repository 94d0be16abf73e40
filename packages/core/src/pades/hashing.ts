/**
 * Streaming SHA-256 for byte ranges of any size. Web Crypto has no incremental digest, so the
 * core's default is a pure-JavaScript one (@noble/hashes); hosts provide a faster native one
 * (the Node adapter uses `node:crypto`) through this reference.
 */
import { sha256 } from "@noble/hashes/sha2"
import { Context } from "effect"

/** An incremental SHA-256. */
export interface Sha256Stream {
  readonly update: (bytes: Uint8Array) => void
  readonly digest: () => Uint8Array
}

/** Makes incremental SHA-256 hashers; defaults to the pure-JavaScript one. */
export class Sha256Streams extends Context.Reference<Sha256Streams>()("@signet/core/Sha256Streams", {
  defaultValue: (): { readonly create: () => Sha256Stream } => ({
    create: () => {
      const h = sha256.create()
      return { update: (b) => void h.update(b), digest: () => h.digest() }
    },
  }),
}) {}
