/**
 * Validation of the signatures of a PDF: for each signature field, the CMS in `/Contents` is
 * checked against the digest of its byte ranges under the algorithm its SignerInfo names
 * (integrity), its chain to a trust anchor and revocation (as for a detached CMS, with the CRLs
 * and certificates of the file's `/DSS` used first), and whether it covers the whole document.
 */
import { Clock, Effect } from "effect"
import type { InvalidRequest } from "../kernel/errors.ts"
import { verifyTimestampToken } from "../pki/timestamp-verify.ts"
import { type DetailedValidation, type MainIndication, validateSignedData, type ValidationDetails, type ValidationReport } from "../pki/validate.ts"
import type { ByteSource } from "./byte-source.ts"
import { PdfProcessor } from "./processor.ts"
import { lockCovers } from "./modification-rules.ts"
import type { ModificationFacts } from "./read-modifications.ts"
import { scanPdfSignatures, type PdfSignatureScan, type ScannedSignature } from "./scan-signatures.ts"

/** What was found for one signature of a PDF. */
export interface PdfSignatureReport extends ValidationReport {
  readonly fieldName: string | null
  readonly subFilter: string | null
  readonly byteRange: ReadonlyArray<number>
  /** the last byte range ends at the end of the file (nothing was appended after it) */
  readonly coversWholeDocument: boolean
  /** length of the revision this signature signed */
  readonly signedRevisionLength: number
  /** `/M` of the signature dictionary (the time PAdES claims), ISO 8601 */
  readonly claimedSigningTime: string | null
}

/**
 * What a certification (DocMDP) or a field lock (FieldMDP) of a signature says of the changes
 * made after it: the later signatures it allows and forbids, and the later revisions that add no
 * signature (a /DSS, form or annotation changes), listed but not examined object by object.
 */
export interface ModificationStatus {
  readonly rule: "DocMDP" | "FieldMDP"
  /** DocMDP `/P` (or the lock's PDF 2.0 `/P`); null for a FieldMDP lock without one */
  readonly permissions: number | null
  readonly allowedChanges: ReadonlyArray<string>
  readonly forbiddenChanges: ReadonlyArray<string>
  /** end offsets of later revisions that add no signature */
  readonly unexaminedRevisions: ReadonlyArray<number>
}

/** A PDF signature's short report and the details of the standard report (null when its CMS could not be read). */
export interface PdfSignatureValidation {
  readonly report: PdfSignatureReport
  readonly details: ValidationDetails | null
  /** null unless the signature certifies the document or locks fields */
  readonly modifications: ModificationStatus | null
}

/**
 * Judges, for the certifying signature and each locking one, the signatures added after it: a
 * document timestamp is always allowed; an approval signature is forbidden by DocMDP P=1 (or a
 * lock's P=1) and, into a field the lock covers, by FieldMDP; otherwise allowed. A forbidden change
 * makes that signature not valid (`INDETERMINATE / SIG_CONSTRAINTS_FAILURE` in the standard report).
 */
const judgeModifications = (validations: ReadonlyArray<PdfSignatureValidation>, facts: ModificationFacts | undefined): Array<PdfSignatureValidation> =>
  validations.map((v) => {
    if (facts === undefined || v.report.fieldName === null) return v
    const certifies = facts.certification !== null && facts.certification.fieldName === v.report.fieldName
    const lock = facts.locks.find((l) => l.fieldName === v.report.fieldName)
    if (!certifies && lock === undefined) return v
    const permissions = certifies ? facts.certification!.permissions : (lock?.permissions ?? null)
    const end = v.report.signedRevisionLength
    const later = validations.filter((w) => w.report.signedRevisionLength > end)
    const allowed: Array<string> = []
    const forbidden: Array<string> = []
    for (const w of later) {
      const name = w.report.fieldName ?? "an unnamed field"
      if (w.report.subFilter === "ETSI.RFC3161") allowed.push(`document timestamp in ${name}`)
      else if (permissions === 1) forbidden.push(`signature in ${name}: ${certifies ? "DocMDP" : "the lock's"} P=1 allows no changes`)
      else if (lock !== undefined && w.report.fieldName !== null && lockCovers(lock, w.report.fieldName))
        forbidden.push(`signature in ${name}: the field is locked by ${v.report.fieldName} (FieldMDP /${lock.action})`)
      else allowed.push(`signature in ${name}`)
    }
    const signedEnds = new Set(validations.map((w) => w.report.signedRevisionLength))
    const unexamined = facts.revisionEnds.filter((e) => e > end && !signedEnds.has(e))
    const modifications: ModificationStatus = {
      rule: certifies ? "DocMDP" : "FieldMDP",
      permissions,
      allowedChanges: allowed,
      forbiddenChanges: forbidden,
      unexaminedRevisions: unexamined,
    }
    if (forbidden.length === 0) return { ...v, modifications }
    const problems = [...v.report.problems, ...forbidden.map((f) => `a change the ${modifications.rule} rules of this signature forbid: ${f}`)]
    const details =
      v.details === null || v.details.indication !== "TOTAL-PASSED"
        ? v.details
        : { ...v.details, indication: "INDETERMINATE" as const, subIndication: "SIG_CONSTRAINTS_FAILURE" }
    return { report: { ...v.report, valid: false, problems }, details, modifications }
  })

