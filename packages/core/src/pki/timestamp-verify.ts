/**
 * Verification of an RFC 3161 time-stamp token over a signature value (the -T attribute of a
 * CMS signature): the imprint is the hash of that value; the TSA's signature over its signed
 * attributes holds and their message digest is the TSTInfo's hash; the TSA certificate has the
 * critical id-kp-timeStamping usage, was valid at genTime, is not revoked, and chains to this
 * engine's root.
 */
import * as asn1js from "asn1js"
import { Effect, Option } from "effect"
import * as pkijs from "pkijs"
import { digest } from "../kernel/digest.ts"
import { bytesEqual, toHex } from "../kernel/encoding.ts"
import { Certificates } from "./ports.ts"
import { certificateAuthority } from "./authority.ts"
import { CmsOid, signedAttributesVerify } from "./cms.ts"
import { derOf } from "./issue-certificate.ts"
import { certificateStatus } from "./revocation.ts"
import { imprintAlgorithmOf, oidText } from "./timestamp.ts"
import type { ImprintAlgorithm } from "./timestamp-authority.ts"
import { loadX509, type X509 } from "./x509.ts"
import { x509OfParsed, x509OfStored } from "./x509-views.ts"

/** What the timestamp of a signature says and whether it holds. */
export interface TimestampReport {
  readonly valid: boolean
  /** the time the TSA vouches for (ISO 8601), null when unreadable */
  readonly genTime: string | null
  readonly tsa: { readonly subject: string; readonly serial: string } | null
  readonly policy: string | null
  /** the token's serial number, lower-case hex */
  readonly serial: string | null
  readonly problems: ReadonlyArray<string>
}

const TIME_STAMPING = "1.3.6.1.5.5.7.3.8"

const hexSerial = (i: asn1js.Integer) => toHex(new Uint8Array(i.valueBlock.valueHexView)).replace(/^(00)+(?=[0-9a-f])/, "")

/** The policy of a DER TSTInfo in dotted form (its second element). */
const policyOf = (tstInfo: Uint8Array): string | null => {
  const parsed = asn1js.fromBER(new Uint8Array(tstInfo)).result
  const policy = parsed instanceof asn1js.Sequence ? parsed.valueBlock.value[1] : undefined
  return policy instanceof asn1js.ObjectIdentifier ? oidText(policy) : null
}

/** The `id-aa-signatureTimeStampToken` of a SignerInfo, if it has one (its DER). */
export const signatureTimestampOf = (signerInfo: pkijs.SignerInfo): Uint8Array | undefined => {
  const value = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === CmsOid.signatureTimeStampToken)?.values[0]
  return value === undefined ? undefined : new Uint8Array(value.toBER(false))
}

/** Verifies a DER TimeStampToken over `signatureValue` (the SignerInfo's signature OCTET STRING contents). */
export const verifySignatureTimestamp = (token: Uint8Array, signatureValue: Uint8Array) =>
  verifyTimestampToken(token, (algorithm) => digest(algorithm, signatureValue), "the timestamp is not over this signature's value")

/**
 * Verifies a DER TimeStampToken whose imprint must be `imprintOf(its algorithm)` (undefined: not
 * available under that algorithm); `notCovered` is the problem reported when it is not. A PDF
 * document timestamp (`ETSI.RFC3161`) is one over the digest of its byte ranges.
 */
