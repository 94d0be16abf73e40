/**
 * The OCR-B classifier on glyphs it was not fitted on: the testkit prints its documents' MRZ from
 * its own OCR-B atlas (rasterised separately from the training's glyphs), here with random
 * symbols at three text sizes; and on cells with no character in them.
 */
import { renderDocument, type GreyImage } from "@signet/testkit/kyc"
import { describe, expect, it } from "vitest"
import type { Grey } from "./image.ts"
import { MIN_CONFIDENCE } from "./mrz-decide.ts"
import { locateMrz } from "./mrz-reader.ts"
import { CLASSES, cellFeatures, classify, lineGeometry, lineLevels, MRZ_SYMBOLS, probabilities } from "./ocrb-classifier.ts"

// a fixed sequence of symbols (a linear congruential generator), every symbol several times
let seed = 19
const symbol = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return MRZ_SYMBOLS[seed % MRZ_SYMBOLS.length]!
}
const lines = [Array.from({ length: 44 }, symbol).join(""), Array.from({ length: 44 }, symbol).join("")]

/** `img` scaled by `f` (< 1), box-averaged. */
const shrink = (img: GreyImage, f: number): Grey => {
  const width = Math.floor(img.width * f)
  const height = Math.floor(img.height * f)
  const pixels = new Uint8Array(width * height)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let s = 0
      let n = 0
      for (let j = Math.floor(y / f); j < Math.min(img.height, Math.floor((y + 1) / f)); j++)
        for (let i = Math.floor(x / f); i < Math.min(img.width, Math.floor((x + 1) / f)); i++) {
          s += img.pixels[j * img.width + i]!
          n++
        }
      pixels[y * width + x] = s / Math.max(1, n)
    }
  return { width, height, pixels }
}

const page = renderDocument("passport", { mrz: lines })
const band = (img: Grey): Grey => {
  const cut = Math.floor(img.height * 0.55)
  return { width: img.width, height: img.height - cut, pixels: img.pixels.subarray(cut * img.width) }
}

describe("the OCR-B classifier", () => {
  // the passport's MRZ capitals are 32 px high: 16, 23 and 32 px here
  for (const f of [0.5, 0.7, 1]) {
    it(`reads OCR-B glyphs it was not fitted on, ${Math.round(32.4 * f)} px high, and is sure of nearly all, never wrongly`, () => {
      const layout = locateMrz(band(f === 1 ? page : shrink(page, f)))
      if (layout.lines === null) throw new Error("no MRZ found")
      expect(layout.cells.map((row) => row.length)).toEqual([44, 44])
      let right = 0
      let sure = 0
      // a wrong reading must never be a confident one (the reader would take it)
      const confidentlyWrong: Array<string> = []
      const ink = (x: number, y: number) => layout.mask.ink[y * layout.grey.width + x] === 1
      layout.cells.forEach((row, li) => {
        const { top, bottom } = layout.lines[li]!
        const levels = lineLevels(layout.grey, top, bottom, row[0]!.x0, row[row.length - 1]!.x1)
        const geometry = lineGeometry(ink, row, top, bottom)
        row.forEach((cell, k) => {
          const read = classify(probabilities(cellFeatures(layout.grey, cell.x0, cell.x1, geometry, levels)))
          if (read.char === lines[li]![k]) right++
          else if (read.confidence >= MIN_CONFIDENCE) confidentlyWrong.push(`${lines[li]![k]}→${read.char} ${read.confidence.toFixed(2)}`)
          if (read.char === lines[li]![k] && read.confidence >= 0.9) sure++
        })
      })
      expect(confidentlyWrong).toEqual([])
      expect(right).toBeGreaterThanOrEqual(86)
      expect(sure).toBeGreaterThanOrEqual(84)
    })
  }

  it("finds no character in blank paper or in noise", () => {
    const levels = { paper: 240, ink: 30 }
    const line = { cap: 28, middle: () => 20 }
    const blank: Grey = { width: 40, height: 40, pixels: new Uint8Array(1600).fill(238) }
    expect(classify(probabilities(cellFeatures(blank, 8, 32, line, levels))).char).toBe("?")
    let noise = 7
    const pixels = new Uint8Array(1600).map(() => {
      noise = (noise * 1103515245 + 12345) % 2147483648
      return noise % 256
    })
    const read = classify(probabilities(cellFeatures({ width: 40, height: 40, pixels }, 8, 32, line, levels)))
    expect(read.char === "?" || read.confidence < 0.75, `${read.char} ${read.confidence}`).toBe(true)
  })

  it("answers one probability per class, summing to 1", () => {
    const p = probabilities(new Float32Array(192))
    expect(p).toHaveLength(CLASSES.length)
    expect([...p].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5)
  })
})
