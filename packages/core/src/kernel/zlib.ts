/**
 * zlib (RFC 1950) over the web-standard `CompressionStream`/`DecompressionStream` ("deflate" is
 * zlib, as both PNG and PDF's FlateDecode want), and the PNG row filters that PNG images and PDF
 * stream predictors share.
 */
import { concatBytes } from "./encoding.ts"

/** Inflating stopped because the output grew past the caller's limit (a decompression bomb). */
export class InflateLimitExceeded extends Error {}

/** Runs bytes through a web transform stream, stopping (and failing) past `limit` output bytes. */
const transform = async (stream: CompressionStream | DecompressionStream, input: Uint8Array, limit: number): Promise<Uint8Array> => {
  const writer = stream.writable.getWriter()
  const writing = writer
    .write(new Uint8Array(input))
    .then(() => writer.close())
    .catch(() => undefined)
  const reader = stream.readable.getReader()
  const parts: Array<Uint8Array> = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.length
    if (total > limit) {
      await reader.cancel().catch(() => undefined)
      throw new InflateLimitExceeded("inflated data is larger than allowed")
    }
    parts.push(value)
  }
  await writing
  return concatBytes(parts)
}

/** zlib inflate; rejects on a corrupt stream, and with `InflateLimitExceeded` past `limit` bytes. */
export const inflateBytes = (data: Uint8Array, limit = Number.MAX_SAFE_INTEGER): Promise<Uint8Array> =>
  transform(new DecompressionStream("deflate"), data, limit)

/** zlib deflate. */
export const deflateBytes = (data: Uint8Array): Promise<Uint8Array> => transform(new CompressionStream("deflate"), data, Number.MAX_SAFE_INTEGER)

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c
  const pa = Math.abs(p - a),
    pb = Math.abs(p - b),
    pc = Math.abs(p - c)
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

/**
 * Undoes PNG row filters: each row of `rowLength` bytes is preceded by its filter type (0–4).
 * Whole rows only; undefined when a row names an unknown filter.
 */
export const unfilterRows = (data: Uint8Array, rowLength: number, bytesPerPixel: number): Uint8Array | undefined => {
  const rows = Math.floor(data.length / (rowLength + 1))
  const out = new Uint8Array(rows * rowLength)
  for (let r = 0; r < rows; r++) {
    const filter = data[r * (rowLength + 1)]!
    if (filter > 4) return undefined
    const src = r * (rowLength + 1) + 1
    const at = r * rowLength
    for (let i = 0; i < rowLength; i++) {
      const a = i >= bytesPerPixel ? out[at + i - bytesPerPixel]! : 0
      const b = r > 0 ? out[at - rowLength + i]! : 0
      const c = r > 0 && i >= bytesPerPixel ? out[at - rowLength + i - bytesPerPixel]! : 0
      const predicted = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : paeth(a, b, c)
      out[at + i] = (data[src + i]! + predicted) & 0xff
    }
  }
  return out
}
