/** Verifies a passkey assertion against a stored credential and an expected challenge. */
import { Effect } from "effect"
import { InvalidRequest } from "../../kernel/errors.ts"
import { PasskeySignatureInvalid, SignatureCounterRegressed } from "../errors.ts"
import { fromBase64 } from "../../kernel/encoding.ts"
import type { Passkey } from "../model.ts"
import { checkBinding, type Expectation } from "./checks.ts"
import { base64UrlField, parseAuthenticatorData, parseClientData } from "./parse.ts"
import type { Assertion } from "./schemas.ts"
import { simpleWebAuthn } from "./library.ts"
import { verifyEs256Signature } from "./es256.ts"

/** What a verified assertion tells. */
export interface VerifiedAssertion {
  readonly newCounter: number
  readonly userVerified: true
}

/**
 * Checks, in order: request shape, challenge, origin, RP id, user verification (our own
 * checks, so each maps to exactly one message), then the signature with SimpleWebAuthn,
 * then that the signature counter moved forward.
 */
export const verifyAssertion = (assertion: Assertion, passkey: Passkey, expected: Expectation) =>
  Effect.gen(function* () {
    if (assertion.type !== "public-key") return yield* new InvalidRequest({ detail: "assertion.type must be public-key" })
    const clientData = yield* parseClientData("assertion.response.clientDataJSON", assertion.response.clientDataJSON)
    if (clientData.type !== "webauthn.get") {
      return yield* new InvalidRequest({ detail: "assertion.response.clientDataJSON is not from navigator.credentials.get()" })
    }
    const authBytes = yield* base64UrlField("assertion.response.authenticatorData", assertion.response.authenticatorData)
    const authData = yield* parseAuthenticatorData(authBytes, "assertion.response.authenticatorData")
    const signature = yield* base64UrlField("assertion.response.signature", assertion.response.signature)
    yield* checkBinding(clientData, authData, expected)

    // The common case (ES256, bare authenticator data) is checked here; the library judges the rest.
    const fast =
      passkey.algorithm === -7 && assertion.id !== "" && assertion.id === assertion.rawId && !clientData.tokenBinding
        ? yield* verifyEs256Signature({
            publicKey: passkey.publicKey,
            authenticatorData: authBytes,
            authenticatorDataText: assertion.response.authenticatorData,
            clientDataJSON: clientData.bytes,
            signature,
            signatureText: assertion.response.signature,
          })
        : undefined
    if (fast === false) return yield* new PasskeySignatureInvalid()
    if (fast === undefined) yield* verifyWithLibrary(assertion, passkey, expected)
    // Authenticators that keep no counter report 0 forever; any other value must grow.
    if ((passkey.counter > 0 || authData.signCount > 0) && authData.signCount <= passkey.counter) {
      return yield* new SignatureCounterRegressed()
    }
    return { newCounter: authData.signCount, userVerified: true } satisfies VerifiedAssertion
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
