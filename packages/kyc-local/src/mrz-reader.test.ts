import { describe, expect, it } from "vitest"
import { blur, type Grey } from "./image.ts"
import { estimateSkew, inkMask } from "./mrz-reader.ts"

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
