/** PNG reading and writing: round trips, the colour types signers' images come in, and refusals. */
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { decodePng, encodePng } from "./png.ts"
import { pngChunk, pngFile } from "../../../testkit/src/png.ts"

const LIMITS = { maxWidth: 1000, maxHeight: 1000, maxBytes: 1 << 20 }
const chunk = pngChunk
/** A PNG from raw (already filtered) scanlines, written with node's zlib. */
const png = (width: number, height: number, depth: number, colour: number, raw: Uint8Array, extra: ReadonlyArray<Uint8Array> = []) =>
  pngFile({ width, height, depth, colour }, raw, extra)
const decode = (bytes: Uint8Array) => Effect.runPromise(Effect.either(decodePng(bytes, LIMITS)))
const problem = async (bytes: Uint8Array) => {
  const result = await decode(bytes)
  return Either.isLeft(result) ? result.left.message : "decoded"
}

describe("png", () => {
  it("decodes what it encodes, pixel for pixel", async () => {
    const width = 37,
      height = 11
    const rgba = new Uint8Array(width * height * 4).map((_, i) => (i * 97 + (i >> 7)) & 0xff)
    const bytes = await Effect.runPromise(encodePng({ width, height, rgba }))
    const back = await decode(bytes)
    expect(Either.isRight(back) && back.right).toEqual({ width, height, rgba })
  })

  it("reads grey, RGB with the Paeth and average filters, and 1-bit palette images with transparency", async () => {
    const grey = await decode(png(2, 1, 8, 0, Buffer.from([0, 10, 200])))
    expect(Either.isRight(grey) && [...grey.right.rgba]).toEqual([10, 10, 10, 255, 200, 200, 200, 255])
    // row 2 uses Paeth (4) and row 3 average (3) over row 1
    const rgb = await decode(png(1, 3, 8, 2, Buffer.from([0, 10, 20, 30, 4, 1, 1, 1, 3, 0, 0, 0])))
    expect(Either.isRight(rgb) && [...rgb.right.rgba]).toEqual([10, 20, 30, 255, 11, 21, 31, 255, 5, 10, 15, 255])
    const palette = chunk("PLTE", Buffer.from([255, 0, 0, 0, 0, 255]))
    const transparency = chunk("tRNS", Buffer.from([0]))
    const bits = await decode(png(3, 1, 1, 3, Buffer.from([0, 0b01000000]), [palette, transparency]))
    expect(Either.isRight(bits) && [...bits.right.rgba]).toEqual([255, 0, 0, 0, 0, 0, 255, 255, 255, 0, 0, 0])
  })

  it("refuses what is not a whole, sane PNG", async () => {
    const good = png(2, 2, 8, 2, Buffer.alloc(2 * 7))
    expect(await problem(good)).toBe("decoded")
    const flipped = new Uint8Array(good)
    flipped[20] = flipped[20]! ^ 1
    expect(await problem(flipped)).toMatch(/bad CRC in IHDR/)
    expect(await problem(good.slice(0, good.length - 12))).toMatch(/truncated/)
    expect(await problem(new Uint8Array([1, 2, 3]))).toMatch(/bad signature/)
    expect(await problem(png(2000, 1, 8, 2, Buffer.alloc(6001)))).toMatch(/at most 1000×1000/)
    expect(await problem(png(2, 2, 16, 2, Buffer.alloc(2 * 13)))).toMatch(/not supported/)
    expect(await problem(png(2, 2, 8, 2, Buffer.alloc(5)))).toMatch(/does not match the dimensions/)
    expect(await problem(png(2, 2, 8, 2, Buffer.from([0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0])))).toMatch(/unknown row filter 9/)
    // a small file that inflates far beyond its dimensions stops early
    expect(await problem(png(2, 2, 8, 2, Buffer.alloc(50_000_000)))).toMatch(/larger than its dimensions allow/)
  })
})
