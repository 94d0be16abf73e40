/**
 * Validation of the signatures of a PDF: for each signature field, the CMS in `/Contents` is
 * checked against the SHA-256 of its byte ranges (integrity), its chain to this engine's root
 * and revocation (as for a detached CMS), and whether it covers the whole document.
 */
import { Effect } from "effect"
import { InvalidRequest, PdfUnreadable } from "../errors/catalogue.ts"
import { toBase64, toHex } from "../kernel/encoding.ts"
import { validateSignature, type ValidationReport } from "../pki/validate.ts"
import type { ByteSource } from "./byte-source.ts"
import { deref, dictAt, openPdf, type PdfDocument } from "./document.ts"
import { arrayOf, fromLatin1, nameOf, PdfDict, PdfString, type PdfValue } from "./objects.ts"
import { hashRanges } from "./prepare.ts"

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

/** The DER length of `bytes` (a SEQUENCE), so the placeholder's zero padding is left off. */
const derLength = (bytes: Uint8Array): number => {
  if (bytes.length < 2 || bytes[0] !== 0x30) return bytes.length
  const first = bytes[1]!
  if (first < 0x80) return Math.min(bytes.length, 2 + first)
  const count = first & 0x7f
  let length = 0
  for (let i = 0; i < count; i++) length = length * 256 + (bytes[2 + i] ?? 0)
  return Math.min(bytes.length, 2 + count + length)
}

/** `D:YYYYMMDDHHmmSS+HH'mm'` to ISO 8601, or null. */
const fromPdfDate = (value: PdfValue | undefined): string | null => {
  if (!(value instanceof PdfString)) return null
  const m = /^D:(\d{4})(\d\d)?(\d\d)?(\d\d)?(\d\d)?(\d\d)?(Z|[+-]\d\d'?\d\d'?)?/.exec(fromLatin1(value.bytes))
  if (m === null) return null
  const zone = m[7] === undefined || m[7] === "Z" ? "Z" : `${m[7].slice(0, 3)}:${m[7].slice(3).replace(/'/g, "").padEnd(2, "0")}`
  const date = new Date(`${m[1]}-${m[2] ?? "01"}-${m[3] ?? "01"}T${m[4] ?? "00"}:${m[5] ?? "00"}:${m[6] ?? "00"}${zone}`)
  return Number.isNaN(date.getTime()) ? null : date.toISOString()
}

/** Signature fields of the AcroForm (walking `/Kids`), with their `/V` dictionaries. */
const signatureFields = (doc: PdfDocument, fields: ReadonlyArray<PdfValue>) =>
  Effect.gen(function* () {
    const out: Array<{ name: string | null; value: PdfDict }> = []
    const walk = (list: ReadonlyArray<PdfValue>, inheritedType: string | undefined, prefix: string | null, depth: number): Effect.Effect<void, PdfUnreadable> =>
      Effect.gen(function* () {
        if (depth > 16) return
        for (const f of list) {
          const field = yield* deref(doc, f)
          if (!(field instanceof PdfDict)) continue
          const type = nameOf(field.get("FT")) ?? inheritedType
          const t = field.get("T")
          const partial = t instanceof PdfString ? fromLatin1(t.bytes) : null
          const fullName = partial === null ? prefix : prefix === null ? partial : `${prefix}.${partial}`
          const kids = arrayOf(yield* deref(doc, field.get("Kids")))
          if (kids !== undefined) yield* walk(kids, type, fullName, depth + 1)
          if (type !== "Sig") continue
          const v = yield* deref(doc, field.get("V"))
          if (v instanceof PdfDict) out.push({ name: fullName, value: v })
        }
      })
    yield* walk(fields, undefined, null, 0)
    return out
  })

/** Validates every signature of the PDF in `source`, oldest revision first. */
export const validatePdf = (source: ByteSource) =>
  Effect.gen(function* () {
    const doc = yield* openPdf(source)
    const catalog = yield* dictAt(doc, doc.trailer.get("Root"), "the catalog")
    const acro = yield* deref(doc, catalog.get("AcroForm"))
    const fields = acro instanceof PdfDict ? arrayOf(yield* deref(doc, acro.get("Fields"))) ?? [] : []
    const found = yield* signatureFields(doc, fields)
    const reports: Array<PdfSignatureReport> = []
    for (const { name, value } of found) {
      const range = (arrayOf(value.get("ByteRange")) ?? []).map((n) => (typeof n === "number" ? n : -1))
      const contents = value.get("Contents")
      const subFilter = nameOf(value.get("SubFilter")) ?? null
      const base = {
        fieldName: name, subFilter, byteRange: range, claimedSigningTime: fromPdfDate(value.get("M")),
        coversWholeDocument: range.length === 4 && range[2]! + range[3]! === source.size,
        signedRevisionLength: range.length === 4 ? range[2]! + range[3]! : 0,
      }
      const sound = range.length === 4 && range[0] === 0 && range.every((n) => n >= 0) && range[1]! < range[2]! && range[2]! + range[3]! <= source.size
      if (!sound || !(contents instanceof PdfString)) {
        reports.push({
          ...base, valid: false, integrity: false, coversDocumentHash: false, signer: null, chain: [], trustedRoot: false,
          revocation: { status: "unknown", revokedAt: null, reason: null, signedBeforeRevocation: null }, signingTime: null, timestamp: null, problems: ["the signature has no sound /ByteRange or /Contents"],
        })
        continue
      }
      const digest = yield* hashRanges(source, [[0, range[1]!], [range[2]!, range[3]!]])
      const cms = contents.bytes.subarray(0, derLength(contents.bytes))
      const report = yield* validateSignature(toBase64(cms), toHex(digest)).pipe(
        Effect.catchTag("InvalidRequest", (e: InvalidRequest) => Effect.succeed({
          valid: false, integrity: false, coversDocumentHash: false, signer: null, chain: [], trustedRoot: false,
          revocation: { status: "unknown" as const, revokedAt: null, reason: null, signedBeforeRevocation: null }, signingTime: null, timestamp: null, problems: [e.detail],
        } satisfies ValidationReport)))
      const problems = [...report.problems, ...(report.coversDocumentHash ? [] : ["the byte ranges do not hash to the signed message digest: the document was changed"])]
      reports.push({ ...report, ...base, problems: [...new Set(problems)] })
    }
    reports.sort((a, b) => a.signedRevisionLength - b.signedRevisionLength)
    return { signatures: reports }
  })
