/**
 * PAdES signing of a PDF (ETSI EN 319 142-1): prepare an incremental update with a signature
 * field, its widget (invisible, or visible on a page), the signature dictionary
 * (`/Adobe.PPKLite`, `/ETSI.CAdES.detached`, `/M`, `/ByteRange`, a `/Contents` placeholder),
 * the updated `/AcroForm` (SigFlags 3) and page `/Annots`; hash the two byte ranges; embed
 * the CMS. The document is read through a `ByteSource`, so its size does not matter.
 */
import { Effect } from "effect"
import { PdfSignatureNotPermitted, PdfUnreadable, SignatureFieldNotFound, SignatureTooLargeForPlaceholder } from "./errors.ts"
import type { SignatureImageInvalid } from "../documents/errors.ts"
import { concatSource, type ByteSource } from "./byte-source.ts"
import { PDF_BUDGETS, tooComplex } from "./budget.ts"
import { deref, dictAt, openPdf, type PdfDocument, type PdfReadError } from "./document.ts"
import { Sha256Streams } from "./hashing.ts"
import { incrementalUpdate, objectNumbers, type UpdateObject } from "./incremental.ts"
import { arrayOf, dict, fromLatin1, latin1, name, numberOf, PdfDict, PdfRaw, PdfRef, PdfStream, PdfString, textString, type PdfValue } from "./objects.ts"
import { approvalAllowed, modificationRules, type ApprovalTarget, type MdpPermissions, type SignatureField } from "./modification-rules.ts"
import { imageFromPng } from "./png.ts"
import { deflate } from "./filters.ts"

/** Where and how a visible signature is drawn. */
export interface VisibleSignature {
  /** 1-based page number */
  readonly page: number
  /** `[x1, y1, x2, y2]` in PDF points from the page's lower-left corner */
  readonly rect: readonly [number, number, number, number]
  /** optional PNG drawn left of the text */
  readonly image?: Uint8Array | undefined
}

/** What goes into the signature. */
export interface SignatureOptions {
  /** the signer's name, in `/Name` and the visible text */
  readonly signerName: string
  /** the signing time claimed in `/M` (PAdES puts it there, not in the CMS) */
  readonly signingTime: Date
  readonly reason?: string | undefined
  readonly location?: string | undefined
  /** room for the CMS in bytes (default 32 KiB: a timestamp, chain and revocation data fit) */
  readonly placeholderBytes?: number | undefined
  /**
   * absent: an invisible signature on page 1. When an existing field is filled, its widget's own
   * rectangle is used (`page` and `rect` are not), and `image` is drawn in it.
   */
  readonly visible?: VisibleSignature | undefined
  /**
   * A certification signature (DocMDP, ISO 32000-1 §12.8.2.2): which changes the document allows
   * after it (1 none, 2 form filling and signing, 3 also annotations). Only as the first signature.
   */
  readonly certify?: { readonly permissions: MdpPermissions } | undefined
  /**
   * Fill this existing empty signature field (fully qualified name) instead of adding one. Absent:
   * the document's only empty signature field when it has exactly one and no `visible` placement is
   * asked for, else a new field.
   */
  readonly field?: string | undefined
}

/** Why a signature may be refused before anything is written (besides an unreadable PDF). */
export type SignatureRefusal = PdfSignatureNotPermitted | SignatureFieldNotFound

/** Default `/Contents` room: 32 KiB of DER, 64 KiB of hex. */
export const DEFAULT_PLACEHOLDER_BYTES = 32 * 1024

/** A prepared signature: the update to append (with an empty `/Contents`) and its byte ranges. */
export interface PreparedSignature {
  readonly source: ByteSource
  readonly update: Uint8Array
  /** `[0, a, b, c]`: bytes [0, a) and [b, b + c) of the updated file are signed */
  readonly byteRange: readonly [number, number, number, number]
  /** absolute offset of the first hex digit of `/Contents` */
  readonly contentsOffset: number
  /** room for the DER signature in bytes */
  readonly contentsBytes: number
  readonly fieldName: string
}

const unreadable = (detail: string) => new PdfUnreadable({ detail })

/** PDF date `D:YYYYMMDDHHmmSS+00'00'` (UTC). */
export const pdfDate = (time: Date): string => {
  const iso = time.toISOString()
  return `D:${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}+00'00'`
}

