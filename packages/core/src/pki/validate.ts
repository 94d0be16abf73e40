/**
 * Validation of a detached CMS signature over a document hash: integrity (the signed
 * message digest is the hash, and the signature over the signed attributes verifies with the
 * signer's certificate), the chain from the signer's certificate to this engine's root (each
 * signature and validity period), the signer certificate's revocation status, and the RFC 3161
 * timestamp over the signature value when it has one (level -T).
 */
import * as asn1js from "asn1js"
import { Clock, Effect, Option } from "effect"
import * as pkijs from "pkijs"
import { InvalidRequest } from "../kernel/errors.ts"
import { Certificates } from "./ports.ts"
import { bytesEqual, fromBase64, fromHex, toHex } from "../kernel/encoding.ts"
import { certificateAuthority } from "./authority.ts"
import { CmsOid, signedAttributesVerify } from "./cms.ts"
import { derOf } from "./issue-certificate.ts"
import { certificateStatus } from "./revocation.ts"
import { signatureTimestampOf, verifySignatureTimestamp, type TimestampReport } from "./timestamp-verify.ts"
import { loadX509 } from "./x509.ts"
import { imprintAlgorithmOf } from "./timestamp.ts"

/**
 * What validation found; `valid` is all of integrity, trusted chain and a certificate not revoked
 * when it signed. A revoked certificate's signature stays valid only when a valid RFC 3161
 * timestamp proves it existed before the revocation (EU DSS: proof of existence); without one
 * it is not valid (DSS: INDETERMINATE / REVOKED_NO_POE), whatever signing time it claims.
 */
export interface ValidationReport {
  readonly valid: boolean
  readonly integrity: boolean
  readonly coversDocumentHash: boolean
  readonly signer: { readonly subject: string; readonly serial: string } | null
  readonly chain: ReadonlyArray<{ readonly subject: string; readonly serial: string; readonly valid: boolean }>
  readonly trustedRoot: boolean
  readonly revocation: {
    readonly status: "valid" | "revoked" | "expired" | "unknown"
    readonly revokedAt: string | null
    readonly reason: string | null
    /** for a revoked certificate: whether a valid timestamp proves the signature existed before the revocation; null when not revoked */
    readonly signedBeforeRevocation: boolean | null
  }
  readonly signingTime: string | null
  /** the signature's RFC 3161 timestamp (level -T), null when it has none */
  readonly timestamp: TimestampReport | null
  readonly problems: ReadonlyArray<string>
}

