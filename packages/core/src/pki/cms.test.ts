import { spawnSync } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import * as asn1js from "asn1js"
import { Cause, Effect, Exit } from "effect"
import * as pkijs from "pkijs"
import { beforeAll, describe, expect, it } from "vitest"
import { fromBase64 } from "../kernel/encoding.ts"
import { certificateAuthority, type CertificateAuthority } from "./authority.ts"
import { CmsOid, signDigest, toPem, type DigestAlgorithm } from "./cms.ts"
import { signingIdentityFor, type SigningIdentity } from "./signer-certificate.ts"
import { pkiTestWorld, testUser, type PkiServices, type PkiTestWorld } from "./test-layers.ts"
import { scratchFile } from "../../../testkit/src/tools.ts"

const run = <A>(world: PkiTestWorld, effect: Effect.Effect<A, never, PkiServices>) => Effect.runPromise(Effect.provide(effect, world.layer))
const nodeHash = { "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" } as const

const file = scratchFile

/** `openssl cms -verify` of a detached signature over `content`, trusting only `root`. */
const opensslVerify = (signature: Uint8Array, content: Uint8Array, root: string, purpose: ReadonlyArray<string> = ["-purpose", "any"]) => {
  const r = spawnSync(
    "openssl",
    [
      "cms",
      "-verify",
      "-binary",
      ...purpose,
      "-inform",
      "DER",
      "-in",
      file("sig.der", signature),
      "-content",
      file("doc.bin", content),
      "-CAfile",
      root,
      "-out",
      "/dev/null",
    ],
    { encoding: "utf8" },
  )
  return { status: r.status, stderr: r.stderr }
}

const parseCms = (der: Uint8Array) => {
  const info = pkijs.ContentInfo.fromBER(new Uint8Array(der))
  expect(info.contentType).toBe(CmsOid.signedData)
  return new pkijs.SignedData({ schema: info.content })
}
const attribute = (signerInfo: pkijs.SignerInfo, oid: string) => signerInfo.signedAttrs?.attributes.filter((a) => a.type === oid) ?? []

