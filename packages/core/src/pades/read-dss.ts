/**
 * Reading the Document Security Store (ETSI EN 319 142-1 §5.4.2): the certificates, OCSP
 * responses and CRLs a file carries for validating its signatures, as DER, undecoded. Validation
 * uses them before the engine's own records; what they are worth is judged there (signatures,
 * times), not here.
 */
import { Effect } from "effect"
import { PDF_BUDGETS, tooComplex } from "./budget.ts"
import { deref, type PdfDocument, type PdfReadError } from "./document.ts"
import { decodeStream } from "./filters.ts"
import { arrayOf, PdfDict, PdfStream } from "./objects.ts"

/** The DER objects of a file's `/DSS`; empty arrays when it has none. */
export interface DssMaterial {
  readonly certificates: ReadonlyArray<Uint8Array>
  readonly ocspResponses: ReadonlyArray<Uint8Array>
  readonly crls: ReadonlyArray<Uint8Array>
}

/** The `/DSS` of the catalog: each stream of `/Certs`, `/OCSPs` and `/CRLs` decoded (charged to the document's budget). */
export const readDss = (doc: PdfDocument, catalog: PdfDict): Effect.Effect<DssMaterial, PdfReadError> =>
  Effect.gen(function* () {
    const dss = yield* deref(doc, catalog.get("DSS"))
    if (!(dss instanceof PdfDict)) return { certificates: [], ocspResponses: [], crls: [] }
    let count = 0
    const streams = (key: string) =>
      Effect.gen(function* () {
        const out: Array<Uint8Array> = []
        for (const item of arrayOf(yield* deref(doc, dss.get(key))) ?? []) {
          if (++count > PDF_BUDGETS.walkNodes) return yield* tooComplex(`more than ${PDF_BUDGETS.walkNodes} /DSS entries`)
          const stream = yield* deref(doc, item)
          // a stream in a filter this reader lacks is left out (validation then asks elsewhere); a budget still stops the read
          const data =
            stream instanceof PdfStream
              ? yield* decodeStream(stream, doc.budget).pipe(Effect.catchTag("PdfUnreadable", () => Effect.succeed(undefined)))
              : undefined
          if (data !== undefined) out.push(data)
        }
        return out
      })
    return { certificates: yield* streams("Certs"), ocspResponses: yield* streams("OCSPs"), crls: yield* streams("CRLs") }
  })
