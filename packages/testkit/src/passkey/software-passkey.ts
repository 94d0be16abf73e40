/**
 * A software passkey: a virtual WebAuthn platform authenticator plus the browser glue
 * around it. It makes real keys, real CBOR and real signatures so that server code can
 * be tested end to end against `@simplewebauthn/server` without a browser, and it can
 * break exactly one check on request (see {@link PasskeyFault}) to prove each check is enforced.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto"
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server"
import { encodeCbor } from "./cbor.ts"

/** Signature algorithm of the passkey's key pair. */
export type PasskeyAlgorithm = "ES256" | "RS256"

/** Switches that each break exactly one check of an assertion (or registration). */
export type PasskeyFault =
  | "wrongOrigin" // clientDataJSON.origin is https://evil.example
  | "wrongRpId" // rpIdHash is SHA-256("evil.example")
  | "noUserVerification" // UV flag cleared, UP still set
  | "badSignature" // well-formed signature over other bytes
  | "otherChallenge" // clientDataJSON.challenge is a fresh random value
  | "unregisteredCredential" // fresh key pair and credential id the server never saw
  | "counterBackwards" // signCount 0, below every genuine count

/** Every fault, for tests that iterate over all of them. */
export const passkeyFaults: ReadonlyArray<PasskeyFault> = [
  "wrongOrigin",
  "wrongRpId",
  "noUserVerification",
  "badSignature",
  "otherChallenge",
  "unregisteredCredential",
  "counterBackwards",
]

/** Faults that make sense for a registration ("none" attestation carries no signature or counter history). */
export const registrationFaults: ReadonlyArray<PasskeyFault> = ["wrongOrigin", "wrongRpId", "noUserVerification", "otherChallenge"]

/** How to build a {@link SoftwarePasskey}. */
export interface SoftwarePasskeyOptions {
  readonly origin: string
  readonly algorithm?: PasskeyAlgorithm
}

/** The parts of PublicKeyCredentialCreationOptionsJSON the authenticator reads. */
export interface PasskeyCreationOptions {
  readonly challenge: string
  readonly rp: { readonly id?: string; readonly name: string }
  readonly user: { readonly id: string; readonly name: string; readonly displayName: string }
  readonly pubKeyCredParams?: ReadonlyArray<{ readonly alg: number; readonly type: string }>
}

/** The parts of PublicKeyCredentialRequestOptionsJSON the authenticator reads. */
export interface PasskeyRequestOptions {
  readonly challenge: string
  readonly rpId?: string
}

/** Per-call switches for {@link SoftwarePasskey.assert}. */
export interface PasskeyAssertOptions {
  readonly fault?: PasskeyFault
  readonly includeUserHandle?: boolean
  /** Members written after the ones WebAuthn names, as browsers may add (Chrome adds one); a relying party ignores them. */
  readonly extraClientData?: Readonly<Record<string, string>>
}

/** The foreign relying party used by the origin and RP-ID faults. */
const EVIL_HOST = "evil.example"

/** COSE algorithm identifiers (IANA), as WebAuthn reports them. */
const COSE_ALG: Readonly<Record<PasskeyAlgorithm, number>> = { ES256: -7, RS256: -257 }

// Authenticator data flag bits (WebAuthn §6.1).
const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_AT = 0x40

/** A platform authenticator's AAGUID is irrelevant for "none" attestation; all zeros is what browsers send then. */
const ZERO_AAGUID = new Uint8Array(16)

const sha256 = (data: Uint8Array | string): Uint8Array => new Uint8Array(createHash("sha256").update(data).digest())

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")

const fromB64url = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "base64url"))

const concat = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => new Uint8Array(Buffer.concat(parts))

const uint32BE = (n: number): Uint8Array => {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setUint32(0, n)
  return out
}

const uint16BE = (n: number): Uint8Array => {
  const out = new Uint8Array(2)
  new DataView(out.buffer).setUint16(0, n)
  return out
}

interface Credential {
  readonly id: Uint8Array
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
}

const newCredential = (algorithm: PasskeyAlgorithm): Credential => {
  const { privateKey, publicKey } =
    algorithm === "ES256" ? generateKeyPairSync("ec", { namedCurve: "P-256" }) : generateKeyPairSync("rsa", { modulusLength: 2048, publicExponent: 0x10001 })
  // 32 random bytes: unguessable and the size real platform authenticators commonly use.
  return { id: new Uint8Array(randomBytes(32)), privateKey, publicKey }
}

const jwkPart = (value: string | undefined, name: string): Uint8Array => {
  if (value === undefined) throw new Error(`exported JWK lacks "${name}"`)
  return fromB64url(value)
}

