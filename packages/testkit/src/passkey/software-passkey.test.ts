import { describe, it, expect } from "vitest"
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type WebAuthnCredential,
} from "@simplewebauthn/server"
import { cose, decodeAttestationObject, decodeCredentialPublicKey, isoBase64URL, parseAuthenticatorData } from "@simplewebauthn/server/helpers"
import { SoftwarePasskey, passkeyFaults, registrationFaults, type PasskeyAlgorithm, type PasskeyFault } from "./software-passkey.ts"

const ORIGIN = "http://localhost:3000"
const RP_ID = "localhost"

const registrationOptions = () =>
  generateRegistrationOptions({
    rpName: "Signet test",
    rpID: RP_ID,
    userName: "alice@example.com",
    userDisplayName: "Alice",
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  })

/** Registers a fresh passkey with the real verifier and returns what a server would store. */
const registered = async (algorithm: PasskeyAlgorithm) => {
  const passkey = SoftwarePasskey.create({ origin: ORIGIN, algorithm })
  const options = await registrationOptions()
  const verification = await verifyRegistrationResponse({
    response: passkey.register(options),
    expectedChallenge: options.challenge,
    expectedOrigin: ORIGIN,
    expectedRPID: RP_ID,
    requireUserVerification: true,
    supportedAlgorithmIDs: [-7, -257],
  })
  if (!verification.verified) throw new Error("registration not verified")
  const { id, publicKey, counter } = verification.registrationInfo.credential
  const credential: WebAuthnCredential = { id, publicKey, counter }
  return { passkey, credential, userId: options.user.id }
}

/** Verifies an assertion as a server would; `relax` loosens one check to show a fault breaks only that one. */
const verifyAssertion = (
  response: AuthenticationResponseJSON,
  challenge: string,
  credential: WebAuthnCredential,
  relax?: { origin?: boolean; rpId?: boolean; challenge?: boolean; uv?: boolean },
) =>
  verifyAuthenticationResponse({
    response,
    expectedChallenge: relax?.challenge === true ? () => true : challenge,
    expectedOrigin: relax?.origin === true ? [ORIGIN, "https://evil.example"] : ORIGIN,
    expectedRPID: relax?.rpId === true ? [RP_ID, "evil.example"] : RP_ID,
    credential,
    requireUserVerification: relax?.uv !== true,
  })

const challenge = async () => (await generateAuthenticationOptions({ rpID: RP_ID })).challenge

