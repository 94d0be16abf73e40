/** Stream filters the reader needs (FlateDecode with PNG predictors), over web-standard (de)compression streams. */
import { Effect } from "effect"
import { PdfUnreadable } from "../errors/catalogue.ts"
import { arrayOf, nameOf, numberOf, PdfDict, type PdfStream } from "./objects.ts"

const through = (data: Uint8Array, transform: CompressionStream | DecompressionStream): Promise<Uint8Array> =>
  new Response(new Blob([new Uint8Array(data)]).stream().pipeThrough(transform)).arrayBuffer().then((b) => new Uint8Array(b))

/** zlib inflate (RFC 1950). */
export const inflate = (data: Uint8Array): Effect.Effect<Uint8Array, PdfUnreadable> =>
  Effect.tryPromise({ try: () => through(data, new DecompressionStream("deflate")), catch: () => new PdfUnreadable({ detail: "a compressed stream does not inflate" }) })

/** zlib deflate (RFC 1950). */
export const deflate = (data: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.promise(() => through(data, new CompressionStream("deflate")))

/** Undoes PNG row predictors (Predictor ≥ 10): each row starts with its filter type. */
export const unpredictPng = (data: Uint8Array, columns: number, bytesPerPixel: number): Uint8Array | undefined => {
  const rowLength = columns
  const rows = Math.floor(data.length / (rowLength + 1))
  const out = new Uint8Array(rows * rowLength)
  for (let r = 0; r < rows; r++) {
    const filter = data[r * (rowLength + 1)]!
    const src = r * (rowLength + 1) + 1
    const at = r * rowLength
    for (let i = 0; i < rowLength; i++) {
      const x = data[src + i]!
      const left = i >= bytesPerPixel ? out[at + i - bytesPerPixel]! : 0
      const up = r > 0 ? out[at - rowLength + i]! : 0
      const upLeft = r > 0 && i >= bytesPerPixel ? out[at - rowLength + i - bytesPerPixel]! : 0
      let v: number
      switch (filter) {
        case 0: v = x; break
        case 1: v = x + left; break
        case 2: v = x + up; break
        case 3: v = x + ((left + up) >> 1); break
        case 4: {
          const p = left + up - upLeft
          const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - upLeft)
          v = x + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft)
          break
        }
        default: return undefined
      }
      out[at + i] = v & 0xff
    }
  }
  return out
}

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
    const out = unpredictPng(inflated, rowBytes, Math.max(1, Math.ceil((colors * bits) / 8)))
    if (out === undefined) return yield* new PdfUnreadable({ detail: "a bad PNG predictor row" })
    return out
  })
