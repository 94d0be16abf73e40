/**
 * Reading the signatures of a PDF without validating them: the signature fields of the AcroForm,
 * their byte ranges, `/Contents`, the SHA-2 digests of the ranges and the `/DSS` material. This is the part of validation
 * that untrusted bytes drive, so it imports no PKI and runs in a PDF worker (processor.ts).
 */
import { Effect } from "effect"
import { PdfUnreadable } from "./errors.ts"
import { PDF_BUDGETS, tooComplex } from "./budget.ts"
import type { ByteSource } from "./byte-source.ts"
import { deref, dictAt, openPdf, type PdfDocument, type PdfReadError } from "./document.ts"
import { arrayOf, fromLatin1, nameOf, PdfDict, PdfRef, PdfString, type PdfValue } from "./objects.ts"
import type { RangeDigestAlgorithm } from "./hashing.ts"
import { digestAlgorithmsNamedIn, hashRangesWith } from "./range-digests.ts"
import { readDss, type DssMaterial } from "./read-dss.ts"
import { readModifications, type ModificationFacts } from "./read-modifications.ts"

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

/**
 * Signature fields of the AcroForm (walking `/Kids`), with their `/V` dictionaries. Fields form a
 * tree (ISO 32000-1 §12.7.3.1), so a field object met twice (a `/Kids` naming its own field or
 * an ancestor) is refused rather than walked again; the walk stops at `PDF_BUDGETS.treeDepth`
 * and `PDF_BUDGETS.walkNodes`.
 */
const signatureFields = (doc: PdfDocument, fields: ReadonlyArray<PdfValue>) =>
  Effect.gen(function* () {
    const out: Array<{ name: string | null; value: PdfDict }> = []
    const visited = new Set<number>()
    // An explicit stack, not recursion: the depth is bounded, and so is the work.
    const stack: Array<{ item: PdfValue; type: string | undefined; prefix: string | null; depth: number }> = fields
      .map((item) => ({ item, type: undefined, prefix: null, depth: 0 }))
      .reverse()
    let nodes = 0
    while (stack.length > 0) {
      const { item, type: inheritedType, prefix, depth } = stack.pop()!
      if (item instanceof PdfRef) {
        if (visited.has(item.num)) return yield* new PdfUnreadable({ detail: `form field ${item.num} appears twice in the field tree` })
        visited.add(item.num)
      }
      if (++nodes > PDF_BUDGETS.walkNodes) return yield* tooComplex(`more than ${PDF_BUDGETS.walkNodes} form fields`)
      const field = yield* deref(doc, item)
      if (!(field instanceof PdfDict)) continue
      const type = nameOf(field.get("FT")) ?? inheritedType
      const t = field.get("T")
      const partial = t instanceof PdfString ? fromLatin1(t.bytes) : null
      const fullName = partial === null ? prefix : prefix === null ? partial : `${prefix}.${partial}`
      if (type === "Sig") {
        const v = yield* deref(doc, field.get("V"))
        if (v instanceof PdfDict) out.push({ name: fullName, value: v })
      }
      const kids = arrayOf(yield* deref(doc, field.get("Kids")))
      if (kids !== undefined && depth < PDF_BUDGETS.treeDepth) {
        for (let i = kids.length - 1; i >= 0; i--) stack.push({ item: kids[i]!, type, prefix: fullName, depth: depth + 1 })
      }
    }
    return out
  })

/** One signature as read from the PDF, before its CMS is validated. */
export interface ScannedSignature {
  readonly fieldName: string | null
  readonly subFilter: string | null
  readonly byteRange: ReadonlyArray<number>
  readonly claimedSigningTime: string | null
  /** the DER CMS of `/Contents` (placeholder padding left off); null without sound byte ranges and contents */
  readonly cms: Uint8Array | null
  /** SHA-256 of the byte ranges; null when `cms` is */
  readonly digest: Uint8Array | null
  /** the byte ranges hashed with each SHA-2 digest the CMS names (SHA-256 always); empty when `cms` is null */
  readonly digests: Partial<Record<RangeDigestAlgorithm, Uint8Array>>
}

/** What reading a PDF's signatures found: each signature, and the document's size. */
export interface PdfSignatureScan {
  readonly size: number
  readonly signatures: ReadonlyArray<ScannedSignature>
  /** what the file's `/DSS` carries for validation */
  readonly dss: DssMaterial
  /** the certification, the field locks and the revision ends, for judging later changes */
  readonly modifications?: ModificationFacts
}

/**
 * Reads the signatures of the PDF in `source` without validating them: the parsing and hashing
 * part of validation, the part that untrusted bytes drive (the part run in a PDF worker).
 */
export const scanPdfSignatures = (source: ByteSource): Effect.Effect<PdfSignatureScan, PdfReadError> =>
  Effect.gen(function* () {
    const doc = yield* openPdf(source)
    const catalog = yield* dictAt(doc, doc.trailer.get("Root"), "the catalog")
    const acro = yield* deref(doc, catalog.get("AcroForm"))
    const fields = acro instanceof PdfDict ? (arrayOf(yield* deref(doc, acro.get("Fields"))) ?? []) : []
    const found = yield* signatureFields(doc, fields)
    const signatures: Array<ScannedSignature> = []
    for (const { name, value } of found) {
      const range = (arrayOf(value.get("ByteRange")) ?? []).map((n) => (typeof n === "number" && Number.isSafeInteger(n) ? n : -1))
      const contents = value.get("Contents")
      const base = { fieldName: name, subFilter: nameOf(value.get("SubFilter")) ?? null, byteRange: range, claimedSigningTime: fromPdfDate(value.get("M")) }
      const sound = range.length === 4 && range[0] === 0 && range.every((n) => n >= 0) && range[1]! < range[2]! && range[2]! + range[3]! <= source.size
      if (!sound || !(contents instanceof PdfString)) {
        signatures.push({ ...base, cms: null, digest: null, digests: {} })
        continue
      }
      const cms = contents.bytes.subarray(0, derLength(contents.bytes))
      const digests = yield* hashRangesWith(
        source,
        [
          [0, range[1]!],
          [range[2]!, range[3]!],
        ],
        digestAlgorithmsNamedIn(cms),
      )
      signatures.push({ ...base, cms, digest: digests["SHA-256"]!, digests })
    }
    return { size: source.size, signatures, dss: yield* readDss(doc, catalog), modifications: yield* readModifications(doc, source) }
  })