const unreadable = (problem: string): ValidationReport => ({
  valid: false,
  integrity: false,
  coversDocumentHash: false,
  signer: null,
  chain: [],
  trustedRoot: false,
  revocation: { status: "unknown", revokedAt: null, reason: null, signedBeforeRevocation: null },
  signingTime: null,
  timestamp: null,
  problems: [problem],
})

const DOCUMENT_TIMESTAMP = "ETSI.RFC3161"

/**
 * A document timestamp (`/SubFilter /ETSI.RFC3161`, PAdES B-LTA): an RFC 3161 token whose imprint is
 * the digest of its byte ranges, checked as a signature's timestamp is (TSA signature, usage,
 * period, chain to the engine's root, revocation); its time is the proof of existence of the
 * revisions it covers.
 */
const validateDocumentTimestamp = (signature: ScannedSignature) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const digests = signature.digests ?? {}
    const stamp = yield* verifyTimestampToken(
      signature.cms!,
      (algorithm) => Effect.succeed(digests[algorithm]),
      "the document timestamp is not over its byte ranges: the document was changed",
    )
    const covers = !stamp.problems.includes("the document timestamp is not over its byte ranges: the document was changed")
    const readable = stamp.genTime !== null
    const time = stamp.genTime ?? new Date(now).toISOString()
    const report: ValidationReport = {
      valid: stamp.valid,
      integrity: readable && covers && !stamp.problems.includes("the TSA's signature over the timestamp does not verify"),
      coversDocumentHash: covers,
      signer: stamp.tsa,
      chain: [],
      trustedRoot: readable && !stamp.problems.includes("the TSA certificate does not chain to this engine's root"),
      revocation: { status: stamp.valid ? "valid" : "unknown", revokedAt: null, reason: null, signedBeforeRevocation: null },
      signingTime: stamp.genTime,
      timestamp: stamp,
      problems: stamp.problems,
    }
    const [indication, subIndication]: [MainIndication, string | null] = stamp.valid
      ? ["TOTAL-PASSED", null]
      : !readable
        ? ["TOTAL-FAILED", "FORMAT_FAILURE"]
        : !covers
          ? ["TOTAL-FAILED", "HASH_FAILURE"]
          : !report.integrity
            ? ["TOTAL-FAILED", "SIG_CRYPTO_FAILURE"]
            : ["INDETERMINATE", report.trustedRoot ? "SIG_CONSTRAINTS_FAILURE" : "NO_CERTIFICATE_CHAIN_FOUND"]
    return {
      report,
      details: {
        validationTime: new Date(now).toISOString(),
        digestAlgorithm: null,
        signatureAlgorithm: "RFC 3161 document timestamp",
        bestSignatureTime: { time, proof: readable ? "document-timestamp" : "validation-time" },
        certificateChain: [],
        indication,
        subIndication,
      },
    } satisfies DetailedValidation
  })