/**
 * The reference and dictionary of page `number` (1-based), walking the page tree by `/Count`.
 * A node met twice on the way down (`/Kids` naming an ancestor) is a cycle, refused; the kids
 * looked at are bounded by `PDF_BUDGETS.walkNodes`.
 */
const findPage = (doc: PdfDocument, catalog: PdfDict, number: number) =>
  Effect.gen(function* () {
    let node = catalog.get("Pages")
    let index = number - 1
    const path = new Set<number>()
    let looked = 0
    for (let depth = 0; depth < PDF_BUDGETS.treeDepth; depth++) {
      if (!(node instanceof PdfRef)) return yield* unreadable("the page tree has a direct node")
      if (path.has(node.num)) return yield* unreadable("the page tree has a cycle")
      path.add(node.num)
      const d = yield* dictAt(doc, node, "a page tree node")
      const kids = arrayOf(d.get("Kids"))
      if (kids === undefined) {
        if (index === 0) return { ref: node, page: d }
        return yield* unreadable(`the document has no page ${number}`)
      }
      let next: PdfValue | undefined
      for (const kid of kids) {
        if (++looked > PDF_BUDGETS.walkNodes) return yield* tooComplex(`more than ${PDF_BUDGETS.walkNodes} page tree nodes`)
        const k = yield* dictAt(doc, kid, "a page tree kid")
        const count = arrayOf(k.get("Kids")) === undefined ? 1 : (numberOf(k.get("Count")) ?? 0)
        if (index < count) {
          next = kid
          break
        }
        index -= count
      }
      if (next === undefined) return yield* unreadable(`the document has no page ${number}`)
      node = next
    }
    return yield* unreadable("the page tree is too deep")
  })

/** Text for a literal string in a content stream (WinAnsi; other characters become `?`). */
const contentText = (text: string): string =>
  `(${[...text]
    .map((ch) => (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) > 0xff ? "?" : ch))
    .join("")
    .replace(/[\\()]/g, (c) => `\\${c}`)})`

const n2 = (x: number) => Number(x.toFixed(2))

/** The appearance of a visible signature: border, optional image, signer and time. */
const visibleAppearance = (options: SignatureOptions, width: number, height: number, image: { ref: PdfRef; width: number; height: number } | undefined) => {
  const time = `${options.signingTime.toISOString().slice(0, 19).replace("T", " ")} UTC`
  const lines = ["Digitally signed by", options.signerName, time]
  const pad = Math.min(4, width / 20, height / 10)
  let textX = pad
  let ops = `q 0.2 0.25 0.5 RG 0.8 w ${n2(0.4)} ${n2(0.4)} ${n2(width - 0.8)} ${n2(height - 0.8)} re S Q\n`
  if (image !== undefined) {
    const boxW = width * 0.4 - 2 * pad
    const boxH = height - 2 * pad
    const scale = Math.min(boxW / image.width, boxH / image.height)
    const w = image.width * scale
    const h = image.height * scale
    ops += `q ${n2(w)} 0 0 ${n2(h)} ${n2(pad + (boxW - w) / 2)} ${n2(pad + (boxH - h) / 2)} cm /Im1 Do Q\n`
    textX = width * 0.4
  }
  const textWidth = width - textX - pad
  const longest = Math.max(...lines.map((l) => l.length))
  const size = Math.max(3, Math.min(14, (height - 2 * pad) / (lines.length * 1.25), textWidth / (longest * 0.55)))
  const lead = size * 1.25
  const top = height / 2 + (lines.length * lead) / 2 - size
  ops += `BT /F1 ${n2(size)} Tf 0.1 0.1 0.3 rg ${n2(textX)} ${n2(top)} Td ${n2(lead)} TL\n`
  ops += lines.map((l, i) => `${i === 0 ? "" : "T* "}${contentText(l)} Tj`).join("\n")
  ops += "\nET\n"
  return ops
}

/** What kind of signature dictionary an update carries: an approval or certification signature, or a document timestamp. */
type SignatureKind =
  | { readonly kind: "signature"; readonly options: SignatureOptions }
  | { readonly kind: "timestamp"; readonly placeholderBytes?: number | undefined }

/**
 * Prepares the signature update of `source`: every object the signature needs, a new xref
 * section and trailer, and the byte ranges with a `/Contents` placeholder to embed into. Refuses
 * what the document's certification (DocMDP) or field locks (FieldMDP) forbid, a certification
 * of a document that already has signatures, and a `field` the document does not have.
 */
