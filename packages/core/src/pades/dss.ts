/**
 * The Document Security Store update of PAdES-BASELINE-LT (ISO 32000-2 §12.8.4.3): an incremental
 * update that adds certificates, OCSP responses and CRLs to `/DSS`. Only PDF reading and writing
 * (no PKI), so it runs in a PDF worker (processor.ts); long-term.ts gathers the material.
 */
import { Effect } from "effect"
import { PdfUnreadable } from "./errors.ts"
import { bytesEqual } from "../kernel/encoding.ts"
import type { ByteSource } from "./byte-source.ts"
import { deref, dictAt, openPdf, type PdfReadError } from "./document.ts"
import { incrementalUpdate, objectNumbers, type UpdateObject } from "./incremental.ts"
import { arrayOf, dict, name, PdfDict, PdfRef, PdfStream, type PdfValue } from "./objects.ts"

const unreadable = (detail: string) => new PdfUnreadable({ detail })

/** Distinct byte strings, first occurrence kept. */
const distinct = (all: ReadonlyArray<Uint8Array>): ReadonlyArray<Uint8Array> => all.filter((x, i) => all.findIndex((y) => bytesEqual(x, y)) === i)

/** What goes into the DSS: DER certificates, OCSP responses and CRLs. */
export interface ValidationMaterial {
  readonly certificates: ReadonlyArray<Uint8Array>
  readonly ocsps: ReadonlyArray<Uint8Array>
  readonly crls: ReadonlyArray<Uint8Array>
}

/** The update that adds `material` to the DSS of `source` (a signed PDF); append it to the source. */
export const appendDss = (source: ByteSource, material: ValidationMaterial): Effect.Effect<Uint8Array, PdfReadError> =>
  Effect.gen(function* () {
    const doc = yield* openPdf(source)
    const rootRef = doc.trailer.get("Root")
    if (!(rootRef instanceof PdfRef)) return yield* unreadable("the trailer has no /Root reference")
    const catalog = yield* dictAt(doc, rootRef, "the catalog")
    const numbers = objectNumbers(doc)
    const objects: Array<UpdateObject> = []
    const streams = (items: ReadonlyArray<Uint8Array>): Array<PdfValue> =>
      items.map((data) => {
        const ref = numbers.next()
        objects.push({ ref, value: new PdfStream(dict({}), data) })
        return ref
      })

    // An earlier DSS (another signer's -LT) is kept: its arrays are extended.
    const earlier = yield* deref(doc, catalog.get("DSS"))
    const old = earlier instanceof PdfDict ? earlier : dict({})
    const existing = (key: string) => Effect.map(deref(doc, old.get(key)), (v) => arrayOf(v) ?? [])
    const dssRef = catalog.get("DSS") instanceof PdfRef ? (catalog.get("DSS") as PdfRef) : numbers.next()
    const dss = old
      .with("Type", name("DSS"))
      .with("Certs", [...(yield* existing("Certs")), ...streams(distinct(material.certificates))])
      .with("OCSPs", [...(yield* existing("OCSPs")), ...streams(distinct(material.ocsps))])
      .with("CRLs", [...(yield* existing("CRLs")), ...streams(distinct(material.crls))])
    objects.push({ ref: dssRef, value: dss })

    // The catalog points at the DSS and declares the ETSI extension (ESIC level 5) that defines it.
    let newCatalog = catalog.with("DSS", dssRef)
    const extensions = catalog.get("Extensions")
    if (extensions === undefined) newCatalog = newCatalog.with("Extensions", dict({ ESIC: dict({ BaseVersion: name("1.7"), ExtensionLevel: 5 }) }))
    else if (extensions instanceof PdfDict && extensions.get("ESIC") === undefined) {
      newCatalog = newCatalog.with("Extensions", extensions.with("ESIC", dict({ BaseVersion: name("1.7"), ExtensionLevel: 5 })))
    }
    const entry = doc.entries.get(rootRef.num)
    objects.unshift({ ref: new PdfRef(rootRef.num, entry?.kind === "offset" ? entry.gen : rootRef.gen), value: newCatalog })
    return incrementalUpdate(doc, objects, numbers.size).bytes
  })