/** Validates each scanned signature (CMS, chain, revocation) with its details, oldest revision first. */
export const validateScannedSignaturesDetailed = (scan: PdfSignatureScan) =>
  Effect.gen(function* () {
    const out: Array<PdfSignatureValidation> = []
    const embedded = { certificates: scan.dss?.certificates ?? [], crls: scan.dss?.crls ?? [], ocspResponses: scan.dss?.ocspResponses ?? [] }
    const endOf = (range: ReadonlyArray<number>) => (range.length === 4 ? range[2]! + range[3]! : 0)
    // Document timestamps first: a valid one proves every signature of the revisions it covers existed at its time.
    const documentTimestamps = new Map<ScannedSignature, DetailedValidation>()
    for (const signature of scan.signatures) {
      if (signature.subFilter !== DOCUMENT_TIMESTAMP || signature.cms === null || signature.digest === null) continue
      documentTimestamps.set(signature, yield* validateDocumentTimestamp(signature))
    }
    const proofFor = (end: number): number | undefined => {
      const times = [...documentTimestamps.entries()]
        .filter(([s, v]) => endOf(s.byteRange) > end && v.report.valid && v.report.timestamp?.genTime != null)
        .map(([, v]) => Date.parse(v.report.timestamp!.genTime!))
      return times.length === 0 ? undefined : Math.min(...times)
    }
    for (const signature of scan.signatures) {
      const range = signature.byteRange
      const base = {
        fieldName: signature.fieldName,
        subFilter: signature.subFilter,
        byteRange: range,
        claimedSigningTime: signature.claimedSigningTime,
        coversWholeDocument: range.length === 4 && range[2]! + range[3]! === scan.size,
        signedRevisionLength: range.length === 4 ? range[2]! + range[3]! : 0,
      }
      if (signature.cms === null || signature.digest === null) {
        out.push({ report: { ...base, ...unreadable("the signature has no sound /ByteRange or /Contents") }, details: null, modifications: null })
        continue
      }
      const digests = signature.digests ?? { "SHA-256": signature.digest }
      const stamped = documentTimestamps.get(signature)
      const validation = yield* (
        stamped !== undefined ? Effect.succeed(stamped) : validateSignedData(signature.cms, (algorithm) => digests[algorithm], embedded, proofFor(endOf(range)))
      ).pipe(
        Effect.map((v): { report: ValidationReport; details: ValidationDetails | null } => v),
        Effect.catchTag("InvalidRequest", (e: InvalidRequest) => Effect.succeed({ report: unreadable(e.detail), details: null })),
      )
      const report = validation.report
      const problems = [
        ...report.problems,
        ...(report.coversDocumentHash || validation.details === null || validation.details.subIndication !== "HASH_FAILURE"
          ? []
          : ["the byte ranges do not hash to the signed message digest: the document was changed"]),
      ]
      out.push({ report: { ...report, ...base, problems: [...new Set(problems)] }, details: validation.details, modifications: null })
    }
    out.sort((a, b) => a.report.signedRevisionLength - b.report.signedRevisionLength)
    return judgeModifications(out, scan.modifications)
  })

/** Validates each scanned signature (CMS, chain, revocation), oldest revision first. */
export const validateScannedSignatures = (scan: PdfSignatureScan) =>
  Effect.map(validateScannedSignaturesDetailed(scan), (validations) => ({ signatures: validations.map((v) => v.report) }))

/** Validates every signature of the PDF in `source`, oldest revision first (in this process: the library API). */
export const validatePdf = (source: ByteSource) => Effect.flatMap(scanPdfSignatures(source), validateScannedSignatures)

/**
 * Validates every signature of an uploaded PDF: the scan runs through the `PdfProcessor` (a
 * worker with a deadline and a heap limit in the HTTP engine), the CMS checks here.
 */
export const validatePdfUpload = (pdf: Uint8Array) =>
  Effect.flatMap(PdfProcessor, (processor) => Effect.flatMap(processor.scan(pdf), validateScannedSignatures))

/** As `validatePdfUpload`, with the details of the standard report for each signature. */
export const validatePdfUploadDetailed = (pdf: Uint8Array) =>
  Effect.flatMap(PdfProcessor, (processor) => Effect.flatMap(processor.scan(pdf), validateScannedSignaturesDetailed))
