/** The checks shared by both ceremonies, each failing with its own spec message. */
import { sha256 } from "@noble/hashes/sha2"
import { Either } from "effect"
import { ChallengeMismatch, OriginMismatch, RpIdMismatch, UserVerificationRequired } from "../errors.ts"
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
const rpIdHashOf = (rpId: string): Uint8Array => {
  const known = rpIdHashes.get(rpId)
  if (known !== undefined) return known
  // An RP id is the deployment's own host name (at most 253 bytes), hashed once, in this thread.
  const hash = sha256(utf8(rpId))
  if (rpIdHashes.size >= RP_ID_HASH_LIMIT) rpIdHashes.clear()
  rpIdHashes.set(rpId, hash)
  return hash
}

/** Challenge, origin, RP id and user verification, in that order. */
export const checkBinding = (
  clientData: ClientData,
  authData: AuthenticatorDataHead,
  expected: Expectation,
): Either.Either<void, ChallengeMismatch | OriginMismatch | RpIdMismatch | UserVerificationRequired> => {
  if (!constantTimeEqual(utf8(clientData.challenge), utf8(expected.challenge))) return Either.left(new ChallengeMismatch())
  if (!expected.origins.includes(clientData.origin)) return Either.left(new OriginMismatch())
  if (!constantTimeEqual(rpIdHashOf(expected.rpId), authData.rpIdHash)) return Either.left(new RpIdMismatch())
  if (!authData.userPresent || !authData.userVerified) return Either.left(new UserVerificationRequired())
  return Either.void
}
