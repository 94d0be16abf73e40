/** Stream filters the reader needs (FlateDecode with PNG predictors), over the kernel's zlib and row filters. */
import { Effect } from "effect"
import { PdfUnreadable } from "../errors/catalogue.ts"
import { deflateBytes, inflateBytes, unfilterRows } from "../kernel/zlib.ts"
import { arrayOf, nameOf, numberOf, PdfDict, type PdfStream } from "./objects.ts"

/** zlib inflate (RFC 1950). */
export const inflate = (data: Uint8Array): Effect.Effect<Uint8Array, PdfUnreadable> =>
  Effect.tryPromise({ try: () => inflateBytes(data), catch: () => new PdfUnreadable({ detail: "a compressed stream does not inflate" }) })

/** zlib deflate (RFC 1950). */
export const deflate = (data: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.promise(() => deflateBytes(data))

/** The decoded data of a stream (no filter, or FlateDecode with an optional PNG predictor). */
export const decodeStream = (stream: PdfStream): Effect.Effect<Uint8Array, PdfUnreadable> =>
  Effect.gen(function* () {
    const filterValue = stream.dict.get("Filter")
    const filters = (arrayOf(filterValue) ?? (filterValue === undefined ? [] : [filterValue])).map((f) => nameOf(f))
    if (filters.length === 0) return stream.data
    if (filters.length !== 1 || filters[0] !== "FlateDecode") return yield* new PdfUnreadable({ detail: `unsupported stream filter ${filters.join(" ")}` })
    const inflated = yield* inflate(stream.data)
    const parmsValue = stream.dict.get("DecodeParms")
    const parms = parmsValue instanceof PdfDict ? parmsValue : arrayOf(parmsValue)?.[0]
    const predictor = parms instanceof PdfDict ? numberOf(parms.get("Predictor")) ?? 1 : 1
    if (predictor < 10) {
      if (predictor !== 1) return yield* new PdfUnreadable({ detail: `unsupported predictor ${predictor}` })
      return inflated
    }
    const p = parms as PdfDict
    const colors = numberOf(p.get("Colors")) ?? 1
    const bits = numberOf(p.get("BitsPerComponent")) ?? 8
    const columns = numberOf(p.get("Columns")) ?? 1
    const rowBytes = Math.ceil((columns * colors * bits) / 8)
    const out = unfilterRows(inflated, rowBytes, Math.max(1, Math.ceil((colors * bits) / 8)))
    if (out === undefined) return yield* new PdfUnreadable({ detail: "a bad PNG predictor row" })
    return out
  })
