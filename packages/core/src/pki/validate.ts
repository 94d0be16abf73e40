/**
 * Validation of a detached CMS signature over a document digest (ETSI EN 319 102-1, basic
 * signature with time): integrity (the signed message digest is the document's under the digest
 * the SignerInfo names, and the signature verifies with the certificate's own key algorithm), the
 * chain from the signer's certificate to a trust anchor (this engine's root, or one configured),
 * the RFC 3161 signature timestamp as proof of existence, and the signer certificate's revocation
 * status judged at that proof: CRLs embedded in the file or the CMS first, then the engine's records.
 */
import * as asn1js from "asn1js"
import { Clock, Effect, Option } from "effect"
import * as pkijs from "pkijs"
import { InvalidRequest } from "../kernel/errors.ts"
import { Certificates } from "./ports.ts"
import { bytesEqual, fromBase64, fromHex } from "../kernel/encoding.ts"
import { certificateAuthority } from "./authority.ts"
import { CmsOid, type DigestAlgorithm } from "./cms.ts"
import { derOf } from "./issue-certificate.ts"
import { certificateStatus } from "./revocation.ts"
import { ocspVerdict } from "./embedded-ocsp.ts"
import { verifySignerInfo } from "./signer-verify.ts"
import { signatureTimestampOf, verifySignatureTimestamp, type TimestampReport } from "./timestamp-verify.ts"
import { TrustAnchors } from "./trust-anchors.ts"
import { loadX509, type X509 } from "./x509.ts"
import { x509OfParsed, x509OfStored } from "./x509-views.ts"
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

/** ETSI EN 319 102-1 §5.1.3 main indications. */
export type MainIndication = "TOTAL-PASSED" | "INDETERMINATE" | "TOTAL-FAILED"

/** Where a certificate's revocation status came from. */
export type RevocationSource = "embedded-crl" | "embedded-ocsp" | "engine-records" | "none"

/** One certificate of the chain as validation judged it (signer first, the trust anchor last). */
export interface CertificateFinding {
  readonly subject: string
  readonly serial: string
  readonly issuer: string
  readonly notBefore: string
  readonly notAfter: string
  readonly trustAnchor: boolean
  /** its issuer's signature over it holds (true for the anchor) */
  readonly signatureValid: boolean
  /** within its validity period at the best signature time */
  readonly validAtBestSignatureTime: boolean
  readonly revocation: {
    readonly status: "good" | "revoked" | "unknown" | "not-checked"
    readonly revokedAt: string | null
    readonly reason: string | null
    readonly source: RevocationSource
  }
}

/** What the standard report needs beyond the short form. */
export interface ValidationDetails {
  readonly validationTime: string
  readonly digestAlgorithm: string | null
  readonly signatureAlgorithm: string | null
  /** the earliest time the signature is proven to have existed, and by what */
  readonly bestSignatureTime: { readonly time: string; readonly proof: "signature-timestamp" | "document-timestamp" | "validation-time" }
  readonly certificateChain: ReadonlyArray<CertificateFinding>
  readonly indication: MainIndication
  readonly subIndication: string | null
}

/** The short report and the details the standard report adds. */
export interface DetailedValidation {
  readonly report: ValidationReport
  readonly details: ValidationDetails
}

/** Revocation material carried by the file being validated (a PDF's `/DSS`), DER. */
export interface EmbeddedMaterial {
  readonly certificates: ReadonlyArray<Uint8Array>
  readonly crls: ReadonlyArray<Uint8Array>
  readonly ocspResponses?: ReadonlyArray<Uint8Array>
}

/**
 * At most this many embedded certificates, CRLs and OCSP responses (each) are read per signature:
 * they are parsed and their signatures verified outside the PDF worker, so a file carrying
 * thousands cannot make validation slow (docs/security/pdf.md). A real /DSS holds a few.
 */
export const EMBEDDED_LIMIT = 64

const NO_MATERIAL: EmbeddedMaterial = { certificates: [], crls: [], ocspResponses: [] }
const ADBE_REVOCATION_INFO_ARCHIVAL = "1.2.840.113583.1.1.8"
const DIGEST_LENGTH: Record<DigestAlgorithm, number> = { "SHA-256": 32, "SHA-384": 48, "SHA-512": 64 }
const CRL_REASONS = [
  "unspecified",
  "keyCompromise",
  "cACompromise",
  "affiliationChanged",
  "superseded",
  "cessationOfOperation",
  "certificateHold",
  "",
  "removeFromCRL",
  "privilegeWithdrawn",
  "aACompromise",
]

