/**
 * An independent PNG writer (its own CRC-32, node:zlib for the data), to check the engine's PNG
 * reader and writer against: it shares no code with `@signet/core`'s `kernel/png.ts`.
 */
import { deflateSync } from "node:zlib"

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** The CRC-32 of PNG chunks (ISO 3309). */
export const crc32 = (bytes: Uint8Array): number => {
  let c = 0xffffffff
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

/** The eight bytes every PNG file starts with. */
export const PNG_SIGNATURE: ReadonlyArray<number> = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** One chunk: length, type, body and the CRC of type and body. */
export const pngChunk = (type: string, body: Uint8Array): Uint8Array => {
  const out = Buffer.alloc(12 + body.length)
  out.writeUInt32BE(body.length, 0)
  out.write(type, 4, "latin1")
  out.set(body, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length)
  return new Uint8Array(out)
}

/**
 * A PNG file: IHDR (`depth`, `colour` type, no interlace), the `extra` chunks (PLTE, tRNS…), one
 * IDAT of `raw` (scanlines, each with its filter byte) deflated by node:zlib, and IEND.
 */
export const pngFile = (
  header: { readonly width: number; readonly height: number; readonly depth: number; readonly colour: number },
  raw: Uint8Array,
  extra: ReadonlyArray<Uint8Array> = [],
): Uint8Array => {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(header.width, 0)
  ihdr.writeUInt32BE(header.height, 4)
  ihdr.set([header.depth, header.colour, 0, 0, 0], 8)
  const parts = [Uint8Array.from(PNG_SIGNATURE), pngChunk("IHDR", ihdr), ...extra, pngChunk("IDAT", deflateSync(raw)), pngChunk("IEND", new Uint8Array())]
  return new Uint8Array(Buffer.concat(parts))
}
