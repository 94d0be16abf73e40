/**
 * verifySignerInfo with keys made by Web Crypto (the openssl-made cases are in the adapters'
 * validation-algorithms e2e test): each algorithm verifies what its key signed, fails a changed
 * signature, and the cases it cannot judge are `unsupported`, never `failed`.
 */
import * as asn1js from "asn1js"
import { Effect } from "effect"
import * as pkijs from "pkijs"
import { describe, expect, it } from "vitest"
import type { DigestAlgorithm } from "./cms.ts"
import { verifySignerInfo } from "./signer-verify.ts"

const subtle = globalThis.crypto.subtle
const HASH_OID: Record<DigestAlgorithm, string> = {
  "SHA-256": "2.16.840.1.101.3.4.2.1",
  "SHA-384": "2.16.840.1.101.3.4.2.2",
  "SHA-512": "2.16.840.1.101.3.4.2.3",
}

const certificateWith = async (key: CryptoKey) => {
  const certificate = new pkijs.Certificate()
  certificate.subjectPublicKeyInfo = pkijs.PublicKeyInfo.fromBER(await subtle.exportKey("spki", key))
  return certificate
}

/** A SignerInfo as it arrives (encoded and parsed again), signed by `sign` over its attributes, or over nothing when `withAttributes` is false. */
const signerInfo = async (
  algorithm: pkijs.AlgorithmIdentifier,
  hash: DigestAlgorithm,
  sign: (data: Uint8Array) => Promise<Uint8Array>,
  withAttributes: boolean,
  content: Uint8Array,
) => {
  const digest = new Uint8Array(await subtle.digest(hash, new Uint8Array(content)))
  const attributes = [
    new pkijs.Attribute({ type: "1.2.840.113549.1.9.3", values: [new asn1js.ObjectIdentifier({ value: "1.2.840.113549.1.7.1" })] }),
    new pkijs.Attribute({ type: "1.2.840.113549.1.9.4", values: [new asn1js.OctetString({ valueHex: digest })] }),
  ]
  const signed = new Uint8Array(new asn1js.Set({ value: attributes.map((a) => a.toSchema()) }).toBER(false))
  const info = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: new pkijs.RelativeDistinguishedNames(), serialNumber: new asn1js.Integer({ value: 1 }) }),
    digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: HASH_OID[hash] }),
    ...(withAttributes ? { signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }) } : {}),
    signatureAlgorithm: algorithm,
    signature: new asn1js.OctetString({ valueHex: await sign(withAttributes ? signed : content) }),
  })
  return { info: pkijs.SignerInfo.fromBER(info.toSchema().toBER(false)), digest }
}

const flipped = (info: pkijs.SignerInfo) => {
  const bytes = new Uint8Array(info.signature.valueBlock.valueHexView)
  bytes[bytes.length - 1]! ^= 1
  info.signature = new asn1js.OctetString({ valueHex: bytes })
  return info
}

const content = new TextEncoder().encode("the signed byte ranges")