export const prepareSignature = (
  source: ByteSource,
  options: SignatureOptions,
): Effect.Effect<PreparedSignature, PdfReadError | SignatureImageInvalid | SignatureRefusal> => prepareUpdate(source, { kind: "signature", options })

/**
 * Prepares a document timestamp (PAdES B-LTA, ETSI EN 319 142-1 §5.5): a new invisible field
 * whose `/Type /DocTimeStamp` dictionary (`/SubFilter /ETSI.RFC3161`) will hold an RFC 3161
 * TimeStampToken over the byte ranges. Allowed whatever the certification (ISO 32000-2 Table 257
 * exempts DSS and document timestamp updates).
 */
export const prepareDocumentTimestamp = (source: ByteSource, placeholderBytes?: number): Effect.Effect<PreparedSignature, PdfReadError> =>
  prepareUpdate(source, { kind: "timestamp", placeholderBytes }) as Effect.Effect<PreparedSignature, PdfReadError>

const rectOf = (value: PdfValue | undefined): readonly [number, number, number, number] | undefined => {
  const r = arrayOf(value)
  if (r === undefined || r.length !== 4 || !r.every((n) => typeof n === "number" && Number.isFinite(n))) return undefined
  return r as unknown as readonly [number, number, number, number]
}

/** The field to fill, or undefined for a new one; fails on a named field the document does not have. */
const chooseField = (fields: ReadonlyArray<SignatureField>, options: SignatureOptions) => {
  if (options.field !== undefined) {
    const named = fields.find((f) => f.name === options.field)
    return named === undefined ? Effect.fail(new SignatureFieldNotFound({ detail: options.field })) : Effect.succeed(named)
  }
  const empty = fields.filter((f) => f.signature === null && f.ref !== null)
  return Effect.succeed(empty.length === 1 && options.visible === undefined ? empty[0] : undefined)
}