describe("signDigest", () => {
  const world = pkiTestWorld()
  let ca: CertificateAuthority
  let identity: SigningIdentity
  let rootPem: string
  beforeAll(async () => {
    ;({ ca, identity } = await run(world, Effect.all({ ca: certificateAuthority, identity: signingIdentityFor(testUser()) })))
    rootPem = file("root.pem", toPem(fromBase64(ca.root.der)!))
  })

  const cases: ReadonlyArray<readonly [DigestAlgorithm, boolean]> = [
    ["SHA-256", true],
    ["SHA-256", false],
    ["SHA-384", true],
    ["SHA-384", false],
    ["SHA-512", true],
    ["SHA-512", false],
  ]
  it.each(cases)("%s, signingTime %s: openssl verifies it against the document and refuses another", async (digestAlgorithm, withTime) => {
    const document = randomBytes(1000 + Math.floor(Math.random() * 1000))
    const digest = new Uint8Array(createHash(nodeHash[digestAlgorithm]).update(document).digest())
    const signingTime = withTime ? new Date("2026-03-04T05:06:07.890Z") : null
    const cms = await run(world, signDigest({ identity, digest, digestAlgorithm, signingTime }))

    const ok = opensslVerify(cms, document, rootPem)
    expect(ok.stderr).toMatch(/Verification successful/)
    expect(ok.status).toBe(0)
    // the signer certificate has EKU emailProtection, so even the default S/MIME purpose accepts it
    expect(opensslVerify(cms, document, rootPem, []).status).toBe(0)
    const other = Uint8Array.from(document)
    other[0] = other[0]! ^ 1
    const bad = opensslVerify(cms, other, rootPem)
    expect(bad.status).not.toBe(0)
    expect(bad.stderr).not.toMatch(/Verification successful/)

    // structure
    const signedData = parseCms(cms)
    expect(signedData.version).toBe(1)
    expect(signedData.encapContentInfo.eContentType).toBe(CmsOid.data)
    expect(signedData.encapContentInfo.eContent).toBeUndefined()
    const certificates = (signedData.certificates ?? []) as Array<pkijs.Certificate>
    expect(certificates.map((c) => new Uint8Array(c.toSchema().toBER(false)))).toEqual([identity.certificate.der, ca.issuing.der].map((b64) => fromBase64(b64)))
    expect(signedData.signerInfos).toHaveLength(1)
    const signerInfo = signedData.signerInfos[0]!
    const digestOid = { "SHA-256": "2.16.840.1.101.3.4.2.1", "SHA-384": "2.16.840.1.101.3.4.2.2", "SHA-512": "2.16.840.1.101.3.4.2.3" }[digestAlgorithm]
    expect(signerInfo.digestAlgorithm.algorithmId).toBe(digestOid)
    expect(signedData.digestAlgorithms.map((a) => a.algorithmId)).toEqual([digestOid])
    expect(signerInfo.signatureAlgorithm.algorithmId).toMatch(/^1\.2\.840\.10045\.4\.3\.[234]$/)
    const sid = signerInfo.sid as pkijs.IssuerAndSerialNumber
    expect(sid).toBeInstanceOf(pkijs.IssuerAndSerialNumber)
    expect(Buffer.from(sid.serialNumber.valueBlock.valueHexView).toString("hex")).toBe(identity.certificate.serial)

    const [contentType] = attribute(signerInfo, CmsOid.contentType)
    expect((contentType!.values[0] as asn1js.ObjectIdentifier).valueBlock.toString()).toBe(CmsOid.data)
    const [messageDigest] = attribute(signerInfo, CmsOid.messageDigest)
    expect(new Uint8Array((messageDigest!.values[0] as asn1js.OctetString).valueBlock.valueHexView)).toEqual(digest)

    const [signingCertificate] = attribute(signerInfo, CmsOid.signingCertificateV2)
    const certs = (signingCertificate!.values[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence
    expect(certs.valueBlock.value).toHaveLength(1)
    const essCertId = certs.valueBlock.value[0] as asn1js.Sequence
    const [certHash, issuerSerial] = essCertId.valueBlock.value as [asn1js.OctetString, asn1js.Sequence]
    expect(certHash).toBeInstanceOf(asn1js.OctetString) // hashAlgorithm omitted: SHA-256 is the default
    expect(Buffer.from(certHash.valueBlock.valueHexView).toString("hex")).toBe(createHash("sha256").update(fromBase64(identity.certificate.der)!).digest("hex"))
    const [generalNames, serial] = issuerSerial.valueBlock.value as [asn1js.Sequence, asn1js.Integer]
    const issuerName = new pkijs.GeneralNames({ schema: generalNames }).names[0]!
    expect(issuerName.type).toBe(4)
    expect((issuerName.value as pkijs.RelativeDistinguishedNames).isEqual(certificates[0]!.issuer)).toBe(true)
    expect(Buffer.from(serial.valueBlock.valueHexView).toString("hex")).toBe(identity.certificate.serial)

    const times = attribute(signerInfo, CmsOid.signingTime)
    if (withTime) {
      expect(times).toHaveLength(1)
      expect((times[0]!.values[0] as asn1js.UTCTime).toDate().toISOString()).toBe("2026-03-04T05:06:07.000Z")
    } else {
      expect(times).toHaveLength(0)
    }
    expect(signerInfo.signedAttrs!.attributes).toHaveLength(withTime ? 4 : 3)
  })

  it("refuses a digest of the wrong length (a defect: callers validate first)", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.provide(signDigest({ identity, digest: new Uint8Array(32), digestAlgorithm: "SHA-384", signingTime: null }), world.layer),
    )
    expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
  })

  it("dies loudly, never signing wrongly, when the KeyStore cannot sign with the requested hash", async () => {
    const sha256Only = pkiTestWorld({ signHashes: false })
    const { id, ok } = await run(
      sha256Only,
      Effect.gen(function* () {
        const id = yield* signingIdentityFor(testUser())
        const ok = yield* signDigest({ identity: id, digest: new Uint8Array(32), digestAlgorithm: "SHA-256", signingTime: null })
        return { id, ok }
      }),
    )
    expect(ok.length).toBeGreaterThan(0)
    const exit = await Effect.runPromiseExit(
      Effect.provide(signDigest({ identity: id, digest: new Uint8Array(48), digestAlgorithm: "SHA-384", signingTime: null }), sha256Only.layer),
    )
    expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    expect(String(Exit.isFailure(exit) ? Cause.squash(exit.cause) : "")).toMatch(/must sign with the requested hash/)
  })
})

describe("toPem", () => {
  it("wraps base64 at 64 characters between BEGIN and END lines", () => {
    const der = new Uint8Array(100).map((_, i) => i)
    const pem = toPem(der)
    const lines = pem.trimEnd().split("\n")
    expect(lines[0]).toBe("-----BEGIN CERTIFICATE-----")
    expect(lines.at(-1)).toBe("-----END CERTIFICATE-----")
    expect(lines.slice(1, -1).every((l) => l.length <= 64)).toBe(true)
    expect(Buffer.from(lines.slice(1, -1).join(""), "base64")).toEqual(Buffer.from(der))
    expect(toPem(der, "CMS")).toMatch(/^-----BEGIN CMS-----\n/)
  })
})