/** The credential public key as a COSE_Key map, in CTAP2 canonical key order. */
const coseKey = (algorithm: PasskeyAlgorithm, publicKey: KeyObject): Uint8Array => {
  const jwk = publicKey.export({ format: "jwk" })
  if (algorithm === "ES256") {
    // kty 1 = 2 (EC2), alg 3 = -7, crv -1 = 1 (P-256), x -2, y -3
    return encodeCbor(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, COSE_ALG.ES256],
        [-1, 1],
        [-2, jwkPart(jwk.x, "x")],
        [-3, jwkPart(jwk.y, "y")],
      ]),
    )
  }
  // kty 1 = 3 (RSA), alg 3 = -257, n -1, e -2
  return encodeCbor(
    new Map<number, number | Uint8Array>([
      [1, 3],
      [3, COSE_ALG.RS256],
      [-1, jwkPart(jwk.n, "n")],
      [-2, jwkPart(jwk.e, "e")],
    ]),
  )
}

/** ES256 comes out DER-encoded (node's default), which is what WebAuthn expects; RSA defaults to PKCS#1 v1.5. */
const signWith = (privateKey: KeyObject, data: Uint8Array): Uint8Array => new Uint8Array(sign("sha256", data, privateKey))

const otherOrigin = (origin: string): string => (new URL(origin).hostname === EVIL_HOST ? "https://not-" + EVIL_HOST : "https://" + EVIL_HOST)

const otherRpId = (rpId: string): string => (rpId === EVIL_HOST ? "not-" + EVIL_HOST : EVIL_HOST)

/** Everything a passkey holds, as plain JSON: to hand it to another process (a load generator, say). */
export interface SoftwarePasskeyState {
  readonly origin: string
  readonly algorithm: PasskeyAlgorithm
  /** base64url credential id */
  readonly credentialId: string
  /** base64url PKCS#8 DER of the private key */
  readonly privateKey: string
  readonly signCount: number
  readonly rpId: string | undefined
  readonly userHandle: string | undefined
}

/** A virtual WebAuthn platform authenticator holding one credential. */
export class SoftwarePasskey {
  /** Makes a passkey with a fresh key pair and credential id (RSA key generation takes a moment). */
  static create(options: SoftwarePasskeyOptions): SoftwarePasskey {
    return new SoftwarePasskey(options.origin, options.algorithm ?? "ES256")
  }

  /** The passkey an `export()` describes; the two must not both sign afterwards (their counters would collide). */
  static restore(state: SoftwarePasskeyState): SoftwarePasskey {
    const privateKey = createPrivateKey({ key: Buffer.from(state.privateKey, "base64url"), format: "der", type: "pkcs8" })
    const passkey = new SoftwarePasskey(state.origin, state.algorithm, {
      id: new Uint8Array(Buffer.from(state.credentialId, "base64url")),
      privateKey,
      publicKey: createPublicKey(privateKey),
    })
    passkey.#signCount = state.signCount
    passkey.#rpId = state.rpId
    passkey.#userHandle = state.userHandle
    return passkey
  }

  /** The origin the simulated browser page runs on. */
  readonly origin: string
  /** The algorithm of this passkey's key pair. */
  readonly algorithm: PasskeyAlgorithm

  readonly #credential: Credential
  #signCount = 0
  #rpId: string | undefined
  #userHandle: string | undefined

  private constructor(origin: string, algorithm: PasskeyAlgorithm, credential?: Credential) {
    this.origin = origin
    this.algorithm = algorithm
    this.#credential = credential ?? newCredential(algorithm)
  }

  /** This passkey's key, credential id, counter and registration, as JSON (see `restore`). */
  export(): SoftwarePasskeyState {
    return {
      origin: this.origin,
      algorithm: this.algorithm,
      credentialId: this.credentialId,
      privateKey: this.#credential.privateKey.export({ format: "der", type: "pkcs8" }).toString("base64url"),
      signCount: this.#signCount,
      rpId: this.#rpId,
      userHandle: this.#userHandle,
    }
  }

