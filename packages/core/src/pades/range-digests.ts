/**
 * The byte ranges of a signature hashed with every SHA-2 digest its CMS may name, in one pass:
 * the scan runs in a PDF worker that imports no PKI, so it cannot read which one the SignerInfo
 * names; it hashes with each whose object identifier occurs in the CMS (SHA-256 always).
 */
import { Effect } from "effect"
import type { ByteSource } from "./byte-source.ts"
import { PdfUnreadable } from "./errors.ts"
import { type RangeDigestAlgorithm, type Sha256Stream, Sha256Streams, Sha2Streams } from "./hashing.ts"

const CHUNK = 1 << 20

// DER of the id-sha384 and id-sha512 object identifiers (2.16.840.1.101.3.4.2.2 / .3), tag and length included.
const OID_PREFIX = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02]

const names = (cms: Uint8Array, last: number): boolean => {
  outer: for (let i = 0; i + OID_PREFIX.length < cms.length; i++) {
    for (let j = 0; j < OID_PREFIX.length; j++) if (cms[i + j] !== OID_PREFIX[j]) continue outer
    if (cms[i + OID_PREFIX.length] === last) return true
  }
  return false
}

/** SHA-256, and SHA-384 / SHA-512 when their identifiers occur in `cms`. */
export const digestAlgorithmsNamedIn = (cms: Uint8Array): ReadonlyArray<RangeDigestAlgorithm> => [
  "SHA-256",
  ...(names(cms, 0x02) ? (["SHA-384"] as const) : []),
  ...(names(cms, 0x03) ? (["SHA-512"] as const) : []),
]

/** The digests of `ranges` of `source` with each of `algorithms`, reading the bytes once. */
export const hashRangesWith = (
  source: ByteSource,
  ranges: ReadonlyArray<readonly [number, number]>,
  algorithms: ReadonlyArray<RangeDigestAlgorithm>,
): Effect.Effect<Partial<Record<RangeDigestAlgorithm, Uint8Array>>, PdfUnreadable> =>
  Effect.gen(function* () {
    const sha256 = yield* Sha256Streams
    const sha2 = yield* Sha2Streams
    const hashers: Array<[RangeDigestAlgorithm, Sha256Stream]> = algorithms.map((a) => [a, a === "SHA-256" ? sha256.create() : sha2.create(a)])
    const read = source.readTransient ?? source.read
    for (const [offset, length] of ranges) {
      if (offset < 0 || length < 0 || offset + length > source.size) return yield* new PdfUnreadable({ detail: "a byte range outside the file" })
      for (let at = offset; at < offset + length; at += CHUNK) {
        const bytes = yield* read(at, Math.min(CHUNK, offset + length - at))
        for (const [, hasher] of hashers) hasher.update(bytes)
      }
    }
    return Object.fromEntries(hashers.map(([a, h]) => [a, h.digest()]))
  })
