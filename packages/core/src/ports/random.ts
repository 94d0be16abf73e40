/** Randomness port: cryptographically strong bytes and ids. Effect's own `Random` is a seeded PRNG, unfit for secrets. */
import { Context, Effect } from "effect"
import { toBase64Url, toHex } from "../kernel/encoding.ts"

/** Secure randomness; the default adapter reads the runtime's CSPRNG, tests may seed it. */
export class Random extends Context.Tag("@signet/core/Random")<
  Random,
  {
    /** `length` cryptographically strong random bytes. */
    readonly bytes: (length: number) => Effect.Effect<Uint8Array>
  }
>() {}

/** A random RFC 9562 version-4 UUID. */
export const uuid: Effect.Effect<string, never, Random> = Effect.flatMap(Random, (r) => r.bytes(16)).pipe(
  Effect.map((b) => {
    b[6] = (b[6]! & 0x0f) | 0x40
    b[8] = (b[8]! & 0x3f) | 0x80
    const h = toHex(b)
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }),
)

/** A random token of `bytes` bytes, base64url (secrets, nonces, session ids). */
export const token = (bytes = 32): Effect.Effect<string, never, Random> => Effect.flatMap(Random, (r) => r.bytes(bytes)).pipe(Effect.map(toBase64Url))
