/**
 * Streaming SHA-256 for byte ranges of any size. Web Crypto has no incremental digest, so the
 * core's default is a pure-JavaScript one (@noble/hashes); hosts provide a faster native one
 * (the Node adapter uses `node:crypto`) through this reference.
 */
import { sha256, sha384, sha512 } from "@noble/hashes/sha2"
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

/** The SHA-2 hashes a signature may name for its byte ranges. */
export type RangeDigestAlgorithm = "SHA-256" | "SHA-384" | "SHA-512"

/**
 * Makes incremental SHA-384 and SHA-512 hashers (SHA-256 goes through `Sha256Streams`), for
 * signatures that name them; defaults to the pure-JavaScript ones, hosts provide native ones.
 */
export class Sha2Streams extends Context.Reference<Sha2Streams>()("@signet/core/Sha2Streams", {
  defaultValue: (): { readonly create: (algorithm: "SHA-384" | "SHA-512") => Sha256Stream } => ({
    create: (algorithm) => {
      const h = algorithm === "SHA-384" ? sha384.create() : sha512.create()
      return { update: (b) => void h.update(b), digest: () => h.digest() }
    },
  }),
}) {}
