/** The checks shared by both ceremonies, each failing with its own spec message. */
import { Effect } from "effect"
import { ChallengeMismatch, OriginMismatch, RpIdMismatch, UserVerificationRequired } from "../errors.ts"
import { sha256 } from "../../kernel/digest.ts"
import { constantTimeEqual, utf8 } from "../../kernel/encoding.ts"
import type { AuthenticatorDataHead, ClientData } from "./parse.ts"

/** What a ceremony expects of a response. */
export interface Expectation {
  readonly challenge: string
  readonly origins: ReadonlyArray<string>
  readonly rpId: string
}

// SHA-256 of the RP ids seen (a handful per deployment), so each check is a comparison, not a digest.
const RP_ID_HASH_LIMIT = 1024
const rpIdHashes = new Map<string, Uint8Array>()
const rpIdHashOf = (rpId: string): Effect.Effect<Uint8Array> => {
  const known = rpIdHashes.get(rpId)
  if (known !== undefined) return Effect.succeed(known)
  return sha256(utf8(rpId)).pipe(
    Effect.tap((hash) =>
      Effect.sync(() => {
        if (rpIdHashes.size >= RP_ID_HASH_LIMIT) rpIdHashes.clear()
        rpIdHashes.set(rpId, hash)
      }),
    ),
  )
}

/** Challenge, origin, RP id and user verification, in that order. */
export const checkBinding = (clientData: ClientData, authData: AuthenticatorDataHead, expected: Expectation) =>
  Effect.gen(function* () {
    if (!constantTimeEqual(utf8(clientData.challenge), utf8(expected.challenge))) return yield* new ChallengeMismatch()
    if (!expected.origins.includes(clientData.origin)) return yield* new OriginMismatch()
    const rpIdHash = yield* rpIdHashOf(expected.rpId)
    if (!constantTimeEqual(rpIdHash, authData.rpIdHash)) return yield* new RpIdMismatch()
    if (!authData.userPresent || !authData.userVerified) return yield* new UserVerificationRequired()
  })
