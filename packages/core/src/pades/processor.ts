/**
 * The heavy PDF work of the HTTP flows (prepare a signature, read signatures for validation,
 * append a DSS), behind one reference so a host can run it somewhere it can be stopped: the HTTP
 * engine provides a pool of worker threads with a heap limit and a deadline that terminates the
 * worker (adapters-http `pdf-workers/`). The default runs it in this process, under the
 * reader's budgets alone. Everything crossing it is plain data (structured-cloneable).
 */
import { Context, Effect } from "effect"
import type { SignatureImageInvalid } from "../documents/errors.ts"
import { bytesSource } from "./byte-source.ts"
import type { PdfReadError } from "./document.ts"
import { appendDss, type ValidationMaterial } from "./dss.ts"
import { byteRangeDigest, prepareDocumentTimestamp, prepareSignature, type PreparedSignature, type SignatureOptions, type SignatureRefusal } from "./prepare.ts"
import { scanPdfSignatures, type PdfSignatureScan } from "./scan-signatures.ts"

/** A prepared signature of an uploaded PDF: the update to append and where its placeholder is. */
export interface PreparedUpload {
  readonly update: Uint8Array
  readonly byteRange: readonly [number, number, number, number]
  readonly contentsOffset: number
  readonly contentsBytes: number
  readonly fieldName: string
  /** SHA-256 of the byte ranges of the PDF with the update appended */
  readonly digest: Uint8Array
}

/** The PDF jobs a processor runs; each takes the whole PDF in memory (an upload). */
export interface PdfJobs {
  readonly prepare: (pdf: Uint8Array, options: SignatureOptions) => Effect.Effect<PreparedUpload, PdfReadError | SignatureImageInvalid | SignatureRefusal>
  /** a document timestamp's field and placeholder (PAdES-LTA) */
  readonly prepareTimestamp: (pdf: Uint8Array, placeholderBytes: number) => Effect.Effect<PreparedUpload, PdfReadError>
  readonly scan: (pdf: Uint8Array) => Effect.Effect<PdfSignatureScan, PdfReadError>
  readonly appendDss: (pdf: Uint8Array, material: ValidationMaterial) => Effect.Effect<Uint8Array, PdfReadError>
}

/** A prepared signature as plain data, with the digest of its byte ranges. */
const upload = (prepared: PreparedSignature) =>
  Effect.map(byteRangeDigest(prepared), (digest): PreparedUpload => {
    const { update, byteRange, contentsOffset, contentsBytes, fieldName } = prepared
    return { update, byteRange, contentsOffset, contentsBytes, fieldName, digest }
  })

/** The jobs run in the calling fiber: what a worker runs, and the default. */
export const pdfJobsInProcess: PdfJobs = {
  prepare: (pdf, options) => Effect.flatMap(prepareSignature(bytesSource(pdf), options), upload),
  prepareTimestamp: (pdf, placeholderBytes) => Effect.flatMap(prepareDocumentTimestamp(bytesSource(pdf), placeholderBytes), upload),
  scan: (pdf) => scanPdfSignatures(bytesSource(pdf)),
  appendDss: (pdf, material) => appendDss(bytesSource(pdf), material),
}

/** Where the heavy PDF jobs run; in this process unless the host provides a worker pool. */
export class PdfProcessor extends Context.Reference<PdfProcessor>()("@signet/core/PdfProcessor", {
  defaultValue: (): PdfJobs => pdfJobsInProcess,
}) {}
