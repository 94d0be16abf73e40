/** Verifies a passkey registration (attestation) for an enrolment ceremony. */
import { Effect } from "effect"
import { InvalidRequest } from "../../kernel/errors.ts"
import { RegistrationRejected } from "../errors.ts"
import { toBase64Url } from "../../kernel/encoding.ts"
import { checkBinding, type Expectation } from "./checks.ts"
import { base64UrlField, parseAuthenticatorData, parseClientData } from "./parse.ts"
import type { RegistrationCredential } from "./schemas.ts"
import { simpleWebAuthn, simpleWebAuthnHelpers } from "./library.ts"

/** COSE algorithms accepted for new passkeys: ES256 and RS256. */
export const SUPPORTED_ALGORITHMS: ReadonlyArray<number> = [-7, -257]

/** What a verified registration gives the engine to store. */
export interface VerifiedRegistration {
  readonly credentialId: string
  readonly publicKey: string
  readonly algorithm: number
  readonly counter: number
  readonly transports: ReadonlyArray<string>
  readonly backedUp: boolean
}

/** Our own binding checks (challenge, origin, RP id, UV), then SimpleWebAuthn for the attestation itself. */
export const verifyRegistration = (credential: RegistrationCredential, expected: Expectation) =>
  Effect.gen(function* () {
    const clientData = yield* parseClientData("credential.response.clientDataJSON", credential.response.clientDataJSON)
    if (clientData.type !== "webauthn.create") {
      return yield* new InvalidRequest({ detail: "credential.response.clientDataJSON is not from navigator.credentials.create()" })
    }
    const { decodeAttestationObject } = yield* simpleWebAuthnHelpers
    const { verifyRegistrationResponse } = yield* simpleWebAuthn
    const attestation = yield* base64UrlField("credential.response.attestationObject", credential.response.attestationObject)
    const authBytes = yield* Effect.try({
      try: () => decodeAttestationObject(new Uint8Array(attestation)).get("authData"),
      catch: () => new InvalidRequest({ detail: "credential.response.attestationObject is not CBOR" }),
    })
    const authData = yield* parseAuthenticatorData(authBytes, "credential.response.attestationObject")
    yield* checkBinding(clientData, authData, expected)

    const result = yield* Effect.tryPromise({
      try: () =>
        verifyRegistrationResponse({
          response: {
            id: credential.id,
            rawId: credential.rawId,
            type: "public-key",
            response: {
              clientDataJSON: credential.response.clientDataJSON,
              attestationObject: credential.response.attestationObject,
            },
            clientExtensionResults: {},
          },
          expectedChallenge: expected.challenge,
          expectedOrigin: [...expected.origins],
          expectedRPID: expected.rpId,
          requireUserVerification: true,
          supportedAlgorithmIDs: [...SUPPORTED_ALGORITHMS],
        }),
      catch: (e) => new RegistrationRejected({ detail: e instanceof Error ? e.message : "attestation did not verify" }),
    })
    if (!result.verified) return yield* new RegistrationRejected({ detail: "attestation did not verify" })
    const info = result.registrationInfo
    return {
      credentialId: info.credential.id,
      publicKey: toBase64Url(info.credential.publicKey),
      algorithm: algorithmOf(credential.response.publicKeyAlgorithm, info.credential.publicKey),
      counter: info.credential.counter,
      transports: credential.response.transports ?? [],
      backedUp: info.credentialBackedUp,
    } satisfies VerifiedRegistration
  })

// COSE key map label 3 is `alg`; read it from the key when the client did not report it.
const algorithmOf = (reported: number | undefined, coseKey: Uint8Array): number => {
  if (reported !== undefined) return reported
  // ES256 EC2 keys start with map(5) {1: 2, 3: -7}; RSA with {1: 3, 3: -257}
  return coseKey[2] === 0x02 ? -7 : -257
}