/**
 * The CRLs (`tag` 0) or OCSP responses (`tag` 1) of an `adbe-revocationInfoArchival` signed attribute
 * (SEQUENCE { [0] EXPLICIT SEQUENCE OF CRL, [1] EXPLICIT SEQUENCE OF OCSPResponse, ... }), DER.
 */
const archived = (signerInfo: pkijs.SignerInfo, tag: 0 | 1): Array<Uint8Array> => {
  const value = signerInfo.signedAttrs?.attributes.find((a) => a.type === ADBE_REVOCATION_INFO_ARCHIVAL)?.values[0]
  if (!(value instanceof asn1js.Sequence)) return []
  const items = value.valueBlock.value.find((v) => v.idBlock.tagClass === 3 && v.idBlock.tagNumber === tag)
  const list = items instanceof asn1js.Constructed ? items.valueBlock.value[0] : undefined
  return list instanceof asn1js.Sequence ? list.valueBlock.value.map((item) => new Uint8Array(item.toBER(false))) : []
}

/** Validates `signatureBase64` (DER ContentInfo of a detached SignedData) against `documentHash` (hex). */
export const validateSignature = (signatureBase64: string, documentHash: string) =>
  Effect.map(validateSignatureDetailed(signatureBase64, documentHash), (v) => v.report)

/** As `validateSignature`, with the details of the standard report. */
export const validateSignatureDetailed = (signatureBase64: string, documentHash: string) =>
  Effect.gen(function* () {
    const der = fromBase64(signatureBase64)
    const hash = fromHex(documentHash)
    if (der === undefined || der.length === 0) return yield* new InvalidRequest({ detail: "signature must be base64 of a DER CMS SignedData" })
    if (hash === undefined || hash.length === 0) return yield* new InvalidRequest({ detail: "documentHash must be hexadecimal" })
    return yield* validateSignedData(der, (algorithm) => (DIGEST_LENGTH[algorithm] === hash.length ? hash : undefined), NO_MATERIAL)
  })

/**
 * Validates a DER CMS SignedData whose content's digest under each algorithm `digestOf` gives
 * (undefined when the document was not hashed with it), with `embedded` revocation material and,
 * for a PDF, the time a later valid document timestamp proves the signature existed (ms).
 */
