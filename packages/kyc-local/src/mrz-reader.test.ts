import { glyphOf } from "@signet/core"
import { describe, expect, it } from "vitest"
import { blur, flatten, type Grey } from "./image.ts"
import { estimateSkew, gOrSix, inkMask, pitchOf } from "./mrz-reader.ts"

/** White page with three dashed text-like rows that fall by `degrees` from left to right. */
const page = (width: number, height: number, degrees: number): Grey => {
  const pixels = new Uint8Array(width * height).fill(235)
  const t = Math.tan((degrees * Math.PI) / 180)
  for (const row of [0.3, 0.5, 0.7]) {
    for (let x = 20; x < width - 20; x++) {
      if (x % 14 > 9) continue // gaps between "glyphs"
      const y0 = Math.round(height * row + (x - width / 2) * t)
      for (let y = y0; y < y0 + 6; y++) if (y >= 0 && y < height) pixels[y * width + x] = 20
    }
  }
  return { width, height, pixels }
}

describe("skew search", () => {
  it.each([200, 201, 202, 203, 333, 334])("finds the text's angle on an image %i px high (odd and even)", (height) => {
    for (const degrees of [-3, 0, 2.5]) {
      expect(estimateSkew(inkMask(blur(page(480, height, degrees))))).toBeCloseTo(degrees, 0)
    }
  })
})

describe("cells from the glyphs found in a line", () => {
  it("fits the pitch and origin from glyph centres whatever the glyph widths (narrow I, wide W, touching pairs)", () => {
    const pitch = 23.4
    const origin = 41
    const widths = [6, 18, 14, 20, 9, 16, 12, 19, 15, 17]
    const runs: Array<[number, number]> = []
    for (let k = 0; k < 44; k++) {
      if (k === 20 || k === 21) continue // two touching glyphs: one wide run
      const w = widths[k % widths.length]!
      const c = origin + k * pitch
      runs.push([c - w / 2, c + w / 2])
    }
    runs.push([origin + 20 * pitch - 8, origin + 21 * pitch + 8])
    runs.sort((a, b) => a[0] - b[0])
    const fit = pitchOf(runs, 44)
    expect(fit.pitch).toBeCloseTo(pitch, 1)
    expect(fit.origin).toBeCloseTo(origin, 0)
  })
})

describe("G or 6 by shape (no check digit tells them apart)", () => {
  /** The fixtures' 7×9 glyph drawn 4 px per cell. */
  const drawn = (char: string) => {
    const rows = glyphOf(char)!
    return (x: number, y: number) => rows[Math.floor(y / 4)]?.[Math.floor(x / 4)] === "#"
  }
  it("tells the two apart and answers null for other glyphs", () => {
    expect(gOrSix(drawn("G"), 0, 28, 0, 36)).toBe("G")
    expect(gOrSix(drawn("6"), 0, 28, 0, 36)).toBe("6")
    expect(gOrSix(drawn("8"), 0, 28, 0, 36)).not.toBe("G")
    expect(gOrSix(drawn("C"), 0, 28, 0, 36)).not.toBe("6")
  })
})

describe("flattening uneven light", () => {
  it("lets one global threshold find ink on a page lit from one side", () => {
    const width = 400
    const height = 120
    const pixels = new Uint8Array(width * height)
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const paper = 60 + (190 * x) / width + (((x * 31 + y * 17) % 7) - 3) // dark left edge, bright right edge, some grain
        const ink = y >= 50 && y < 70 && x % 20 < 8
        pixels[y * width + x] = ink ? paper * 0.35 : paper
      }
    const isInk = (i: number) => {
      const y = Math.floor(i / width)
      return y >= 50 && y < 70 && (i % width) % 20 < 8
    }
    /** The darkest paper pixel minus the lightest ink pixel: positive when one threshold separates them. */
    const margin = (img: Uint8Array) => {
      let lightestInk = 0
      let darkestPaper = 255
      img.forEach((v, i) => {
        if (isInk(i)) lightestInk = Math.max(lightestInk, v)
        else darkestPaper = Math.min(darkestPaper, v)
      })
      return darkestPaper - lightestInk
    }
    expect(margin(pixels)).toBeLessThan(0) // the dark paper on the left is darker than the ink on the right
    expect(margin(flatten({ width, height, pixels }, 24).pixels)).toBeGreaterThan(60)
  })
})
