/** Client secrets: random, shown once, stored only as SHA-256 and compared in constant time. */
import { Effect } from "effect"
import { sha256 } from "./digest.ts"
import { constantTimeEqual, fromHex, toHex, utf8 } from "./encoding.ts"
import { token } from "../ports/random.ts"

/** SHA-256 hex of a secret. High-entropy secrets need no slow hash; passwords are never stored. */
export const hashSecret = (secret: string): Effect.Effect<string> => sha256(utf8(secret)).pipe(Effect.map(toHex))

/** Whether `secret` hashes to `storedHash`, compared in constant time. */
export const secretMatches = (secret: string, storedHash: string): Effect.Effect<boolean> =>
  sha256(utf8(secret)).pipe(Effect.map((h) => constantTimeEqual(h, fromHex(storedHash) ?? new Uint8Array())))

/** A new secret with a readable prefix (`sk_sbx_…`, `ssc_prd_…`) that tells its kind and environment. */
export const newSecret = (prefix: string) => token(32).pipe(Effect.map((t) => `${prefix}_${t}`))