describe("verifySignerInfo: the certificate's own key algorithm, the SignerInfo's digest", () => {
  it("RSA-PSS with SHA-384 (salt 48) verifies; a changed signature fails", async () => {
    const keys = await subtle.generateKey({ name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-384" }, true, [
      "sign",
      "verify",
    ])
    const params = new pkijs.RSASSAPSSParams({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: HASH_OID["SHA-384"] }),
      maskGenAlgorithm: new pkijs.AlgorithmIdentifier({
        algorithmId: "1.2.840.113549.1.1.8",
        algorithmParams: new pkijs.AlgorithmIdentifier({ algorithmId: HASH_OID["SHA-384"] }).toSchema(),
      }),
      saltLength: 48,
    })
    const algorithm = new pkijs.AlgorithmIdentifier({ algorithmId: "1.2.840.113549.1.1.10", algorithmParams: params.toSchema() })
    const sign = async (d: Uint8Array) => new Uint8Array(await subtle.sign({ name: "RSA-PSS", saltLength: 48 }, keys.privateKey, new Uint8Array(d)))
    const { info, digest } = await signerInfo(algorithm, "SHA-384", sign, true, content)
    const certificate = await certificateWith(keys.publicKey)
    expect(await Effect.runPromise(verifySignerInfo(info, certificate, "SHA-384", digest))).toEqual({
      outcome: "verified",
      algorithm: "RSA-PSS with SHA-384",
      detail: null,
    })
    expect((await Effect.runPromise(verifySignerInfo(flipped(info), certificate, "SHA-384", digest))).outcome).toBe("failed")
  })

  it.each([
    ["P-256", "SHA-256", 32],
    ["P-521", "SHA-512", 66],
  ] as const)("ECDSA %s with %s verifies (DER signature); without signed attributes it is unsupported, not failed", async (curve, hash, _size) => {
    const keys = await subtle.generateKey({ name: "ECDSA", namedCurve: curve }, true, ["sign", "verify"])
    const toDer = (p1363: Uint8Array) => {
      const half = p1363.length / 2
      const int = (b: Uint8Array) => new asn1js.Integer({ valueHex: b[0]! >= 0x80 ? new Uint8Array([0, ...b]) : b })
      return new Uint8Array(new asn1js.Sequence({ value: [int(p1363.subarray(0, half)), int(p1363.subarray(half))] }).toBER(false))
    }
    const sign = async (d: Uint8Array) => toDer(new Uint8Array(await subtle.sign({ name: "ECDSA", hash }, keys.privateKey, new Uint8Array(d))))
    const algorithm = new pkijs.AlgorithmIdentifier({ algorithmId: hash === "SHA-256" ? "1.2.840.10045.4.3.2" : "1.2.840.10045.4.3.4" })
    const certificate = await certificateWith(keys.publicKey)
    const { info, digest } = await signerInfo(algorithm, hash, sign, true, content)
    expect(await Effect.runPromise(verifySignerInfo(info, certificate, hash, digest))).toMatchObject({
      outcome: "verified",
      algorithm: `ECDSA ${curve} with ${hash}`,
    })
    const bare = await signerInfo(algorithm, hash, sign, false, content)
    expect((await Effect.runPromise(verifySignerInfo(bare.info, certificate, hash, bare.digest))).outcome).toBe("unsupported")
  })

  it("Ed25519 (RFC 8419) verifies over the signed attributes; a changed signature fails", async () => {
    const keys = (await subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair
    const sign = async (d: Uint8Array) => new Uint8Array(await subtle.sign({ name: "Ed25519" }, keys.privateKey, new Uint8Array(d)))
    const { info, digest } = await signerInfo(new pkijs.AlgorithmIdentifier({ algorithmId: "1.3.101.112" }), "SHA-512", sign, true, content)
    const certificate = await certificateWith(keys.publicKey)
    expect((await Effect.runPromise(verifySignerInfo(info, certificate, "SHA-512", digest))).outcome).toBe("verified")
    expect((await Effect.runPromise(verifySignerInfo(flipped(info), certificate, "SHA-512", digest))).outcome).toBe("failed")
  })

  it("RSA PKCS#1 v1.5 without signed attributes is checked against the content's digest: another digest fails", async () => {
    const keys = await subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )
    const sign = async (d: Uint8Array) => new Uint8Array(await subtle.sign({ name: "RSASSA-PKCS1-v1_5" }, keys.privateKey, new Uint8Array(d)))
    const algorithm = new pkijs.AlgorithmIdentifier({ algorithmId: "1.2.840.113549.1.1.1" })
    const { info, digest } = await signerInfo(algorithm, "SHA-256", sign, false, content)
    const certificate = await certificateWith(keys.publicKey)
    expect(await Effect.runPromise(verifySignerInfo(info, certificate, "SHA-256", digest))).toMatchObject({
      outcome: "verified",
      algorithm: "RSA PKCS#1 v1.5 with SHA-256",
    })
    const other = new Uint8Array(await subtle.digest("SHA-256", new TextEncoder().encode("another document")))
    expect((await Effect.runPromise(verifySignerInfo(info, certificate, "SHA-256", other))).outcome).toBe("failed")
  })
})