export const validateSignedData = (
  der: Uint8Array,
  digestOf: (algorithm: DigestAlgorithm) => Uint8Array | undefined,
  embedded: EmbeddedMaterial,
  documentTimestamp?: number,
) =>
  Effect.gen(function* () {
    const x509 = yield* loadX509
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

    // Integrity: the signed message digest is the document's under the digest the SignerInfo names,
    // and the signature verifies with the certificate's own key algorithm.
    let coversDocumentHash = false
    let integrity = false
    let signingTime: string | null = null
    let signatureOutcome: "verified" | "failed" | "unsupported" | "missing" = "missing"
    let signatureAlgorithm: string | null = null
    const digestAlgorithm = signerInfo === undefined ? undefined : imprintAlgorithmOf(signerInfo.digestAlgorithm.algorithmId)
    if (signerInfo !== undefined && signerCert !== undefined) {
      const attributes = signerInfo.signedAttrs?.attributes ?? []
      const time = attributes.find((a) => a.type === CmsOid.signingTime)?.values[0]
      if (time instanceof asn1js.UTCTime || time instanceof asn1js.GeneralizedTime) signingTime = time.toDate().toISOString()
      const documentDigest = digestAlgorithm === undefined ? undefined : digestOf(digestAlgorithm)
      if (digestAlgorithm === undefined || documentDigest === undefined) {
        signatureOutcome = "unsupported"
        problems.push(
          digestAlgorithm === undefined
            ? `unsupported digest algorithm ${signerInfo.digestAlgorithm.algorithmId}`
            : `the document hash is not a ${digestAlgorithm} digest, the algorithm the signature names`,
        )
      } else {
        if (signerInfo.signedAttrs === undefined) coversDocumentHash = true
        else {
          const digestAttr = attributes.find((a) => a.type === CmsOid.messageDigest)?.values[0]
          coversDocumentHash = digestAttr instanceof asn1js.OctetString && bytesEqual(new Uint8Array(digestAttr.valueBlock.valueHexView), documentDigest)
        }
        if (!coversDocumentHash) problems.push("the signed message digest is not this document hash")
        const verification = yield* verifySignerInfo(signerInfo, signerCert, digestAlgorithm, documentDigest)
        signatureOutcome = verification.outcome
        signatureAlgorithm = verification.algorithm
        integrity = verification.outcome === "verified" && coversDocumentHash
        if (verification.outcome === "failed") problems.push("the signature does not verify with the signer's certificate")
        if (verification.outcome === "unsupported") problems.push(`unsupported signature: ${verification.detail}`)
      }
    }

    // Every certificate the signature carries must be readable by the X.509 library the chain check uses:
    // a malformed extension (e.g. a CRL distribution point) threw there, a 500 found by fuzzing.
    yield* Effect.try({
      try: () => {
        for (const c of certificates) for (const e of x509OfParsed(x509, c).extensions) e.toString()
      },
      catch: () => new InvalidRequest({ detail: "signature carries a certificate that cannot be read" }),
    })

    // The -T timestamp over the signature value: the best proof of existence when it holds.
    const token = signerInfo === undefined ? undefined : signatureTimestampOf(signerInfo)
    const timestamp =
      token === undefined || signerInfo === undefined
        ? null
        : yield* verifySignatureTimestamp(token, new Uint8Array(signerInfo.signature.valueBlock.valueHexView))
    if (timestamp !== null) problems.push(...timestamp.problems.map((p) => `timestamp: ${p}`))
    const ownProof = timestamp !== null && timestamp.valid && timestamp.genTime !== null ? Date.parse(timestamp.genTime) : null
    const byDocument = documentTimestamp !== undefined && (ownProof === null || documentTimestamp < ownProof)
    const proven = byDocument ? documentTimestamp : ownProof
    const bestTime = proven ?? now

    // Chain: signer → issuers (from the CMS, the file, the engine) → a trust anchor, each signature checked.
    const ca = yield* certificateAuthority
    const readable = (bytes: Uint8Array) => Effect.try(() => new x509.X509Certificate(new Uint8Array(bytes))).pipe(Effect.option)
    const anchors = [yield* x509OfStored(x509, ca.root)]
    for (const bytes of (yield* TrustAnchors).certificates) anchors.push(...Option.toArray(yield* readable(bytes)))
    const pool = certificates.map((c) => x509OfParsed(x509, c))
    pool.push(yield* x509OfStored(x509, ca.issuing))
    for (const bytes of embedded.certificates.slice(0, EMBEDDED_LIMIT)) pool.push(...Option.toArray(yield* readable(bytes)))
    const same = (a: X509.X509Certificate, b: X509.X509Certificate) => bytesEqual(new Uint8Array(a.rawData), new Uint8Array(b.rawData))
    const verifies = (c: X509.X509Certificate, by: X509.X509Certificate) =>
      Effect.promise(() => c.verify({ publicKey: by.publicKey, signatureOnly: true }).catch(() => false))

    const path: Array<{ certificate: X509.X509Certificate; signatureValid: boolean; anchor: boolean }> = []
    let trustedRoot = false
    if (signerCert !== undefined) {
      let current = x509OfParsed(x509, signerCert)
      for (let depth = 0; depth < 8; depth++) {
        if (anchors.some((a) => same(a, current))) {
          path.push({ certificate: current, signatureValid: true, anchor: true })
          trustedRoot = true
          break
        }
        let anchor: X509.X509Certificate | undefined
        for (const a of anchors) if (a.subject === current.issuer && (yield* verifies(current, a))) anchor ??= a
        if (anchor !== undefined) {
          path.push({ certificate: current, signatureValid: true, anchor: false }, { certificate: anchor, signatureValid: true, anchor: true })
          trustedRoot = true
          break
        }
        let issuer: X509.X509Certificate | undefined
        for (const c of pool) if (issuer === undefined && c.subject === current.issuer && !same(c, current) && (yield* verifies(current, c))) issuer = c
        path.push({ certificate: current, signatureValid: issuer !== undefined, anchor: false })
        if (issuer === undefined) {
          problems.push(`no issuer certificate for ${current.subject}`)
          break
        }
        current = issuer
      }
      if (!trustedRoot) problems.push("the chain does not lead to this engine's root or a configured trust anchor")
    }

    // Revocation of each certificate below the anchor: embedded CRLs first, then the engine's records.
    const crls = [
      ...embedded.crls,
      ...(signed.crls ?? []).flatMap((c) => (c instanceof pkijs.CertificateRevocationList ? [new Uint8Array(c.toSchema().toBER(false))] : [])),
    ]
    if (signerInfo !== undefined) crls.push(...archived(signerInfo, 0))
    const ocspResponses = [...(embedded.ocspResponses ?? []), ...(signerInfo === undefined ? [] : archived(signerInfo, 1))].slice(0, EMBEDDED_LIMIT)
    const readableCrls = crls.slice(0, EMBEDDED_LIMIT).flatMap((bytes) => {
      try {
        return [new x509.X509Crl(new Uint8Array(bytes))]
      } catch {
        return []
      }
    })
    const findings: Array<CertificateFinding> = []
    for (const [i, step] of path.entries()) {
      const c = step.certificate
      const serial = c.serialNumber.toLowerCase().replace(/^(00)+(?=[0-9a-f])/, "")
      const issuer = path[i + 1]?.certificate
      let revocation: CertificateFinding["revocation"] = { status: step.anchor ? "not-checked" : "unknown", revokedAt: null, reason: null, source: "none" }
      if (!step.anchor && issuer !== undefined) {
        // A revocation a genuine CRL lists always counts (it has a date). "Not listed" counts when the CRL was
        // issued at or after the best signature time (it then speaks for that time), or, without a fresher
        // source, while it is current; for a certificate this engine issued, its records are that source.
        let currentGood = false
        let currentGoodSource: RevocationSource = "embedded-crl"
        for (const crl of readableCrls) {
          if (revocation.status === "revoked" || crl.issuer !== c.issuer) continue
          const genuine = yield* Effect.promise(() => crl.verify({ publicKey: issuer.publicKey }).catch(() => false))
          if (!genuine) continue
          const entry = crl.entries.find((e) => e.serialNumber.toLowerCase().replace(/^(00)+(?=[0-9a-f])/, "") === serial)
          if (entry !== undefined) {
            revocation = {
              status: "revoked",
              revokedAt: entry.revocationDate.toISOString(),
              reason: CRL_REASONS[entry.reason ?? 0] || null,
              source: "embedded-crl",
            }
          } else if (crl.thisUpdate.getTime() >= bestTime) revocation = { status: "good", revokedAt: null, reason: null, source: "embedded-crl" }
          else if (crl.nextUpdate === undefined || crl.nextUpdate.getTime() > now) currentGood = true
        }
        if (revocation.status !== "revoked" && revocation.source === "none" && ocspResponses.length > 0) {
          const subject = pkijs.Certificate.fromBER(new Uint8Array(c.rawData))
          const issuing = pkijs.Certificate.fromBER(new Uint8Array(issuer.rawData))
          for (const response of ocspResponses) {
            if (revocation.status === "revoked" || revocation.source !== "none") continue
            const verdict = yield* ocspVerdict(response, subject, issuing)
            if (verdict?.status === "revoked") {
              revocation = {
                status: "revoked",
                revokedAt: (verdict.revokedAt ?? verdict.thisUpdate).toISOString(),
                reason: CRL_REASONS[verdict.reason ?? 0] || null,
                source: "embedded-ocsp",
              }
            } else if (verdict?.status === "good" && verdict.thisUpdate.getTime() >= bestTime)
              revocation = { status: "good", revokedAt: null, reason: null, source: "embedded-ocsp" }
            else if (verdict?.status === "good" && (verdict.nextUpdate === null || verdict.nextUpdate.getTime() > now)) {
              if (!currentGood) currentGoodSource = "embedded-ocsp"
              currentGood = true
            }
          }
        }
        if (revocation.source === "none") {
          const stored = yield* Effect.flatMap(Certificates, (store) => store.findBySerial(serial))
          if (Option.isSome(stored) && bytesEqual(new Uint8Array(yield* derOf(stored.value)), new Uint8Array(c.rawData))) {
            const status = certificateStatus(stored.value, now)
            revocation =
              status.status === "revoked"
                ? { status: "revoked", revokedAt: new Date(status.revokedAt ?? now).toISOString(), reason: status.reason, source: "engine-records" }
                : { status: "good", revokedAt: null, reason: null, source: "engine-records" }
          } else if (currentGood) revocation = { status: "good", revokedAt: null, reason: null, source: currentGoodSource }
        }
      }
      findings.push({
        subject: c.subject,
        serial,
        issuer: c.issuer,
        notBefore: c.notBefore.toISOString(),
        notAfter: c.notAfter.toISOString(),
        trustAnchor: step.anchor,
        signatureValid: step.signatureValid,
        validAtBestSignatureTime: c.notBefore.getTime() <= bestTime && bestTime < c.notAfter.getTime(),
        revocation,
      })
    }

    // The signer's revocation judged at the best proof of existence (EN 319 102-1 §5.6.2.4): revoked
    // after it, the signature stands (noted); revoked before it, it does not. The CMS signing-time
    // attribute is the signer's own claim and proves nothing (EU DSS does the same).
    const signer = findings[0]
    const signerRevocation = signer?.revocation ?? { status: "unknown" as const, revokedAt: null, reason: null, source: "none" as const }
    const revokedAt = signerRevocation.revokedAt === null ? null : Date.parse(signerRevocation.revokedAt)
    const signedBeforeRevocation = signerRevocation.status !== "revoked" ? null : proven !== null && revokedAt !== null && proven < revokedAt
    if (signerRevocation.status === "revoked") {
      problems.push(
        signedBeforeRevocation
          ? `the signer's certificate was revoked after the timestamp proved the signature existed (${new Date(proven!).toISOString()})`
          : proven !== null
            ? "the signer's certificate was revoked before the timestamp"
            : "the signer's certificate is revoked and no timestamp proves the signature existed before the revocation",
      )
    } else if (signer !== undefined && signerRevocation.status === "unknown") problems.push("the signer's certificate's revocation status is unknown")
    const expired = signer !== undefined && Date.parse(signer.notAfter) <= now
    if (findings.some((f) => !f.validAtBestSignatureTime)) {
      problems.push(
        expired && proven === null
          ? "the signer's certificate is expired and no timestamp proves the signature existed before"
          : "a certificate of the chain is outside its validity period at the best signature time",
      )
    }
    if (findings.some((f) => !f.signatureValid)) problems.push("a certificate of the chain is not signed by its issuer")

    const [indication, subIndication]: [MainIndication, string | null] =
      signerInfo === undefined || signerCert === undefined
        ? ["INDETERMINATE", "NO_SIGNING_CERTIFICATE_FOUND"]
        : signatureOutcome === "unsupported" || signatureOutcome === "missing"
          ? ["INDETERMINATE", "CRYPTO_CONSTRAINTS_FAILURE"]
          : !coversDocumentHash
            ? ["TOTAL-FAILED", "HASH_FAILURE"]
            : signatureOutcome === "failed"
              ? ["TOTAL-FAILED", "SIG_CRYPTO_FAILURE"]
              : !trustedRoot
                ? ["INDETERMINATE", "NO_CERTIFICATE_CHAIN_FOUND"]
                : findings.some((f) => !f.signatureValid)
                  ? ["INDETERMINATE", "CERTIFICATE_CHAIN_GENERAL_FAILURE"]
                  : signerRevocation.status === "revoked" && !signedBeforeRevocation
                    ? proven !== null
                      ? ["TOTAL-FAILED", "REVOKED"]
                      : ["INDETERMINATE", "REVOKED_NO_POE"]
                    : signer !== undefined && Date.parse(signer.notBefore) > bestTime
                      ? ["INDETERMINATE", "NOT_YET_VALID"]
                      : findings.some((f) => !f.validAtBestSignatureTime)
                        ? ["INDETERMINATE", "OUT_OF_BOUNDS_NO_POE"]
                        : signerRevocation.status === "unknown"
                          ? ["INDETERMINATE", "TRY_LATER"]
                          : timestamp !== null && !timestamp.valid
                            ? ["INDETERMINATE", "SIG_CONSTRAINTS_FAILURE"]
                            : ["TOTAL-PASSED", null]

    const report: ValidationReport = {
      valid: indication === "TOTAL-PASSED",
      integrity,
      coversDocumentHash,
      signer: signer === undefined ? null : { subject: signer.subject, serial: signer.serial },
      chain: findings.map((f) => ({ subject: f.subject, serial: f.serial, valid: f.signatureValid && (f.trustAnchor || f.validAtBestSignatureTime) })),
      trustedRoot,
      signingTime,
      timestamp,
      problems: [...new Set(problems)],
      revocation: {
        status: signerRevocation.status === "revoked" ? "revoked" : signerRevocation.status === "good" ? (expired ? "expired" : "valid") : "unknown",
        revokedAt: signerRevocation.revokedAt,
        reason: signerRevocation.reason,
        signedBeforeRevocation,
      },
    }
    const details: ValidationDetails = {
      validationTime: new Date(now).toISOString(),
      digestAlgorithm: digestAlgorithm ?? signerInfo?.digestAlgorithm.algorithmId ?? null,
      signatureAlgorithm,
      bestSignatureTime: {
        time: new Date(bestTime).toISOString(),
        proof: proven === null ? "validation-time" : byDocument ? "document-timestamp" : "signature-timestamp",
      },
      certificateChain: findings,
      indication,
      subIndication,
    }
    return { report, details } satisfies DetailedValidation
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
