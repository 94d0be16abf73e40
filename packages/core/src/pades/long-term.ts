/**
 * PAdES-BASELINE-LT (ETSI EN 319 142-1 §5.4): after the signature, a second incremental update
 * adds the Document Security Store (`/DSS` in the catalog, ISO 32000-2 §12.8.4.3) with what a
 * verifier needs years later without asking anyone: the certificates of the signer's chain and
 * of the timestamp authority (`/Certs`), OCSP responses for the signer and TSA certificates
 * (`/OCSPs`) and the issuing CA's CRL (`/CRLs`). An earlier DSS is kept and only what it lacks is
 * added; a `/VRI` entry keyed by the SHA-1 of the CMS names the items of this signature (or
 * document timestamp). The signature's byte ranges are untouched, so it stays valid.
 */
import * as asn1js from "asn1js"
import { Effect } from "effect"
import * as pkijs from "pkijs"
import { PdfUnreadable } from "./errors.ts"
import { digest, sha256 } from "../kernel/digest.ts"
import { bytesEqual, toHex } from "../kernel/encoding.ts"
import { certificateAuthority } from "../pki/authority.ts"
import { CmsOid } from "../pki/cms.ts"
import { derOf } from "../pki/issue-certificate.ts"
import { answerOcsp } from "../pki/ocsp.ts"
import { issuingCrl } from "../pki/revocation.ts"
import { signatureTimestampOf } from "../pki/timestamp-verify.ts"
import type { ValidationMaterial } from "./dss.ts"

const unreadable = (detail: string) => new PdfUnreadable({ detail })
const der = (o: pkijs.PkiObject) => new Uint8Array(o.toSchema().toBER(false))

/** An OCSPRequest for one certificate issued by `issuer` (CertID with SHA-256, RFC 6960 §4.1.1). */
const ocspRequestFor = (certificate: pkijs.Certificate, issuer: pkijs.Certificate) =>
  Effect.gen(function* () {
    const certId = new pkijs.CertID({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: "2.16.840.1.101.3.4.2.1" }),
      issuerNameHash: new asn1js.OctetString({ valueHex: yield* sha256(new Uint8Array(issuer.subject.toSchema().toBER(false))) }),
      issuerKeyHash: new asn1js.OctetString({ valueHex: yield* sha256(new Uint8Array(issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)) }),
      serialNumber: new asn1js.Integer({ valueHex: new Uint8Array(certificate.serialNumber.valueBlock.valueHexView) }),
    })
    // OCSPRequest { TBSRequest { requestList { Request { reqCert } } } }, written out: pkijs's
    // TBSRequest encodes only what it parsed.
    return new Uint8Array(
      new asn1js.Sequence({
        value: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [new pkijs.Request({ reqCert: certId }).toSchema()] })] })],
      }).toBER(false),
    )
  })

/** Distinct byte strings, first occurrence kept. */
const distinct = (all: ReadonlyArray<Uint8Array>): ReadonlyArray<Uint8Array> => all.filter((x, i) => all.findIndex((y) => bytesEqual(x, y)) === i)

/** The `/VRI` key of a signature or timestamp token: upper-case hex SHA-1 of its DER (ETSI EN 319 142-1 §5.4.2.2). */
export const vriKeyOf = (cms: Uint8Array): Effect.Effect<string> => Effect.map(digest("SHA-1", cms), (h) => toHex(h).toUpperCase())

/**
 * The validation material of a CMS signature (or a document timestamp's token) made by this engine: the signer's and the TSA's
 * certificates with the issuing CA and root, fresh OCSP responses from the engine's responder
 * for the signer and TSA certificates, and the issuing CA's CRL.
 */
export const longTermMaterial = (cms: Uint8Array) =>
  Effect.gen(function* () {
    const signed = yield* Effect.try(() => new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(cms)).content })).pipe(
      Effect.mapError(() => unreadable("the signature is not a CMS SignedData")),
    )
    const certificatesOf = (s: pkijs.SignedData) => (s.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
    const signerInfo = signed.signerInfos[0]
    const token = signerInfo === undefined ? undefined : signatureTimestampOf(signerInfo)
    const tokenCertificates =
      token === undefined
        ? []
        : yield* Effect.try(() => {
            const info = pkijs.ContentInfo.fromBER(new Uint8Array(token))
            return info.contentType === CmsOid.signedData ? certificatesOf(new pkijs.SignedData({ schema: info.content })) : []
          }).pipe(Effect.orElseSucceed(() => []))

    const ca = yield* certificateAuthority
    const issuing = pkijs.Certificate.fromBER(new Uint8Array(yield* derOf(ca.issuing)))
    const issuingDer = der(issuing)
    const leaves = [...certificatesOf(signed), ...tokenCertificates].filter(
      (c) =>
        !bytesEqual(der(c), issuingDer) &&
        bytesEqual(new Uint8Array(c.issuer.toSchema().toBER(false)), new Uint8Array(issuing.subject.toSchema().toBER(false))),
    )
    const ocsps: Array<Uint8Array> = []
    for (const leaf of leaves) ocsps.push(yield* answerOcsp(yield* ocspRequestFor(leaf, issuing)))
    // Certificates of another issuer (an external TSA's chain) go in as carried; only the engine's own get OCSP.
    const carried = [...certificatesOf(signed), ...tokenCertificates].map(der)
    return {
      certificates: distinct([...leaves.map(der), issuingDer, yield* derOf(ca.root), ...carried]),
      vriKey: yield* vriKeyOf(cms),
      ocsps,
      crls: [yield* issuingCrl],
    } satisfies ValidationMaterial
  })
