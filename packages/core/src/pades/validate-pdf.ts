/**
 * Validation of the signatures of a PDF: for each signature field, the CMS in `/Contents` is
 * checked against the digest of its byte ranges under the algorithm its SignerInfo names
 * (integrity), its chain to a trust anchor and revocation (as for a detached CMS, with the CRLs
 * and certificates of the file's `/DSS` used first), and whether it covers the whole document.
 */
import { Effect } from "effect"
import type { InvalidRequest } from "../kernel/errors.ts"
import { validateSignedData, type ValidationDetails, type ValidationReport } from "../pki/validate.ts"
import type { ByteSource } from "./byte-source.ts"
import { PdfProcessor } from "./processor.ts"
import { scanPdfSignatures, type PdfSignatureScan } from "./scan-signatures.ts"

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

/** A PDF signature's short report and the details of the standard report (null when its CMS could not be read). */
export interface PdfSignatureValidation {
  readonly report: PdfSignatureReport
  readonly details: ValidationDetails | null
}

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

/** Validates each scanned signature (CMS, chain, revocation) with its details, oldest revision first. */
export const validateScannedSignaturesDetailed = (scan: PdfSignatureScan) =>
  Effect.gen(function* () {
    const out: Array<PdfSignatureValidation> = []
    const embedded = { certificates: scan.dss?.certificates ?? [], crls: scan.dss?.crls ?? [], ocspResponses: scan.dss?.ocspResponses ?? [] }
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
        out.push({ report: { ...base, ...unreadable("the signature has no sound /ByteRange or /Contents") }, details: null })
        continue
      }
      const digests = signature.digests ?? { "SHA-256": signature.digest }
      const validation = yield* validateSignedData(signature.cms, (algorithm) => digests[algorithm], embedded).pipe(
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
      out.push({ report: { ...report, ...base, problems: [...new Set(problems)] }, details: validation.details })
    }
    out.sort((a, b) => a.report.signedRevisionLength - b.report.signedRevisionLength)
    return out
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