describe.each<PasskeyAlgorithm>(["ES256", "RS256"])("SoftwarePasskey %s", (algorithm) => {
  const coseAlg = algorithm === "ES256" ? cose.COSEALG.ES256 : cose.COSEALG.RS256

  it("registers a credential the real verifier accepts", async () => {
    const passkey = SoftwarePasskey.create({ origin: ORIGIN, algorithm })
    const options = await registrationOptions()
    const response = passkey.register(options)
    const verification = await verifyRegistrationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: ORIGIN,
      expectedRPID: RP_ID,
      requireUserVerification: true,
      supportedAlgorithmIDs: [-7, -257],
    })

    expect(verification.verified).toBe(true)
    const info = verification.registrationInfo
    expect(info?.fmt).toBe("none")
    expect(info?.aaguid).toBe("00000000-0000-0000-0000-000000000000")
    expect(info?.userVerified).toBe(true)
    expect(info?.credential.id).toBe(passkey.credentialId)
    expect(info?.credential.counter).toBe(1)
    expect(passkey.counter).toBe(1)
    expect(isoBase64URL.toBuffer(passkey.credentialId)).toHaveLength(32)

    // Shape of PublicKeyCredential.toJSON() from a platform authenticator.
    expect(response).toMatchObject({
      id: passkey.credentialId,
      rawId: passkey.credentialId,
      type: "public-key",
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
      response: { transports: ["internal"], publicKeyAlgorithm: coseAlg },
    })
    expect(JSON.parse(isoBase64URL.toUTF8String(response.response.clientDataJSON))).toEqual({
      type: "webauthn.create",
      challenge: options.challenge,
      origin: ORIGIN,
      crossOrigin: false,
    })

    const authData = parseAuthenticatorData(decodeAttestationObject(isoBase64URL.toBuffer(response.response.attestationObject)).get("authData"))
    expect(authData.flags).toMatchObject({ up: true, uv: true, at: true, ed: false })
    const key = decodeCredentialPublicKey(info?.credential.publicKey ?? new Uint8Array())
    expect(key.get(cose.COSEKEYS.alg)).toBe(coseAlg)
    if (algorithm === "ES256") {
      expect(key.get(cose.COSEKEYS.kty)).toBe(cose.COSEKTY.EC2)
      expect(cose.isCOSEPublicKeyEC2(key) && key.get(cose.COSEKEYS.crv)).toBe(cose.COSECRV.P256)
    } else {
      expect(key.get(cose.COSEKEYS.kty)).toBe(cose.COSEKTY.RSA)
    }
  })

  it("produces assertions the real verifier accepts, with an increasing counter", async () => {
    const { passkey, credential, userId } = await registered(algorithm)

    const c1 = await challenge()
    const first = passkey.assert({ challenge: c1 })
    const v1 = await verifyAssertion(first, c1, credential)
    expect(v1.verified).toBe(true)
    expect(v1.authenticationInfo.userVerified).toBe(true)
    expect(v1.authenticationInfo.newCounter).toBe(2)
    expect(first.id).toBe(credential.id)
    expect(first.response.userHandle).toBe(userId)
    expect(JSON.parse(isoBase64URL.toUTF8String(first.response.clientDataJSON))).toEqual({
      type: "webauthn.get",
      challenge: c1,
      origin: ORIGIN,
      crossOrigin: false,
    })

    const c2 = await challenge()
    const second = passkey.assert({ challenge: c2, rpId: RP_ID }, { includeUserHandle: false })
    const v2 = await verifyAssertion(second, c2, { ...credential, counter: v1.authenticationInfo.newCounter })
    expect(v2.verified).toBe(true)
    expect(v2.authenticationInfo.newCounter).toBe(3)
    expect(passkey.counter).toBe(3)
    expect(second.response).not.toHaveProperty("userHandle")
  })

  it("carries on in another process from its export: same credential, the counter where it was", async () => {
    const { passkey, credential, userId } = await registered(algorithm)
    const c1 = await challenge()
    const v1 = await verifyAssertion(passkey.assert({ challenge: c1 }), c1, credential)
    // through JSON, as it would cross a process boundary
    const moved = SoftwarePasskey.restore(JSON.parse(JSON.stringify(passkey.export())))
    expect(moved.credentialId).toBe(passkey.credentialId)
    const c2 = await challenge()
    const next = moved.assert({ challenge: c2 })
    const v2 = await verifyAssertion(next, c2, { ...credential, counter: v1.authenticationInfo.newCounter })
    expect(v2.verified).toBe(true)
    expect(v2.authenticationInfo.newCounter).toBe(3)
    expect(next.response.userHandle).toBe(userId)
  })

  describe("assertion faults each break exactly the named check", () => {
    it("wrongOrigin: origin check rejects, and passes once the origin is allowed", async () => {
      const { passkey, credential } = await registered(algorithm)
      const c = await challenge()
      const response = passkey.assert({ challenge: c }, { fault: "wrongOrigin" })
      await expect(verifyAssertion(response, c, credential)).rejects.toThrow('Unexpected authentication response origin "https://evil.example"')
      expect((await verifyAssertion(response, c, credential, { origin: true })).verified).toBe(true)
    })

    it("wrongRpId: RP ID hash check rejects, and passes once evil.example is allowed", async () => {
      const { passkey, credential } = await registered(algorithm)
      const c = await challenge()
      const response = passkey.assert({ challenge: c }, { fault: "wrongRpId" })
      await expect(verifyAssertion(response, c, credential)).rejects.toThrow("Unexpected RP ID hash")
      const relaxed = await verifyAssertion(response, c, credential, { rpId: true })
      expect(relaxed.verified).toBe(true)
      expect(relaxed.authenticationInfo.rpID).toBe("evil.example")
    })

    it("noUserVerification: UV check rejects while UP stays set", async () => {
      const { passkey, credential } = await registered(algorithm)
      const c = await challenge()
      const response = passkey.assert({ challenge: c }, { fault: "noUserVerification" })
      const flags = parseAuthenticatorData(isoBase64URL.toBuffer(response.response.authenticatorData)).flags
      expect(flags).toMatchObject({ up: true, uv: false })
      await expect(verifyAssertion(response, c, credential)).rejects.toThrow("User verification required, but user could not be verified")
      const relaxed = await verifyAssertion(response, c, credential, { uv: true })
      expect(relaxed.verified).toBe(true)
      expect(relaxed.authenticationInfo.userVerified).toBe(false)
    })

    it("otherChallenge: challenge check rejects, and the signature is otherwise valid", async () => {
      const { passkey, credential } = await registered(algorithm)
      const c = await challenge()
      const response = passkey.assert({ challenge: c }, { fault: "otherChallenge" })
      await expect(verifyAssertion(response, c, credential)).rejects.toThrow("Unexpected authentication response challenge")
      expect((await verifyAssertion(response, c, credential, { challenge: true })).verified).toBe(true)
    })

    it("badSignature: every other check passes but the signature does not verify", async () => {
      const { passkey, credential } = await registered(algorithm)
      const c = await challenge()
      const response = passkey.assert({ challenge: c }, { fault: "badSignature" })
      const verification = await verifyAssertion(response, c, credential)
      expect(verification.verified).toBe(false)
    })

    it("unregisteredCredential: a fresh credential id, whose key is not the registered one", async () => {
      const { passkey, credential } = await registered(algorithm)
      const c = await challenge()
      const response = passkey.assert({ challenge: c }, { fault: "unregisteredCredential" })
      expect(response.id).not.toBe(credential.id)
      expect(response.rawId).toBe(response.id)
      expect(isoBase64URL.toBuffer(response.id)).toHaveLength(32)
      // Even a server that skipped the id lookup would not accept it under the registered key.
      expect((await verifyAssertion(response, c, credential)).verified).toBe(false)
      expect(passkey.credentialId).toBe(credential.id)
    })

    it("counterBackwards: counter check rejects against the previous counter", async () => {
      const { passkey, credential } = await registered(algorithm)
      const c1 = await challenge()
      const good = await verifyAssertion(passkey.assert({ challenge: c1 }), c1, credential)
      const stored = { ...credential, counter: good.authenticationInfo.newCounter }
      expect(stored.counter).toBeGreaterThan(0)

      const c2 = await challenge()
      const response = passkey.assert({ challenge: c2 }, { fault: "counterBackwards" })
      await expect(verifyAssertion(response, c2, stored)).rejects.toThrow(`Response counter value 0 was lower than expected ${stored.counter}`)
      // With no counter history the same response is fine, so only the counter check failed.
      expect((await verifyAssertion(response, c2, { ...credential, counter: 0 })).verified).toBe(true)
    })

    it("a faulted assertion leaves the passkey usable and its counter unchanged", async () => {
      const { passkey, credential } = await registered(algorithm)
      for (const fault of passkeyFaults) passkey.assert({ challenge: await challenge() }, { fault })
      expect(passkey.counter).toBe(1)
      const c = await challenge()
      const v = await verifyAssertion(passkey.assert({ challenge: c }), c, credential)
      expect(v.verified).toBe(true)
      expect(v.authenticationInfo.newCounter).toBe(2)
    })
  })

  describe("registration faults", () => {
    const expectations: ReadonlyArray<[PasskeyFault, string]> = [
      ["wrongOrigin", 'Unexpected registration response origin "https://evil.example"'],
      ["wrongRpId", "Unexpected RP ID hash"],
      ["noUserVerification", "User verification was required, but user could not be verified"],
      ["otherChallenge", "Unexpected registration response challenge"],
    ]
    it("covers every registration fault", () => {
      expect(expectations.map(([f]) => f)).toEqual(registrationFaults)
    })

    it.each(expectations)("%s is rejected by the matching check", async (fault, message) => {
      const passkey = SoftwarePasskey.create({ origin: ORIGIN, algorithm })
      const options = await registrationOptions()
      await expect(
        verifyRegistrationResponse({
          response: passkey.register(options, fault),
          expectedChallenge: options.challenge,
          expectedOrigin: ORIGIN,
          expectedRPID: RP_ID,
          requireUserVerification: true,
          supportedAlgorithmIDs: [-7, -257],
        }),
      ).rejects.toThrow(message)
      expect(passkey.counter).toBe(0)
    })
  })
})

