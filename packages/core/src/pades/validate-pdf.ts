/**
 * Validation of the signatures of a PDF: for each signature field, the CMS in `/Contents` is
 * checked against the SHA-256 of its byte ranges (integrity), its chain to this engine's root
 * and revocation (as for a detached CMS), and whether it covers the whole document.
 */
import { Effect } from "effect"
import type { InvalidRequest } from "../kernel/errors.ts"
import { toBase64, toHex } from "../kernel/encoding.ts"
import { validateSignature, type ValidationReport } from "../pki/validate.ts"
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

/** Validates each scanned signature (CMS, chain, revocation), oldest revision first. */
export const validateScannedSignatures = (scan: PdfSignatureScan) =>
  Effect.gen(function* () {
    const reports: Array<PdfSignatureReport> = []
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
        reports.push({
          ...base,
          valid: false,
          integrity: false,
          coversDocumentHash: false,
          signer: null,
          chain: [],
          trustedRoot: false,
          revocation: { status: "unknown", revokedAt: null, reason: null, signedBeforeRevocation: null },
          signingTime: null,
          timestamp: null,
          problems: ["the signature has no sound /ByteRange or /Contents"],
        })
        continue
      }
      const report = yield* validateSignature(toBase64(signature.cms), toHex(signature.digest)).pipe(
        Effect.catchTag("InvalidRequest", (e: InvalidRequest) =>
          Effect.succeed({
            valid: false,
            integrity: false,
            coversDocumentHash: false,
            signer: null,
            chain: [],
            trustedRoot: false,
            revocation: { status: "unknown" as const, revokedAt: null, reason: null, signedBeforeRevocation: null },
            signingTime: null,
            timestamp: null,
            problems: [e.detail],
          } satisfies ValidationReport),
        ),
      )
      const problems = [
        ...report.problems,
        ...(report.coversDocumentHash ? [] : ["the byte ranges do not hash to the signed message digest: the document was changed"]),
      ]
      reports.push({ ...report, ...base, problems: [...new Set(problems)] })
    }
    reports.sort((a, b) => a.signedRevisionLength - b.signedRevisionLength)
    return { signatures: reports }
  })

/** Validates every signature of the PDF in `source`, oldest revision first (in this process: the library API). */
export const validatePdf = (source: ByteSource) => Effect.flatMap(scanPdfSignatures(source), validateScannedSignatures)

/**
 * Validates every signature of an uploaded PDF: the scan runs through the `PdfProcessor` (a
 * worker with a deadline and a heap limit in the HTTP engine), the CMS checks here.
 */
export const validatePdfUpload = (pdf: Uint8Array) =>
  Effect.flatMap(PdfProcessor, (processor) => Effect.flatMap(processor.scan(pdf), validateScannedSignatures))
