/** SHA-256 through the web-standard SubtleCrypto, which every supported runtime provides. */
import { Effect } from "effect"

/** SHA-256 of bytes. Pure: the same input always gives the same digest. */
export const sha256 = (data: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new Uint8Array(data))).pipe(
    Effect.map((buf) => new Uint8Array(buf)))