const prepareUpdate = (source: ByteSource, what: SignatureKind): Effect.Effect<PreparedSignature, PdfReadError | SignatureImageInvalid | SignatureRefusal> =>
  Effect.gen(function* () {
    const doc = yield* openPdf(source)
    if (doc.trailer.get("Encrypt") !== undefined) return yield* unreadable("encrypted PDFs are not supported")
    const rootRef = doc.trailer.get("Root") as PdfRef
    const catalog = yield* dictAt(doc, rootRef, "the catalog")
    const options: SignatureOptions =
      what.kind === "signature" ? what.options : { signerName: "", signingTime: new Date(0), placeholderBytes: what.placeholderBytes }
    const numbers = objectNumbers(doc)
    const objects: Array<UpdateObject> = []
    const changed = new Map<number, PdfValue | PdfStream>()

    // The page of a new field, found first (a broken page tree is the first thing reported, as before fields were read).
    const newFieldPage = options.field === undefined ? yield* findPage(doc, catalog, options.visible?.page ?? 1) : undefined

    // What the signatures already in the document allow (document timestamps are always allowed).
    let filling: SignatureField | undefined
    if (what.kind === "signature") {
      const rules = yield* modificationRules(doc)
      if (options.certify !== undefined) {
        const signed = rules.signatureFields.filter((f) => f.signature !== null).length
        if (signed > 0 || rules.certification !== null) {
          return yield* new PdfSignatureNotPermitted({
            detail: `a certification must be the document's first signature; it already has ${Math.max(signed, 1)}`,
          })
        }
      }
      filling = yield* chooseField(rules.signatureFields, options)
      const target: ApprovalTarget = filling === undefined ? { kind: "new" } : { kind: "fill", field: filling.name }
      const verdict = approvalAllowed(rules, target)
      if (!verdict.allowed) return yield* new PdfSignatureNotPermitted({ detail: verdict.reason })
      if (filling !== undefined && filling.ref === null) return yield* unreadable(`signature field ${filling.name} is not an indirect object`)
    }

    // The AcroForm: an indirect object of its own after this update.
    const acroValue = catalog.get("AcroForm")
    let acroRef: PdfRef
    let acro: PdfDict
    let newCatalog = catalog
    if (acroValue instanceof PdfRef) {
      acroRef = acroValue
      acro = yield* dictAt(doc, acroValue, "/AcroForm")
    } else {
      acroRef = numbers.next()
      acro = acroValue instanceof PdfDict ? acroValue : dict({ Fields: [] })
      newCatalog = catalog.with("AcroForm", acroRef)
    }
    const fieldsValue = acro.get("Fields")
    const fields = arrayOf(yield* deref(doc, fieldsValue)) ?? []
    if (fields.length > PDF_BUDGETS.walkNodes) return yield* tooComplex(`more than ${PDF_BUDGETS.walkNodes} form fields`)
    let fieldName: string
    if (filling !== undefined) fieldName = filling.name
    else {
      const taken = new Set<string>()
      for (const f of fields) {
        const d = yield* deref(doc, f)
        const t = d instanceof PdfDict ? d.get("T") : undefined
        if (t instanceof PdfString) taken.add(fromLatin1(t.bytes))
      }
      let k = 1
      while (taken.has(`Signature${k}`)) k++
      fieldName = `Signature${k}`
    }

    // The widget of a filled field: the field itself (merged field and widget) or its first kid.
    let widgetRef: PdfRef | undefined
    let widget: PdfDict | undefined
    if (filling !== undefined) {
      const kids = arrayOf(yield* deref(doc, filling.field.get("Kids")))
      const kid = kids?.[0]
      if (kid instanceof PdfRef) {
        widgetRef = kid
        widget = yield* dictAt(doc, kid, "a signature widget")
      } else {
        widgetRef = filling.ref!
        widget = filling.field
      }
    }

    const fieldRef = filling?.ref ?? numbers.next()
    const sigRef = numbers.next()
    const apRef = numbers.next()
    const contentsBytes = options.placeholderBytes ?? DEFAULT_PLACEHOLDER_BYTES
    const BYTE_RANGE_ROOM = 48
    // DocMDP for a certification, FieldMDP for a field whose /Lock takes effect with this signature.
    const references: Array<PdfValue> = []
    if (options.certify !== undefined) {
      references.push(
        dict({
          Type: name("SigRef"),
          TransformMethod: name("DocMDP"),
          TransformParams: dict({ Type: name("TransformParams"), P: options.certify.permissions, V: name("1.2") }),
        }),
      )
    }
    if (filling?.lock != null) {
      const lock = filling.lock
      const params: Record<string, PdfValue> = { Type: name("TransformParams"), Action: lock.get("Action") ?? name("All"), V: name("1.2") }
      if (lock.get("Fields") !== undefined) params["Fields"] = (yield* deref(doc, lock.get("Fields"))) as PdfValue
      if (lock.get("P") !== undefined) params["P"] = lock.get("P")!
      references.push(dict({ Type: name("SigRef"), TransformMethod: name("FieldMDP"), TransformParams: dict(params) }))
    }
    const sigDict =
      what.kind === "timestamp"
        ? dict({
            Type: name("DocTimeStamp"),
            Filter: name("Adobe.PPKLite"),
            SubFilter: name("ETSI.RFC3161"),
            ByteRange: new PdfRaw(`[0 0 0 0]${" ".repeat(BYTE_RANGE_ROOM - 9)}`),
            Contents: new PdfRaw(`<${"0".repeat(contentsBytes * 2)}>`),
          })
        : dict({
            Type: name("Sig"),
            Filter: name("Adobe.PPKLite"),
            SubFilter: name("ETSI.CAdES.detached"),
            ByteRange: new PdfRaw(`[0 0 0 0]${" ".repeat(BYTE_RANGE_ROOM - 9)}`),
            Contents: new PdfRaw(`<${"0".repeat(contentsBytes * 2)}>`),
            M: new PdfString(latin1(pdfDate(options.signingTime))),
            Name: textString(options.signerName),
            ...(options.reason === undefined ? {} : { Reason: textString(options.reason) }),
            ...(options.location === undefined ? {} : { Location: textString(options.location) }),
            ...(references.length === 0 ? {} : { Reference: references }),
          })

    // A filled field keeps its widget's rectangle: drawn when it has an area, invisible otherwise.
    const widgetRect = widget === undefined ? undefined : rectOf(widget.get("Rect"))
    const rect = widget !== undefined ? (widgetRect ?? [0, 0, 0, 0]) : (options.visible?.rect ?? [0, 0, 0, 0])
    const x1 = Math.min(rect[0], rect[2]),
      y1 = Math.min(rect[1], rect[3])
    const width = Math.abs(rect[2] - rect[0]),
      height = Math.abs(rect[3] - rect[1])
    const visible = (widget !== undefined || options.visible !== undefined) && width > 0 && height > 0
    let appearance: PdfStream
    if (visible && what.kind === "signature") {
      let placed: { ref: PdfRef; width: number; height: number } | undefined
      const resources: Record<string, PdfValue> = {
        Font: dict({ F1: dict({ Type: name("Font"), Subtype: name("Type1"), BaseFont: name("Helvetica"), Encoding: name("WinAnsiEncoding") }) }),
      }
      if (options.visible?.image !== undefined) {
        const png = yield* imageFromPng(options.visible.image)
        const imageRef = numbers.next()
        let maskRef: PdfRef | undefined
        if (png.smask !== undefined) {
          maskRef = numbers.next()
          objects.push({ ref: maskRef, value: png.smask })
        }
        objects.push({ ref: imageRef, value: png.image(maskRef) })
        placed = { ref: imageRef, width: png.width, height: png.height }
        resources["XObject"] = dict({ Im1: imageRef })
      }
      const content = yield* deflate(latin1(visibleAppearance(options, width, height, placed)))
      appearance = new PdfStream(
        dict({
          Type: name("XObject"),
          Subtype: name("Form"),
          BBox: [0, 0, n2(width), n2(height)],
          Resources: dict(resources),
          Filter: name("FlateDecode"),
        }),
        content,
      )
    } else {
      appearance = new PdfStream(dict({ Type: name("XObject"), Subtype: name("Form"), BBox: [0, 0, n2(width), n2(height)] }), new Uint8Array())
    }

    if (filling !== undefined && widget !== undefined && widgetRef !== undefined) {
      // The field gets its value; its widget keeps everything but the appearance, which is now the signature's.
      if (widgetRef.num === fieldRef.num) changed.set(fieldRef.num, widget.with("V", sigRef).with("AP", dict({ N: apRef })))
      else {
        changed.set(fieldRef.num, filling.field.with("V", sigRef))
        changed.set(widgetRef.num, widget.with("AP", dict({ N: apRef })))
      }
      changed.set(acroRef.num, acro.with("SigFlags", 3))
    } else {
      const page = newFieldPage ?? (yield* findPage(doc, catalog, options.visible?.page ?? 1))
      const field = dict({
        Type: name("Annot"),
        Subtype: name("Widget"),
        FT: name("Sig"),
        T: textString(fieldName),
        V: sigRef,
        F: visible ? 4 : 132,
        P: page.ref,
        Rect: visible ? [n2(x1), n2(y1), n2(x1 + width), n2(y1 + height)] : [0, 0, 0, 0],
        AP: dict({ N: apRef }),
      })
      objects.unshift({ ref: fieldRef, value: field })

      // The field joins /Fields, the widget joins the page's /Annots (each updated where it lives).
      const newFields = [...fields, fieldRef]
      if (fieldsValue instanceof PdfRef) changed.set(fieldsValue.num, newFields)
      else acro = acro.with("Fields", newFields)
      changed.set(acroRef.num, acro.with("SigFlags", 3))
      const annotsValue = page.page.get("Annots")
      const annots = arrayOf(yield* deref(doc, annotsValue)) ?? []
      if (annotsValue instanceof PdfRef) changed.set(annotsValue.num, [...annots, fieldRef])
      else if (!changed.has(page.ref.num)) changed.set(page.ref.num, page.page.with("Annots", [...annots, fieldRef]))
    }
    // A certification is named in the catalog's /Perms (kept entries other than DocMDP).
    if (options.certify !== undefined) {
      const perms = yield* deref(doc, newCatalog.get("Perms"))
      newCatalog = newCatalog.with("Perms", (perms instanceof PdfDict ? perms : dict({})).with("DocMDP", sigRef))
    }
    if (newCatalog !== catalog) changed.set(rootRef.num, newCatalog)

    const generation = (num: number) => {
      const e = doc.entries.get(num)
      return e?.kind === "offset" ? e.gen : 0
    }
    const all: Array<UpdateObject> = [
      ...[...changed].map(([num, value]) => ({ ref: new PdfRef(num, generation(num)), value })),
      { ref: apRef, value: appearance },
      ...objects,
      { ref: sigRef, value: sigDict },
    ]
    const built = incrementalUpdate(doc, all, numbers.size)
    const update = built.bytes

    // Patch the byte ranges now that the layout is final.
    const sigAt = built.offsets.get(sigRef.num)! - source.size
    const text = fromLatin1(update.subarray(sigAt, Math.min(update.length, sigAt + 512)))
    const contentsAt = sigAt + text.indexOf("/Contents <") + "/Contents ".length
    const rangeAt = sigAt + text.indexOf("/ByteRange [") + "/ByteRange ".length
    const total = source.size + update.length
    const a = source.size + contentsAt
    const b = a + contentsBytes * 2 + 2
    const byteRange = [0, a, b, total - b] as const
    const rangeText = `[0 ${a} ${b} ${total - b}]`
    if (rangeText.length > BYTE_RANGE_ROOM) return yield* unreadable("the document is too large for the byte range placeholder")
    update.set(latin1(rangeText.padEnd(BYTE_RANGE_ROOM, " ")), rangeAt)
    return { source, update, byteRange, contentsOffset: a + 1, contentsBytes, fieldName }
  })

