/** Verifies a passkey assertion against a stored credential and an expected challenge. */
import { Effect, Either } from "effect"
import { InvalidRequest } from "../../kernel/errors.ts"
import {
  type ChallengeMismatch,
  type OriginMismatch,
  PasskeySignatureInvalid,
  type RpIdMismatch,
  SignatureCounterRegressed,
  type UserVerificationRequired,
} from "../errors.ts"
import { fromBase64 } from "../../kernel/encoding.ts"
import type { Passkey } from "../model.ts"
import { checkBinding, type Expectation } from "./checks.ts"
import { type AuthenticatorDataHead, base64UrlField, type ClientData, parseAuthenticatorData, parseClientData } from "./parse.ts"
import type { Assertion } from "./schemas.ts"
import { simpleWebAuthn } from "./library.ts"
import { verifyEs256Signature } from "./es256.ts"
import { Es256Verifier } from "./es256-verifier.ts"

/** What a verified assertion tells. */
export interface VerifiedAssertion {
  readonly newCounter: number
  readonly userVerified: true
}

/** Every way an assertion is refused, each with its own spec message. */
type AssertionFailure =
  | InvalidRequest
  | ChallengeMismatch
  | OriginMismatch
  | RpIdMismatch
  | UserVerificationRequired
  | PasskeySignatureInvalid
  | SignatureCounterRegressed

/** What the response says, read and checked before the signature. */
interface ReadAssertion {
  readonly clientData: ClientData
  readonly authBytes: Uint8Array
  readonly authData: AuthenticatorDataHead
  readonly signature: Uint8Array
}

/** Request shape, challenge, origin, RP id and user verification: everything but the signature, at once. */
const readAssertion = (
  assertion: Assertion,
  expected: Expectation,
): Either.Either<ReadAssertion, InvalidRequest | ChallengeMismatch | OriginMismatch | RpIdMismatch | UserVerificationRequired> => {
  if (assertion.type !== "public-key") return Either.left(new InvalidRequest({ detail: "assertion.type must be public-key" }))
  const clientData = parseClientData("assertion.response.clientDataJSON", assertion.response.clientDataJSON)
  if (Either.isLeft(clientData)) return Either.left(clientData.left)
  if (clientData.right.type !== "webauthn.get") {
    return Either.left(new InvalidRequest({ detail: "assertion.response.clientDataJSON is not from navigator.credentials.get()" }))
  }
  const authBytes = base64UrlField("assertion.response.authenticatorData", assertion.response.authenticatorData)
  if (Either.isLeft(authBytes)) return Either.left(authBytes.left)
  const authData = parseAuthenticatorData(authBytes.right, "assertion.response.authenticatorData")
  if (Either.isLeft(authData)) return Either.left(authData.left)
  const signature = base64UrlField("assertion.response.signature", assertion.response.signature)
  if (Either.isLeft(signature)) return Either.left(signature.left)
  const bound = checkBinding(clientData.right, authData.right, expected)
  if (Either.isLeft(bound)) return Either.left(bound.left)
  return Either.right({ clientData: clientData.right, authBytes: authBytes.right, authData: authData.right, signature: signature.right })
}

/**
 * Checks, in order: request shape, challenge, origin, RP id, user verification (our own
 * checks, so each maps to exactly one message), then the signature with SimpleWebAuthn,
 * then that the signature counter moved forward.
 */
export const verifyAssertion = (assertion: Assertion, passkey: Passkey, expected: Expectation): Effect.Effect<VerifiedAssertion, AssertionFailure> =>
  Effect.flatMap(Es256Verifier, (verifier): Effect.Effect<VerifiedAssertion, AssertionFailure> => {
    const read = readAssertion(assertion, expected)
    if (Either.isLeft(read)) return Effect.fail(read.left)
    const { clientData, authBytes, authData, signature } = read.right
    // Authenticators that keep no counter report 0 forever; any other value must grow.
    const counted = (): Effect.Effect<VerifiedAssertion, SignatureCounterRegressed> =>
      (passkey.counter > 0 || authData.signCount > 0) && authData.signCount <= passkey.counter
        ? Effect.fail(new SignatureCounterRegressed())
        : Effect.succeed({ newCounter: authData.signCount, userVerified: true })
    // The common case (ES256, bare authenticator data) is checked here; the library judges the rest.
    const fast: Effect.Effect<boolean | undefined> =
      passkey.algorithm === -7 && assertion.id !== "" && assertion.id === assertion.rawId && !clientData.tokenBinding
        ? verifyEs256Signature(verifier, {
            publicKey: passkey.publicKey,
            authenticatorData: authBytes,
            authenticatorDataText: assertion.response.authenticatorData,
            clientDataJSON: clientData.bytes,
            signature,
            signatureText: assertion.response.signature,
          })
        : Effect.succeed(undefined)
    return Effect.flatMap(fast, (valid) =>
      valid === false
        ? Effect.fail(new PasskeySignatureInvalid())
        : valid === true
          ? counted()
          : Effect.zipRight(verifyWithLibrary(assertion, passkey, expected), Effect.suspend(counted)),
    )
  })

/** SimpleWebAuthn's check of the signature (and again of the binding), for what the fast path leaves. */
const verifyWithLibrary = (assertion: Assertion, passkey: Passkey, expected: Expectation) =>
  Effect.gen(function* () {
    const publicKey = fromBase64(passkey.publicKey) ?? new Uint8Array()
    const { verifyAuthenticationResponse } = yield* simpleWebAuthn
    const result = yield* Effect.tryPromise({
      try: () =>
        verifyAuthenticationResponse({
          response: {
            id: assertion.id,
            rawId: assertion.rawId,
            type: "public-key",
            response: {
              authenticatorData: assertion.response.authenticatorData,
              clientDataJSON: assertion.response.clientDataJSON,
              signature: assertion.response.signature,
              ...(assertion.response.userHandle ? { userHandle: assertion.response.userHandle } : {}),
            },
            clientExtensionResults: {},
          },
          expectedChallenge: expected.challenge,
          expectedOrigin: [...expected.origins],
          expectedRPID: expected.rpId,
          // counter is judged below, with its own message
          credential: { id: passkey.id, publicKey: new Uint8Array(publicKey), counter: 0 },
          requireUserVerification: true,
        }),
      catch: () => new PasskeySignatureInvalid(),
    })
    if (!result.verified) return yield* new PasskeySignatureInvalid()
  })
