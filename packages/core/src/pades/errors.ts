/** Errors of the PAdES capability (PDF signing). */
import { Schema } from "effect"

/** 422: the uploaded bytes are not a PDF the engine can read and append a signature to. */
export class PdfUnreadable extends Schema.TaggedError<PdfUnreadable>()("PdfUnreadable", { detail: Schema.String }) {
  readonly status = 422 as const
  override get message() {
    return `Not a PDF that can be signed: ${this.detail}`
  }
}

/**
 * 422: reading the PDF would go past one of the reader's fixed budgets (objects, inflated bytes,
 * nesting depth, cross-reference entries) or past the PDF worker's time or memory (docs/security/pdf.md).
 */
export class PdfTooComplex extends Schema.TaggedError<PdfTooComplex>()("PdfTooComplex", { detail: Schema.String }) {
  readonly status = 422 as const
  override get message() {
    return `PDF exceeds a processing limit: ${this.detail}`
  }
}

/** 413: a PDF upload above the documented limit. */
export class PdfTooLarge extends Schema.TaggedError<PdfTooLarge>()("PdfTooLarge", { limit: Schema.Number }) {
  readonly status = 413 as const
  override get message() {
    return `PDF too large; the limit is ${this.limit} bytes (sign larger files with the library API)`
  }
}

/** 409: the signature is larger than the placeholder prepared for it. */
export class SignatureTooLargeForPlaceholder extends Schema.TaggedError<SignatureTooLargeForPlaceholder>()("SignatureTooLargeForPlaceholder", {
  size: Schema.Number,
  room: Schema.Number,
}) {
  readonly status = 409 as const
  override get message() {
    return `Signature of ${this.size} bytes does not fit the ${this.room}-byte placeholder`
  }
}

/** 404: no prepared or signed PDF under this id (or it belongs to another relying party). */
export class PdfDocumentNotFound extends Schema.TaggedError<PdfDocumentNotFound>()("PdfDocumentNotFound", {}) {
  readonly status = 404 as const
  override get message() {
    return "PDF signing request not found"
  }
}

/** 409: the signed PDF was asked for before the signer approved it. */
export class PdfNotYetSigned extends Schema.TaggedError<PdfNotYetSigned>()("PdfNotYetSigned", { requestStatus: Schema.String }) {
  readonly status = 409 as const
  override get message() {
    return `PDF not signed yet. Status: ${this.requestStatus}`
  }
}

/**
 * 409: the document's signatures forbid this signature: a certification (DocMDP) or a field lock
 * (FieldMDP, `/Lock`) that allows no further signature or not into that field, a field already
 * signed, or a certification asked for on a document that already has signatures.
 */
export class PdfSignatureNotPermitted extends Schema.TaggedError<PdfSignatureNotPermitted>()("PdfSignatureNotPermitted", { detail: Schema.String }) {
  readonly status = 409 as const
  override get message() {
    return `Signature not permitted: ${this.detail}`
  }
}

/** 422: the request names a signature field the PDF has no empty signature field for. */
export class SignatureFieldNotFound extends Schema.TaggedError<SignatureFieldNotFound>()("SignatureFieldNotFound", {
  /** the field name asked for (named `detail` so it crosses the PDF worker like the other PDF errors) */
  detail: Schema.String,
}) {
  readonly status = 422 as const
  override get message() {
    return `The PDF has no signature field named ${this.detail}`
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const padesErrors = [
  PdfUnreadable,
  PdfTooComplex,
  PdfTooLarge,
  SignatureTooLargeForPlaceholder,
  PdfDocumentNotFound,
  PdfNotYetSigned,
  PdfSignatureNotPermitted,
  SignatureFieldNotFound,
] as const
/** An error of this module. */
export type PadesError = InstanceType<(typeof padesErrors)[number]>
