/**
 * The Document Security Store update of PAdES-BASELINE-LT (ISO 32000-2 §12.8.4.3): an incremental
 * update that adds certificates, OCSP responses and CRLs to `/DSS`. An earlier DSS is reused: an
 * item whose bytes are already in it (decoded, compared byte for byte) is referred to, not added
 * again, so a second signer or an archive renewal adds only what is missing. A `/VRI` entry per
 * signature or timestamp (key: upper-case hex SHA-1 of its DER) names the items that validate it.
 * Only PDF reading and writing (no PKI), so it runs in a PDF worker (processor.ts); long-term.ts
 * gathers the material.
 */
import { Effect } from "effect"
import { PdfUnreadable } from "./errors.ts"
import { bytesEqual } from "../kernel/encoding.ts"
import type { ByteSource } from "./byte-source.ts"
import { deref, dictAt, openPdf, type PdfDocument, type PdfReadError } from "./document.ts"
import { decodeStream } from "./filters.ts"
import { incrementalUpdate, objectNumbers, type UpdateObject } from "./incremental.ts"
import { arrayOf, dict, name, PdfDict, PdfRef, PdfStream, type PdfValue } from "./objects.ts"
import { readDss } from "./read-dss.ts"

const unreadable = (detail: string) => new PdfUnreadable({ detail })

/** What goes into the DSS: DER certificates, OCSP responses and CRLs. */
export interface ValidationMaterial {
  readonly certificates: ReadonlyArray<Uint8Array>
  readonly ocsps: ReadonlyArray<Uint8Array>
  readonly crls: ReadonlyArray<Uint8Array>
  /** the `/VRI` key of the signature or timestamp this material validates (upper-case hex SHA-1), if any */
  readonly vriKey?: string | undefined
}

/** An existing DSS array: each item's reference and decoded bytes (appendDss refers to them, so it needs the references readDss drops). */
const existingItems = (doc: PdfDocument, value: PdfValue | undefined) =>
  Effect.gen(function* () {
    const out: Array<{ ref: PdfValue; bytes: Uint8Array | null }> = []
    for (const item of arrayOf(yield* deref(doc, value)) ?? []) {
      const stream = yield* deref(doc, item)
      out.push({ ref: item, bytes: stream instanceof PdfStream ? yield* decodeStream(stream, doc.budget) : null })
    }
    return out
  })

/** The DER items of a DSS read back: certificates, OCSP responses and CRLs (for tests and renewal). */
export const dssContents = (
  source: ByteSource,
): Effect.Effect<{ certificates: Array<Uint8Array>; ocsps: Array<Uint8Array>; crls: Array<Uint8Array>; vriKeys: Array<string> }, PdfReadError> =>
  Effect.gen(function* () {
    const doc = yield* openPdf(source)
    const catalog = yield* dictAt(doc, doc.trailer.get("Root"), "the catalog")
    const material = yield* readDss(doc, catalog)
    const dss = yield* deref(doc, catalog.get("DSS"))
    const vri = dss instanceof PdfDict ? yield* deref(doc, dss.get("VRI")) : undefined
    return {
      certificates: [...material.certificates],
      ocsps: [...material.ocspResponses],
      crls: [...material.crls],
      vriKeys: vri instanceof PdfDict ? [...vri.entries.keys()].filter((k) => k !== "Type") : [],
    }
  })

/** The update that adds `material` to the DSS of `source` (a signed PDF); append it to the source. */
export const appendDss = (source: ByteSource, material: ValidationMaterial): Effect.Effect<Uint8Array, PdfReadError> =>
  Effect.gen(function* () {
    const doc = yield* openPdf(source)
    const rootRef = doc.trailer.get("Root")
    if (!(rootRef instanceof PdfRef)) return yield* unreadable("the trailer has no /Root reference")
    const catalog = yield* dictAt(doc, rootRef, "the catalog")
    const numbers = objectNumbers(doc)
    const objects: Array<UpdateObject> = []

    const earlier = yield* deref(doc, catalog.get("DSS"))
    const old = earlier instanceof PdfDict ? earlier : dict({})
    /** The array `key` with every item of `items` in it once: existing ones referred to, missing ones added. */
    const merge = (key: string, items: ReadonlyArray<Uint8Array>) =>
      Effect.gen(function* () {
        const present = yield* existingItems(doc, old.get(key))
        const array: Array<PdfValue> = present.map((p) => p.ref)
        const refs: Array<PdfValue> = []
        for (const data of items) {
          const found = present.find((p) => p.bytes !== null && bytesEqual(p.bytes, data))
          if (found !== undefined) {
            if (!refs.includes(found.ref)) refs.push(found.ref)
            continue
          }
          const ref = numbers.next()
          objects.push({ ref, value: new PdfStream(dict({}), data) })
          present.push({ ref, bytes: data })
          array.push(ref)
          refs.push(ref)
        }
        return { array, refs }
      })
    const certs = yield* merge("Certs", material.certificates)
    const ocsps = yield* merge("OCSPs", material.ocsps)
    const crls = yield* merge("CRLs", material.crls)
    const dssRef = catalog.get("DSS") instanceof PdfRef ? (catalog.get("DSS") as PdfRef) : numbers.next()
    let dss = old.with("Type", name("DSS")).with("Certs", certs.array).with("OCSPs", ocsps.array).with("CRLs", crls.array)
    if (material.vriKey !== undefined) {
      const vri = yield* deref(doc, old.get("VRI"))
      const entry = dict({ Cert: certs.refs, OCSP: ocsps.refs, CRL: crls.refs })
      dss = dss.with("VRI", (vri instanceof PdfDict ? vri : dict({})).with(material.vriKey, entry))
    }
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
