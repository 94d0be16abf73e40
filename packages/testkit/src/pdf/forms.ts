/**
 * PDFs with signature fields for the certification and field-filling tests, made by pdf-lib (not
 * by Signet's writer): empty signature fields (invisible, or visible with an appearance), field
 * locks (`/Lock`), and a structural certification (`/Perms /DocMDP`) for the rule readers.
 */
import { type PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, type PDFRef, PDFString, StandardFonts, rgb } from "pdf-lib"

/** One signature field of a fixture. */
export interface FixtureSignatureField {
  readonly name: string
  /** `[x1, y1, x2, y2]` on page 1; absent: an invisible `[0 0 0 0]` widget */
  readonly rect?: readonly [number, number, number, number]
  /** a `/Lock` dictionary: which fields the field's signature locks */
  readonly lock?: { readonly action: "All" | "Include" | "Exclude"; readonly fields?: ReadonlyArray<string>; readonly permissions?: 1 | 2 | 3 }
  /** a signed field: `/V` is a signature dictionary (without a real CMS; for the rule readers only) */
  readonly signed?: boolean
}

/** A fixture's options. */
export interface FixtureOptions {
  readonly fields: ReadonlyArray<FixtureSignatureField>
  readonly xrefStream?: boolean
  /** a structural certification: `/Perms /DocMDP` → the first signed field's signature, `/P` as given */
  readonly certifiedWith?: 1 | 2 | 3
}

/** A one-page PDF with the given signature fields (pdf-lib). */
export const pdfWithSignatureFields = async (options: FixtureOptions): Promise<Uint8Array> => {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  const page = pdf.addPage([595, 842])
  page.drawText("A form with signature fields.", { x: 50, y: 780, size: 16, font, color: rgb(0, 0, 0) })
  const ctx = pdf.context
  const fieldRefs: Array<PDFRef> = []
  let certifying: PDFRef | undefined
  for (const f of options.fields) {
    const rect = f.rect ?? [0, 0, 0, 0]
    const entries: Record<string, unknown> = {
      Type: "Annot",
      Subtype: "Widget",
      FT: "Sig",
      T: PDFString.of(f.name),
      Rect: [...rect],
      F: f.rect === undefined ? 132 : 4,
      P: page.ref,
    }
    const field = ctx.obj(entries as never) as unknown as PDFDict
    if (f.rect !== undefined) {
      const w = Math.abs(rect[2] - rect[0]),
        h = Math.abs(rect[3] - rect[1])
      // A placeholder appearance (a grey box) that a visible signature replaces.
      const ap = ctx.stream(`q 0.85 g 0 0 ${w} ${h} re f Q`, { Type: "XObject", Subtype: "Form", BBox: [0, 0, w, h] })
      field.set(PDFName.of("AP"), ctx.obj({ N: ctx.register(ap) }))
    }
    if (f.lock !== undefined) {
      const lock = ctx.obj({ Type: "SigFieldLock", Action: f.lock.action }) as unknown as PDFDict
      if (f.lock.fields !== undefined) lock.set(PDFName.of("Fields"), ctx.obj(f.lock.fields.map((n) => PDFString.of(n))))
      if (f.lock.permissions !== undefined) lock.set(PDFName.of("P"), PDFNumber.of(f.lock.permissions))
      field.set(PDFName.of("Lock"), ctx.register(lock))
    }
    if (f.signed === true) {
      const sig = ctx.obj({
        Type: "Sig",
        Filter: "Adobe.PPKLite",
        SubFilter: "ETSI.CAdES.detached",
        ByteRange: [0, 0, 0, 0],
        Contents: PDFHexString.of("00"),
      }) as unknown as PDFDict
      if (certifying === undefined && options.certifiedWith !== undefined) {
        sig.set(
          PDFName.of("Reference"),
          ctx.obj([
            ctx.obj({ Type: "SigRef", TransformMethod: "DocMDP", TransformParams: ctx.obj({ Type: "TransformParams", P: options.certifiedWith, V: "1.2" }) }),
          ]),
        )
      }
      const sigRef = ctx.register(sig)
      if (certifying === undefined) certifying = sigRef
      field.set(PDFName.of("V"), sigRef)
    }
    const ref = ctx.register(field)
    fieldRefs.push(ref)
    page.node.addAnnot(ref)
  }
  pdf.catalog.set(PDFName.of("AcroForm"), ctx.obj({ Fields: fieldRefs, SigFlags: 3 }))
  if (options.certifiedWith !== undefined && certifying !== undefined) pdf.catalog.set(PDFName.of("Perms"), ctx.obj({ DocMDP: certifying }))
  return pdf.save({ useObjectStreams: options.xrefStream ?? true })
}