describe("SoftwarePasskey misuse", () => {
  it("defaults to ES256 and derives the RP id from the origin when options omit it", async () => {
    const passkey = SoftwarePasskey.create({ origin: ORIGIN })
    expect(passkey.algorithm).toBe("ES256")
    const options = await registrationOptions()
    const { id: _omitted, ...rp } = options.rp
    const verification = await verifyRegistrationResponse({
      response: passkey.register({ ...options, rp }),
      expectedChallenge: options.challenge,
      expectedOrigin: ORIGIN,
      expectedRPID: RP_ID,
    })
    expect(verification.verified).toBe(true)
  })

  it("refuses faults that have no meaning for registration", async () => {
    const passkey = SoftwarePasskey.create({ origin: ORIGIN })
    const options = await registrationOptions()
    for (const fault of ["badSignature", "unregisteredCredential", "counterBackwards"] as const) {
      expect(() => passkey.register(options, fault)).toThrow(`fault "${fault}" does not apply to registration`)
    }
  })

  it("refuses a relying party that does not accept its algorithm", async () => {
    const passkey = SoftwarePasskey.create({ origin: ORIGIN, algorithm: "RS256" })
    const options = await registrationOptions()
    expect(() => passkey.register({ ...options, pubKeyCredParams: [{ alg: -7, type: "public-key" }] })).toThrow("relying party does not accept RS256")
  })

  it("refuses to assert before registering", () => {
    const passkey = SoftwarePasskey.create({ origin: ORIGIN })
    expect(() => passkey.assert({ challenge: "abc" })).toThrow(/before a successful register/)
  })
})