const CHUNK = 4 * 1024 * 1024

/** SHA-256 over `ranges` (`[offset, length]` pairs) of `source`, read in 4 MiB windows. */
export const hashRanges = (source: ByteSource, ranges: ReadonlyArray<readonly [number, number]>): Effect.Effect<Uint8Array, PdfUnreadable> =>
  Effect.gen(function* () {
    const hasher = (yield* Sha256Streams).create()
    const read = source.readTransient ?? source.read
    for (const [offset, length] of ranges) {
      if (offset < 0 || length < 0 || offset + length > source.size) return yield* unreadable("a byte range outside the file")
      for (let at = offset; at < offset + length; at += CHUNK) {
        hasher.update(yield* read(at, Math.min(CHUNK, offset + length - at)))
      }
    }
    return hasher.digest()
  })

/**
 * `ranges` cut where the original ends and the update begins, so that no window straddles both:
 * a straddling window cannot be a view of either and would be copied into a fresh buffer.
 */
const cutAt = (ranges: ReadonlyArray<readonly [number, number]>, boundary: number): ReadonlyArray<readonly [number, number]> =>
  ranges.flatMap(
    ([offset, length]): Array<readonly [number, number]> =>
      offset < boundary && offset + length > boundary
        ? [
            [offset, boundary - offset],
            [boundary, offset + length - boundary],
          ]
        : [[offset, length]],
  )

