/**
 * PNG (ISO/IEC 15948) reading and writing in plain TypeScript, the one PNG module of the core
 * (signature images, visible PDF signatures): chunks with their CRCs, zlib and the row filters
 * from `zlib.ts`. Reading is bounded: the inflated data may not exceed what the header's
 * dimensions need, so a decompression bomb stops early.
 */
import { Effect } from "effect"
import { concatBytes } from "./encoding.ts"
import { deflateBytes, inflateBytes, InflateLimitExceeded, unfilterRows } from "./zlib.ts"

/** A decoded image: 8-bit RGBA, rows top to bottom. */
export interface Bitmap {
  readonly width: number
  readonly height: number
  /** width × height × 4 bytes */
  readonly rgba: Uint8Array
}

/** Why a PNG was refused. */
export class PngProblem extends Error {}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

const crc32 = (bytes: Uint8Array, from: number, to: number): number => {
  let c = 0xffffffff
  for (let i = from; i < to; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

/** Channels per colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }

/** Limits a caller sets on what it accepts. */
export interface PngLimits {
  readonly maxWidth: number
  readonly maxHeight: number
  readonly maxBytes: number
}

/**
 * Decodes a PNG to RGBA, checking signature, chunk order and CRCs, the header and the pixel data.
 * Supported: non-interlaced, 8-bit grey/RGB/grey+alpha/RGBA, and palette images of 1, 2, 4 or 8 bits.
 */
export const decodePng = (bytes: Uint8Array, limits: PngLimits): Effect.Effect<Bitmap, PngProblem> =>
  Effect.tryPromise({
    try: async () => {
      if (bytes.length > limits.maxBytes) throw new PngProblem(`the file is larger than ${limits.maxBytes} bytes`)
      if (bytes.length < 8 || SIGNATURE.some((b, i) => bytes[i] !== b)) throw new PngProblem("not a PNG file (bad signature)")
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      let at = 8
      let header: { width: number; height: number; depth: number; colour: number } | undefined
      let palette: Uint8Array | undefined
      let transparency: Uint8Array | undefined
      const data: Array<Uint8Array> = []
      let ended = false
      while (!ended) {
        if (at + 12 > bytes.length) throw new PngProblem("truncated chunk")
        const length = view.getUint32(at)
        const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8))
        if (length > bytes.length - at - 12) throw new PngProblem("truncated chunk")
        const body = bytes.subarray(at + 8, at + 8 + length)
        if (crc32(bytes, at + 4, at + 8 + length) !== view.getUint32(at + 8 + length)) throw new PngProblem(`bad CRC in ${type} chunk`)
        if (header === undefined && type !== "IHDR") throw new PngProblem("IHDR must come first")
        if (type === "IHDR") {
          if (header !== undefined || length !== 13) throw new PngProblem("bad IHDR")
          const hv = new DataView(body.buffer, body.byteOffset, 13)
          header = { width: hv.getUint32(0), height: hv.getUint32(4), depth: body[8]!, colour: body[9]! }
          if (body[10] !== 0 || body[11] !== 0) throw new PngProblem("unknown compression or filter method")
          if (body[12] !== 0) throw new PngProblem("interlaced PNGs are not supported")
          if (header.width < 1 || header.height < 1) throw new PngProblem("empty image")
          if (header.width > limits.maxWidth || header.height > limits.maxHeight) {
            throw new PngProblem(`the image is ${header.width}×${header.height}; at most ${limits.maxWidth}×${limits.maxHeight} pixels`)
          }
          const supported = header.colour === 3 ? [1, 2, 4, 8].includes(header.depth) : CHANNELS[header.colour] !== undefined && header.depth === 8
          if (!supported) throw new PngProblem(`colour type ${header.colour} at bit depth ${header.depth} is not supported (8-bit or palette images)`)
        } else if (type === "PLTE") palette = body
        else if (type === "tRNS") transparency = body
        else if (type === "IDAT") data.push(body)
        else if (type === "IEND") ended = true
        else if ((bytes[at + 4]! & 0x20) === 0) throw new PngProblem(`unknown critical chunk ${type}`)
        at += 12 + length
      }
      const h = header!
      if (data.length === 0) throw new PngProblem("no image data")
      if (h.colour === 3 && (palette === undefined || palette.length % 3 !== 0)) throw new PngProblem("palette image without a palette")
      const bitsPerPixel = CHANNELS[h.colour]! * h.depth
      const stride = Math.ceil((h.width * bitsPerPixel) / 8)
      const expected = (stride + 1) * h.height
      const raw = await inflateBytes(concatBytes(data), expected).catch((e: unknown) => {
        throw new PngProblem(
          e instanceof InflateLimitExceeded ? "image data is larger than its dimensions allow" : "image data does not inflate (corrupt zlib stream)",
        )
      })
      if (raw.length !== expected) throw new PngProblem("image data does not match the dimensions")
      const rows = unfilterRows(raw, stride, Math.max(1, bitsPerPixel >> 3))
      if (rows === undefined) {
        const bad = Array.from({ length: h.height }, (_, y) => raw[y * (stride + 1)]!).find((f) => f > 4)
        throw new PngProblem(`unknown row filter ${bad}`)
      }
      const rgba = new Uint8Array(h.width * h.height * 4)
      for (let y = 0; y < h.height; y++) {
        for (let x = 0; x < h.width; x++) {
          const o = (y * h.width + x) * 4
          const r = y * stride
          if (h.colour === 3) {
            const bit = x * h.depth
            const index = (rows[r + (bit >> 3)]! >> (8 - h.depth - (bit & 7))) & ((1 << h.depth) - 1)
            if (index * 3 + 2 >= palette!.length) throw new PngProblem("palette index out of range")
            rgba.set(palette!.subarray(index * 3, index * 3 + 3), o)
            rgba[o + 3] = transparency?.[index] ?? 255
          } else {
            const n = CHANNELS[h.colour]!
            const p = r + x * n
            const grey = h.colour === 0 || h.colour === 4
            rgba[o] = rows[p]!
            rgba[o + 1] = grey ? rows[p]! : rows[p + 1]!
            rgba[o + 2] = grey ? rows[p]! : rows[p + 2]!
            rgba[o + 3] = h.colour === 4 ? rows[p + 1]! : h.colour === 6 ? rows[p + 3]! : 255
          }
        }
      }
      return { width: h.width, height: h.height, rgba }
    },
    catch: (e) => (e instanceof PngProblem ? e : new PngProblem("not a readable PNG")),
  })