export const verifyTimestampToken = (
  token: Uint8Array,
  imprintOf: (algorithm: ImprintAlgorithm) => Effect.Effect<Uint8Array | undefined>,
  notCovered: string,
) =>
  Effect.gen(function* () {
    const x509 = yield* loadX509
    const problems: Array<string> = []
    const parsed = yield* Effect.try(() => {
      const info = pkijs.ContentInfo.fromBER(new Uint8Array(token))
      if (info.contentType !== CmsOid.signedData) throw new Error("not SignedData")
      const signed = new pkijs.SignedData({ schema: info.content })
      if (signed.encapContentInfo.eContentType !== CmsOid.tstInfo || signed.encapContentInfo.eContent === undefined) throw new Error("not a TSTInfo")
      const content = new Uint8Array(signed.encapContentInfo.eContent.getValue())
      // every certificate the token carries must be readable by the X.509 library used below (fuzzing: a malformed
      // authority information access extension threw there, a 500 from /v2/validate)
      for (const c of signed.certificates ?? []) if (c instanceof pkijs.Certificate) x509OfParsed(x509, c)
      return { signed, content, info: pkijs.TSTInfo.fromBER(content) }
    }).pipe(Effect.option)
    if (Option.isNone(parsed)) {
      return {
        valid: false,
        genTime: null,
        tsa: null,
        policy: null,
        serial: null,
        problems: ["the timestamp is not an RFC 3161 time-stamp token"],
      } satisfies TimestampReport
    }
    const { signed, content, info } = parsed.value
    const genTime = info.genTime

    // The imprint is the hash of this signature's value.
    const imprintAlgorithm = imprintAlgorithmOf(info.messageImprint.hashAlgorithm.algorithmId)
    const expected = imprintAlgorithm === undefined ? undefined : yield* imprintOf(imprintAlgorithm)
    const coversSignature = expected !== undefined && bytesEqual(new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView), expected)
    if (!coversSignature) problems.push(notCovered)

    // The TSA certificate: from the token, or (certReq was false) from this engine's records.
    const signerInfo = signed.signerInfos[0]
    const sid = signerInfo?.sid
    const serial = sid instanceof pkijs.IssuerAndSerialNumber ? hexSerial(sid.serialNumber) : ""
    const inToken = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
    const stored = serial === "" ? Option.none() : yield* Effect.flatMap(Certificates, (c) => c.findBySerial(serial))
    const tsaCertificate =
      inToken.find((c) => hexSerial(c.serialNumber) === serial) ??
      (Option.isSome(stored) ? pkijs.Certificate.fromBER(new Uint8Array(yield* derOf(stored.value))) : undefined)
    if (signerInfo === undefined || tsaCertificate === undefined) problems.push("no TSA certificate for the timestamp")

    // The TSA's signature over the signed attributes, whose message digest is the TSTInfo's hash.
    let signatureHolds = false
    if (signerInfo !== undefined && tsaCertificate !== undefined) {
      const attributes = signerInfo.signedAttrs?.attributes ?? []
      const algorithm = imprintAlgorithmOf(signerInfo.digestAlgorithm.algorithmId)
      const digestAttribute = attributes.find((a) => a.type === CmsOid.messageDigest)?.values[0]
      const contentType = attributes.find((a) => a.type === CmsOid.contentType)?.values[0]
      if (
        algorithm !== undefined &&
        digestAttribute instanceof asn1js.OctetString &&
        contentType instanceof asn1js.ObjectIdentifier &&
        contentType.valueBlock.toString() === CmsOid.tstInfo &&
        bytesEqual(new Uint8Array(digestAttribute.valueBlock.valueHexView), yield* digest(algorithm, content))
      ) {
        signatureHolds = yield* signedAttributesVerify(signerInfo, tsaCertificate, algorithm)
      }
      if (!signatureHolds) problems.push("the TSA's signature over the timestamp does not verify")
    }

    // The TSA certificate: timeStamping usage, valid at genTime, issued by this engine's CA, not revoked.
    let trusted = false
    let tsa: TimestampReport["tsa"] = null
    if (tsaCertificate !== undefined) {
      const certificate = x509OfParsed(x509, tsaCertificate)
      tsa = { subject: certificate.subject, serial }
      const usage = certificate.getExtension(x509.ExtendedKeyUsageExtension)
      const timeStamping = usage !== null && usage.critical && usage.usages.length === 1 && usage.usages[0] === TIME_STAMPING
      if (!timeStamping) problems.push("the TSA certificate lacks the critical id-kp-timeStamping usage")
      const inPeriod = certificate.notBefore.getTime() <= genTime.getTime() && genTime.getTime() < certificate.notAfter.getTime()
      if (!inPeriod) problems.push("the TSA certificate was not valid at the timestamp's time")
      const ca = yield* certificateAuthority
      const root = yield* x509OfStored(x509, ca.root)
      const candidates = [...inToken.map((c) => x509OfParsed(x509, c)), yield* x509OfStored(x509, ca.issuing)]
      const issuing = candidates.find((c) => c.subject === certificate.issuer && c.serialNumber !== certificate.serialNumber)
      const verifies = (c: X509.X509Certificate, by: X509.X509Certificate) =>
        Effect.promise(() => c.verify({ publicKey: by.publicKey, signatureOnly: true }).catch(() => false))
      const chains = issuing !== undefined && issuing.issuer === root.subject && (yield* verifies(certificate, issuing)) && (yield* verifies(issuing, root))
      if (!chains) problems.push("the TSA certificate does not chain to this engine's root")
      const status = Option.match(stored, { onNone: () => "unknown" as const, onSome: (c) => certificateStatus(c, genTime.getTime()).status })
      if (status === "revoked" || status === "unknown") problems.push(`the TSA certificate is ${status}`)
      trusted = timeStamping && inPeriod && chains && status !== "revoked" && status !== "unknown"
    }

    return {
      valid: coversSignature && signatureHolds && trusted,
      genTime: genTime.toISOString(),
      tsa,
      policy: policyOf(content),
      serial: hexSerial(info.serialNumber),
      problems,
    } satisfies TimestampReport
  })