  /** Base64url credential id; generated up front, so stable before and after register(). */
  get credentialId(): string {
    return b64url(this.#credential.id)
  }

  /** Signature counter of the last genuine (fault-free) response; 0 before registration. */
  get counter(): number {
    return this.#signCount
  }

  /** Answers navigator.credentials.create() with "none" attestation; faults leave the passkey's state as it was. */
  register(options: PasskeyCreationOptions, fault?: PasskeyFault): RegistrationResponseJSON {
    if (fault !== undefined && !registrationFaults.includes(fault)) {
      // A silently ignored fault would let a test pass for the wrong reason.
      throw new Error(`fault "${fault}" does not apply to registration`)
    }
    const alg = COSE_ALG[this.algorithm]
    const params = options.pubKeyCredParams
    if (params !== undefined && params.length > 0 && !params.some((p) => p.type === "public-key" && p.alg === alg)) {
      // What a browser does when no requested algorithm is supported (NotSupportedError).
      throw new Error(`relying party does not accept ${this.algorithm} (COSE ${alg})`)
    }
    const rpId = options.rp.id ?? new URL(this.origin).hostname
    const signCount = this.#signCount + 1

    const clientDataJSON = this.#clientData("webauthn.create", options.challenge, fault)
    const cose = coseKey(this.algorithm, this.#credential.publicKey)
    const authData = concat(
      sha256(fault === "wrongRpId" ? otherRpId(rpId) : rpId),
      Uint8Array.of(FLAG_UP | FLAG_AT | (fault === "noUserVerification" ? 0 : FLAG_UV)),
      uint32BE(signCount),
      ZERO_AAGUID,
      uint16BE(this.#credential.id.length),
      this.#credential.id,
      cose,
    )
    // CTAP2 canonical order: shorter keys first ("fmt", "attStmt", "authData").
    const attestationObject = encodeCbor(
      new Map<string, string | Uint8Array | ReadonlyMap<string, never>>([
        ["fmt", "none"],
        ["attStmt", new Map<string, never>()],
        ["authData", authData],
      ]),
    )

    if (fault === undefined) {
      this.#signCount = signCount
      this.#rpId = rpId
      this.#userHandle = options.user.id
    }
    const spki = new Uint8Array(this.#credential.publicKey.export({ format: "der", type: "spki" }))
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        authenticatorData: b64url(authData),
        transports: ["internal"],
        publicKeyAlgorithm: alg,
        publicKey: b64url(spki),
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    }
  }

  /** Answers navigator.credentials.get(); only a fault-free assertion advances the counter. */
  assert(options: PasskeyRequestOptions, opts?: PasskeyAssertOptions): AuthenticationResponseJSON {
    const fault = opts?.fault
    const registeredRpId = this.#rpId
    if (registeredRpId === undefined && fault !== "unregisteredCredential") {
      throw new Error("assert() before a successful register(): this passkey holds no registered credential")
    }
    const rpId = options.rpId ?? registeredRpId ?? new URL(this.origin).hostname
    const credential = fault === "unregisteredCredential" ? newCredential(this.algorithm) : this.#credential

    // counterBackwards: 0 is below every genuine count (they start at 1), as a cloned or reset authenticator reports.
    // Other faults send the next count so that the counter is not a second broken check.
    const signCount = fault === "counterBackwards" ? 0 : this.#signCount + 1

    const clientDataJSON = this.#clientData("webauthn.get", options.challenge, fault, opts?.extraClientData)
    const authData = concat(
      sha256(fault === "wrongRpId" ? otherRpId(rpId) : rpId),
      Uint8Array.of(FLAG_UP | (fault === "noUserVerification" ? 0 : FLAG_UV)),
      uint32BE(signCount),
    )
    const signed = concat(authData, sha256(clientDataJSON))
    // badSignature: a well-formed signature by the right key, over bytes the verifier will not reconstruct.
    const signature = signWith(credential.privateKey, fault === "badSignature" ? concat(signed, new TextEncoder().encode("tampered")) : signed)

    if (fault === undefined) this.#signCount = signCount
    const id = b64url(credential.id)
    const userHandle = opts?.includeUserHandle === false ? undefined : this.#userHandle
    return {
      id,
      rawId: id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle === undefined ? {} : { userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    }
  }

  /** Builds clientDataJSON with the member order browsers use. */
  #clientData(
    type: "webauthn.create" | "webauthn.get",
    challenge: string,
    fault: PasskeyFault | undefined,
    extra: Readonly<Record<string, string>> = {},
  ): Uint8Array {
    const json = JSON.stringify({
      type,
      // a browser writes the challenge's bytes as base64url, whatever encoding the RP was given them in
      challenge:
        fault === "otherChallenge"
          ? b64url(new Uint8Array(randomBytes(32)))
          : /[+/=]/.test(challenge)
            ? b64url(new Uint8Array(Buffer.from(challenge, "base64")))
            : challenge,
      origin: fault === "wrongOrigin" ? otherOrigin(this.origin) : this.origin,
      crossOrigin: false,
      ...extra,
    })
    return new TextEncoder().encode(json)
  }
}