/** The SHA-256 the signature covers: both byte ranges of the prepared file. */
export const byteRangeDigest = (prepared: PreparedSignature): Effect.Effect<Uint8Array, PdfUnreadable> => {
  const [, a, b, c] = prepared.byteRange
  return hashRanges(
    concatSource(prepared.source, prepared.update),
    cutAt(
      [
        [0, a],
        [b, c],
      ],
      prepared.source.size,
    ),
  )
}

/**
 * `bytes` with the DER signature written into the `/Contents` placeholder that starts (its first
 * hex digit) at `at` and has room for `room` bytes; the rest of the placeholder stays zeros.
 */
export const embedAt = (bytes: Uint8Array, at: number, room: number, cms: Uint8Array): Effect.Effect<Uint8Array, SignatureTooLargeForPlaceholder> => {
  if (cms.length > room) return Effect.fail(new SignatureTooLargeForPlaceholder({ size: cms.length, room }))
  const out = new Uint8Array(bytes)
  let hex = ""
  for (const byte of cms) hex += byte.toString(16).padStart(2, "0")
  out.set(latin1(hex), at)
  return Effect.succeed(out)
}

/** The update with the DER signature in its `/Contents` (hex, zero-padded); append it to the source. */
export const embedSignature = (prepared: PreparedSignature, cms: Uint8Array): Effect.Effect<Uint8Array, SignatureTooLargeForPlaceholder> =>
  embedAt(prepared.update, prepared.contentsOffset - prepared.source.size, prepared.contentsBytes, cms)

/**
 * Signs a PDF in one go: prepare, hash the byte ranges, let `produceCms` make the CMS over that
 * digest (a plain PAdES-B signer, or one that adds a timestamp for -T), embed. Answers the
 * update to append to the source.
 */
export const signPdf = <E, R>(
  source: ByteSource,
  options: SignatureOptions,
  produceCms: (digest: Uint8Array) => Effect.Effect<Uint8Array, E, R>,
): Effect.Effect<
  { readonly prepared: PreparedSignature; readonly update: Uint8Array },
  E | PdfReadError | SignatureImageInvalid | SignatureRefusal | SignatureTooLargeForPlaceholder,
  R
> =>
  Effect.gen(function* () {
    const prepared = yield* prepareSignature(source, options)
    const digest = yield* byteRangeDigest(prepared)
    const cms = yield* produceCms(digest)
    return { prepared, update: yield* embedSignature(prepared, cms) }
  })