/** Validates `signatureBase64` (DER ContentInfo of a detached SignedData) against `documentHash` (hex). */
export const validateSignature = (signatureBase64: string, documentHash: string) =>
  Effect.gen(function* () {
    const x509 = yield* loadX509
    const der = fromBase64(signatureBase64)
    const hash = fromHex(documentHash)
    if (der === undefined || der.length === 0) return yield* new InvalidRequest({ detail: "signature must be base64 of a DER CMS SignedData" })
    if (hash === undefined || hash.length === 0) return yield* new InvalidRequest({ detail: "documentHash must be hexadecimal" })
    const signed = yield* Effect.try(() => {
      const info = pkijs.ContentInfo.fromBER(new Uint8Array(der))
      if (info.contentType !== CmsOid.signedData) throw new Error("not SignedData")
      return new pkijs.SignedData({ schema: info.content })
    }).pipe(Effect.mapError(() => new InvalidRequest({ detail: "signature must be base64 of a DER CMS SignedData" })))

    const problems: Array<string> = []
    const now = yield* Clock.currentTimeMillis
    const signerInfo = signed.signerInfos[0]
    const certificates = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
    const sid = signerInfo?.sid
    const signerCert =
      sid instanceof pkijs.IssuerAndSerialNumber
        ? certificates.find((c) => bytesEqual(new Uint8Array(c.serialNumber.valueBlock.valueHexView), new Uint8Array(sid.serialNumber.valueBlock.valueHexView)))
        : undefined
    if (signerInfo === undefined || signerCert === undefined) problems.push("no signer or no signer certificate in the signature")

    // Integrity: messageDigest is the document hash, and the signature over the signed attributes verifies.
    let coversDocumentHash = false
    let integrity = false
    let signingTime: string | null = null
    if (signerInfo !== undefined && signerCert !== undefined) {
      const attributes = signerInfo.signedAttrs?.attributes ?? []
      const digestAttr = attributes.find((a) => a.type === CmsOid.messageDigest)?.values[0]
      coversDocumentHash = digestAttr instanceof asn1js.OctetString && bytesEqual(new Uint8Array(digestAttr.valueBlock.valueHexView), hash)
      if (!coversDocumentHash) problems.push("the signed message digest is not this document hash")
      const time = attributes.find((a) => a.type === CmsOid.signingTime)?.values[0]
      if (time instanceof asn1js.UTCTime || time instanceof asn1js.GeneralizedTime) signingTime = time.toDate().toISOString()
      // the same SHA-2 family the engine signs and timestamps with
      const digest = imprintAlgorithmOf(signerInfo.digestAlgorithm.algorithmId)
      if (digest === undefined) problems.push("unsupported digest algorithm")
      else {
        integrity = yield* signedAttributesVerify(signerInfo, signerCert, digest)
        if (!integrity) problems.push("the signature does not verify with the signer's certificate")
      }
    }

    // Every certificate the signature carries must be readable by the X.509 library the chain check uses:
    // a malformed extension (e.g. a CRL distribution point) threw there, a 500 found by fuzzing.
    yield* Effect.try({
      try: () => {
        for (const c of certificates) for (const e of new x509.X509Certificate(new Uint8Array(c.toSchema().toBER())).extensions) e.toString()
      },
      catch: () => new InvalidRequest({ detail: "signature carries a certificate that cannot be read" }),
    })

    // Chain: signer → issuing (from the CMS) → this engine's root, each signature and period checked.
    const ca = yield* certificateAuthority
    const root = new x509.X509Certificate(new Uint8Array(yield* derOf(ca.root)))
    const chain: Array<{ subject: string; serial: string; valid: boolean }> = []
    let trustedRoot = false
    if (signerCert !== undefined) {
      let current = new x509.X509Certificate(new Uint8Array(signerCert.toSchema().toBER()))
      for (let depth = 0; depth < 4; depth++) {
        const inPeriod = current.notBefore.getTime() <= now && now < current.notAfter.getTime()
        const issuer =
          current.issuer === root.subject
            ? root
            : certificates
                .map((c) => new x509.X509Certificate(new Uint8Array(c.toSchema().toBER())))
                .find((c) => c.subject === current.issuer && c.serialNumber !== current.serialNumber)
        const signedByIssuer =
          issuer !== undefined && (yield* Effect.promise(() => current.verify({ publicKey: issuer.publicKey, signatureOnly: true }).catch(() => false)))
        chain.push({ subject: current.subject, serial: current.serialNumber.toLowerCase(), valid: inPeriod && signedByIssuer })
        if (issuer === undefined) {
          problems.push(`no issuer certificate for ${current.subject}`)
          break
        }
        if (issuer === root) {
          trustedRoot = signedByIssuer && bytesEqual(new Uint8Array(issuer.rawData), new Uint8Array(root.rawData))
          chain.push({ subject: root.subject, serial: root.serialNumber.toLowerCase(), valid: true })
          break
        }
        current = issuer
      }
      if (!trustedRoot) problems.push("the chain does not lead to this engine's root")
      if (chain.some((c) => !c.valid)) problems.push("a certificate of the chain is outside its validity or not signed by its issuer")
    }

    // Revocation of the signer's certificate, from the issuing CA's records.
    const serial = signerCert === undefined ? "" : toHex(new Uint8Array(signerCert.serialNumber.valueBlock.valueHexView)).replace(/^(00)+(?=[0-9a-f])/, "")
    const stored = serial === "" ? Option.none() : yield* Effect.flatMap(Certificates, (c) => c.findBySerial(serial))
    const revocation = Option.match(stored, {
      onNone: () => ({ status: "unknown" as const, revokedAt: null as number | null, reason: null }),
      onSome: (c) => certificateStatus(c, now),
    })

    // The -T timestamp over the signature value, when there is one.
    const token = signerInfo === undefined ? undefined : signatureTimestampOf(signerInfo)
    const timestamp =
      token === undefined || signerInfo === undefined
        ? null
        : yield* verifySignatureTimestamp(token, new Uint8Array(signerInfo.signature.valueBlock.valueHexView))
    if (timestamp !== null) problems.push(...timestamp.problems.map((p) => `timestamp: ${p}`))

    // Revocation is judged at the time the signature is proven to exist: the timestamp's time.
    // The CMS signing-time attribute is the signer's own claim and proves nothing (EU DSS does
    // the same): without a timestamp before the revocation, the signature is not valid.
    const proven = timestamp !== null && timestamp.valid && timestamp.genTime !== null ? Date.parse(timestamp.genTime) : null
    const signedBeforeRevocation = revocation.status !== "revoked" ? null : proven !== null && revocation.revokedAt !== null && proven < revocation.revokedAt
    const revocationOk = revocation.status === "valid" || signedBeforeRevocation === true
    if (revocation.status !== "valid") {
      problems.push(
        signedBeforeRevocation === true
          ? `the signer's certificate was revoked after the timestamp proved the signature existed (${timestamp!.genTime})`
          : revocation.status === "revoked"
            ? "the signer's certificate is revoked and no timestamp proves the signature existed before the revocation"
            : `the signer's certificate is ${revocation.status}`,
      )
    }

    return {
      valid: integrity && coversDocumentHash && trustedRoot && chain.every((c) => c.valid) && revocationOk && (timestamp?.valid ?? true),
      integrity,
      coversDocumentHash,
      signer: signerCert === undefined ? null : { subject: new x509.X509Certificate(new Uint8Array(signerCert.toSchema().toBER())).subject, serial },
      chain,
      trustedRoot,
      signingTime,
      timestamp,
      problems,
      revocation: {
        status: revocation.status,
        revokedAt: revocation.revokedAt === null ? null : new Date(revocation.revokedAt).toISOString(),
        reason: revocation.reason,
        signedBeforeRevocation,
      },
    } satisfies ValidationReport
  }).pipe(
    Effect.catchSomeDefect((defect) =>
      thrownByParser(defect) ? Option.some(Effect.fail(new InvalidRequest({ detail: "signature carries a certificate that cannot be read" }))) : Option.none(),
    ),
  )

/**
 * Whether a defect was thrown by one of the ASN.1/X.509 libraries reading the caller's bytes (lazily
 * parsed extensions throw wherever they are first touched; fuzzing found several places): the
 * input's fault, a 400. Anything else stays a defect (a 500 with its cause logged).
 */
const thrownByParser = (defect: unknown): boolean =>
  defect instanceof Error && /@peculiar[+/]asn1|@peculiar[+/]x509|[/\\]asn1js[/\\@]|[/\\]pkijs[/\\@]/.test(defect.stack ?? "")