const chunk = (type: string, body: Uint8Array): Uint8Array => {
  const out = new Uint8Array(12 + body.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, body.length)
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i)
  out.set(body, 8)
  view.setUint32(8 + body.length, crc32(out, 4, 8 + body.length))
  return out
}

/** Encodes an RGBA bitmap as an 8-bit RGBA PNG (row filter "up", which suits flat drawings). */
export const encodePng = (bitmap: Bitmap): Effect.Effect<Uint8Array> =>
  Effect.promise(async () => {
    const { width, height, rgba } = bitmap
    const stride = width * 4
    const raw = new Uint8Array((stride + 1) * height)
    for (let y = 0; y < height; y++) {
      raw[y * (stride + 1)] = y === 0 ? 0 : 2
      for (let x = 0; x < stride; x++) {
        const value = rgba[y * stride + x]!
        raw[y * (stride + 1) + 1 + x] = y === 0 ? value : (value - rgba[(y - 1) * stride + x]!) & 0xff
      }
    }
    const header = new Uint8Array(13)
    const hv = new DataView(header.buffer)
    hv.setUint32(0, width)
    hv.setUint32(4, height)
    header.set([8, 6, 0, 0, 0], 8)
    const compressed = await deflateBytes(raw)
    return concatBytes([new Uint8Array(SIGNATURE), chunk("IHDR", header), chunk("IDAT", compressed), chunk("IEND", new Uint8Array())])
  })
