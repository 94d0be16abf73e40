/**
 * PDFs with signature fields for the certification and field-filling tests, made by pdf-lib (not
 * by Signet's writer): empty signature fields (invisible, or visible with an appearance), field
 * locks (`/Lock`), and a structural certification (`/Perms /DocMDP`) for the rule readers.
 */
import { readFileSync } from "node:fs"
import { type PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, type PDFRef, PDFString, StandardFonts, rgb } from "pdf-lib"
import { runTool, scratchFile, scratchPath } from "../tools.ts"

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

/** A key and self-signed certificate made by `openssl req` (PEM file paths), for signatures made outside Signet. */
export const opensslSigner = async (commonName: string): Promise<{ readonly key: string; readonly cert: string }> => {
  const key = scratchPath("ext-key.pem")
  const cert = scratchPath("ext-cert.pem")
  const made = await runTool("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-days",
    "30",
    "-subj",
    `/CN=${commonName}`,
  ])
  if (!made.ok) throw new Error(`openssl req failed: ${made.out}`)
  return { key, cert }
}

/**
 * Certifies `pdf` (a pdf-lib PDF with a classic xref table and no AcroForm) outside Signet: an
 * incremental update written here by hand (new catalog with `/Perms /DocMDP` and `/AcroForm`, the
 * page with the widget in `/Annots`, the field, a signature dictionary with the DocMDP
 * `/Reference`, a classic xref section) and a CMS made by `openssl cms -sign` over the byte ranges.
 */
export const certifyWithOpenssl = async (
  pdf: Uint8Array,
  permissions: 1 | 2 | 3,
  signer: { readonly key: string; readonly cert: string },
): Promise<Uint8Array> => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  const original = Buffer.from(pdf)
  const text = original.toString("latin1")
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1])
  if (!Number.isFinite(prev) || text.slice(prev, prev + 4) !== "xref") throw new Error("certifyWithOpenssl takes a PDF with a classic xref table")
  const rootRef = doc.context.trailerInfo.Root as PDFRef
  const page = doc.getPage(0)
  const size = doc.context.largestObjectNumber + 1
  const [field, acro, sig] = [size, size + 1, size + 2]
  const dictWith = (dictText: string, extra: string) => `${dictText.replace(/>>\s*$/, "")}${extra}\n>>`
  const ROOM = 8192
  const placeholder = `<${"0".repeat(ROOM * 2)}>`
  const byteRangeSlot = "/ByteRange [0 0000000000 0000000000 0000000000]"
  const objects: Array<[number, string]> = [
    [rootRef.objectNumber, dictWith(doc.catalog.toString(), `\n/AcroForm ${acro} 0 R\n/Perms << /DocMDP ${sig} 0 R >>`)],
    [page.ref.objectNumber, dictWith(page.node.toString(), `\n/Annots [${field} 0 R]`)],
    [field, `<< /Type /Annot /Subtype /Widget /FT /Sig /T (Certification) /V ${sig} 0 R /F 132 /Rect [0 0 0 0] /P ${page.ref.objectNumber} 0 R >>`],
    [acro, `<< /Fields [${field} 0 R] /SigFlags 3 >>`],
    [
      sig,
      `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached ${byteRangeSlot} /Contents ${placeholder} /M (D:20261126100000+00'00') ` +
        `/Reference [<< /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P ${permissions} /V /1.2 >> >>] >>`,
    ],
  ]
  let update = text.endsWith("\n") ? "" : "\n"
  const offsets = new Map<number, number>()
  for (const [num, body] of objects) {
    offsets.set(num, original.length + update.length)
    update += `${num} 0 obj\n${body}\nendobj\n`
  }
  const xrefAt = original.length + update.length
  update += "xref\n"
  for (const num of [...offsets.keys()].sort((a, b) => a - b)) update += `${num} 1\n${String(offsets.get(num)).padStart(10, "0")} 00000 n\r\n`
  update += `trailer\n<< /Size ${size + 3} /Root ${rootRef.objectNumber} 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`
  const whole = Buffer.concat([original, Buffer.from(update, "latin1")])
  const contentsAt = whole.indexOf(`/Contents <`, offsets.get(sig)!, "latin1") + "/Contents ".length
  const a = contentsAt
  const b = contentsAt + placeholder.length
  const range = `/ByteRange [0 ${String(a).padStart(10, "0")} ${String(b).padStart(10, "0")} ${String(whole.length - b).padStart(10, "0")}]`
  whole.write(range, whole.indexOf(byteRangeSlot, offsets.get(sig)!, "latin1"), "latin1")
  const data = scratchFile("certify-ranges.bin", Buffer.concat([whole.subarray(0, a), whole.subarray(b)]))
  const cmsPath = scratchPath("certify.p7s")
  const signed = await runTool("openssl", [
    "cms",
    "-sign",
    "-binary",
    "-outform",
    "DER",
    "-md",
    "sha256",
    "-nosmimecap",
    "-in",
    data,
    "-signer",
    signer.cert,
    "-inkey",
    signer.key,
    "-out",
    cmsPath,
  ])
  if (!signed.ok) throw new Error(`openssl cms -sign failed: ${signed.out}`)
  const cms = readFileSync(cmsPath)
  if (cms.length > ROOM) throw new Error("the CMS does not fit the placeholder")
  whole.write(cms.toString("hex"), a + 1, "latin1")
  return new Uint8Array(whole)
}
