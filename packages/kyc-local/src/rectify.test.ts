import { readFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { documentDir, type Truth, type Variant } from "../eval/generate.ts"
import { SLICE_ROOT, SLICE_SEED } from "../eval/slice.ts"
import { decodeRgb, otsu, toGrey, type Grey } from "./image.ts"
import { findPage, homography, project, rectify, type Point, type Quad } from "./rectify.ts"

const PAGE = { width: 500, height: 340 }
const TABLE = 45
const PAPER = 232
const INK = 30
/** Two bars of "text" low on the page, as an MRZ would be: [top, bottom] as fractions of the page height. */
const BARS = [
  [0.72, 0.76],
  [0.84, 0.88],
] as const

/** What the page shows at a point of its own coordinates. */
const pageAt = (u: number, v: number, light: (u: number, v: number) => number = () => 1): number | null => {
  if (u < 0 || v < 0 || u >= PAGE.width || v >= PAGE.height) return null
  const inBar = u > PAGE.width * 0.08 && u < PAGE.width * 0.92 && BARS.some(([a, b]) => v >= PAGE.height * a && v < PAGE.height * b)
  return (inBar ? INK : PAPER) * light(u, v)
}

/**
 * A photo of the page: the page's rectangle mapped onto `corners` (clockwise from the top left)
 * on a dark table, each pixel the mean of 3×3 samples (anti-aliased edges, as a camera gives).
 */
const photo = (width: number, height: number, corners: Quad, table = TABLE): Grey => {
  const pageRect: Quad = [
    { x: 0, y: 0 },
    { x: PAGE.width, y: 0 },
    { x: PAGE.width, y: PAGE.height },
    { x: 0, y: PAGE.height },
  ]
  const toPage = homography(corners, pageRect)
  const pixels = new Uint8Array(width * height)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let sum = 0
      for (let sy = 0; sy < 3; sy++)
        for (let sx = 0; sx < 3; sx++) {
          const p = project(toPage, { x: x + (sx + 0.5) / 3, y: y + (sy + 0.5) / 3 })
          sum += pageAt(p.x, p.y) ?? table
        }
      pixels[y * width + x] = Math.round(sum / 9)
    }
  return { width, height, pixels }
}

/** Row of the ink's centre within columns x0..x1 and rows y0..y1 of `img` (dark-weighted). */
const inkRow = (img: Grey, x0: number, x1: number, y0: number, y1: number): number => {
  let sum = 0
  let weight = 0
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const w = Math.max(0, 150 - img.pixels[y * img.width + x]!)
      sum += w * (y + 0.5)
      weight += w
    }
  return sum / weight
}

const near = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y)

describe("rectify: finding the page on a table and making it upright", () => {
  // one edge nearer the camera (the bottom, 5 % wider), the whole page turned by about 2°
  const tilted: Quad = [
    { x: 78.3, y: 61.7 },
    { x: 548.9, y: 75.2 },
    { x: 566.4, y: 418.6 },
    { x: 52.8, y: 401.1 },
  ]
  const img = photo(640, 480, tilted)

  it("finds the corners of a tilted page within 1.5 px", () => {
    const quad = findPage(img)
    expect(quad).not.toBeNull()
    for (let k = 0; k < 4; k++) expect(near(quad![k]!, tilted[k]!), `corner ${k}: ${JSON.stringify(quad![k])}`).toBeLessThan(1.5)
  })

  it("gives back the page upright: its text rows level from end to end, its size the page's", () => {
    const { image, quad } = rectify(img)
    expect(quad).not.toBeNull()
    expect(Math.abs(image.width / image.height - PAGE.width / PAGE.height)).toBeLessThan(0.06)
    // before: the bars' rows differ by several pixels between the left and right ends
    const before = (x0: number, x1: number) => inkRow(img, x0, x1, 300, 400)
    expect(Math.abs(before(120, 170) - before(460, 510))).toBeGreaterThan(5)
    for (const [a, b] of BARS) {
      const y0 = Math.floor(image.height * (a - 0.04))
      const y1 = Math.ceil(image.height * (b + 0.04))
      const left = inkRow(image, Math.round(image.width * 0.12), Math.round(image.width * 0.22), y0, y1)
      const right = inkRow(image, Math.round(image.width * 0.78), Math.round(image.width * 0.88), y0, y1)
      expect(Math.abs(left - right), `bar at ${a}`).toBeLessThan(0.6)
      // and where the page has it
      expect(Math.abs(left / image.height - (a + b) / 2)).toBeLessThan(0.01)
    }
  })

  it("rectifies a page rotated by 3° whose corners touch the frame", () => {
    const a = (3 * Math.PI) / 180
    const w = Math.round(PAGE.width * Math.cos(a) + PAGE.height * Math.sin(a))
    const h = Math.round(PAGE.width * Math.sin(a) + PAGE.height * Math.cos(a))
    const rotated: Quad = [
      { x: 0, y: PAGE.width * Math.sin(a) },
      { x: PAGE.width * Math.cos(a), y: 0 },
      { x: w, y: PAGE.height * Math.cos(a) },
      { x: PAGE.height * Math.sin(a), y: h },
    ]
    const quad = findPage(photo(w, h, rotated))
    expect(quad).not.toBeNull()
    for (let k = 0; k < 4; k++) expect(near(quad![k]!, rotated[k]!), `corner ${k}`).toBeLessThan(1.5)
  })

  it("finds a page turned by 10° and tilted on a light table (a third of the paper's brightness away)", () => {
    const quad: Quad = [
      { x: 101.5, y: 44.2 },
      { x: 592.7, y: 120.4 },
      { x: 546.1, y: 446.9 },
      { x: 48.6, y: 362.3 },
    ]
    const found = findPage(photo(640, 480, quad, 150))
    expect(found).not.toBeNull()
    for (let k = 0; k < 4; k++) expect(near(found![k]!, quad[k]!), `corner ${k}`).toBeLessThan(1.5)
  })

  it("leaves a page that runs out of the frame as it is (no four sides to fit)", () => {
    const cut = photo(520, 400, [
      { x: 60, y: 40 },
      { x: 640, y: 52 },
      { x: 628, y: 430 },
      { x: 52, y: 418 },
    ])
    const out = rectify(cut)
    expect(out.quad).toBeNull()
    expect(out.image).toBe(cut)
  })

  it("returns a page that fills the frame unchanged", () => {
    const full = photo(PAGE.width, PAGE.height, [
      { x: 0, y: 0 },
      { x: PAGE.width, y: 0 },
      { x: PAGE.width, y: PAGE.height },
      { x: 0, y: PAGE.height },
    ])
    const out = rectify(full)
    expect(out.quad).toBeNull()
    expect(out.image).toBe(full)
  })

  it("takes no fall of light across a full-frame page for a page edge", () => {
    // brightness falling linearly to 50 % across the page: its bright part is a clean quadrilateral, but no page edge
    const pixels = new Uint8Array(PAGE.width * PAGE.height)
    for (let y = 0; y < PAGE.height; y++)
      for (let x = 0; x < PAGE.width; x++) pixels[y * PAGE.width + x] = Math.round(pageAt(x + 0.5, y + 0.5, (u) => 1 - 0.5 * (u / PAGE.width))!)
    const lit: Grey = { width: PAGE.width, height: PAGE.height, pixels }
    expect(rectify(lit).image).toBe(lit)
  })
})

/** The glyph centres of the lowest `count` text rows of a page (its MRZ), with each row's middle. */
const mrzGlyphs = (img: Grey, count: number): Array<{ readonly row: number; readonly centres: Array<number> }> => {
  const top = Math.floor(img.height * 0.6)
  const margin = Math.ceil(img.width * 0.01)
  const threshold = otsu(img, top, img.height)
  const ink = (x: number, y: number) => img.pixels[y * img.width + x]! < threshold
  const rows: Array<[number, number]> = []
  let start = -1
  for (let y = top; y <= img.height - margin; y++) {
    let n = 0
    if (y < img.height - margin) for (let x = margin; x < img.width - margin; x++) if (ink(x, y)) n++
    if (n > img.width * 0.02 && start < 0) start = y
    if (n <= img.width * 0.02 && start >= 0) {
      if (y - start >= 8) rows.push([start, y])
      start = -1
    }
  }
  return rows.slice(-count).map(([y0, y1]) => {
    const centres: Array<number> = []
    let a = -1
    for (let x = margin; x <= img.width - margin; x++) {
      let n = 0
      if (x < img.width - margin) for (let y = y0; y < y1; y++) if (ink(x, y)) n++
      if (n >= 1 && a < 0) a = x
      if (n < 1 && a >= 0) {
        centres.push((a + x) / 2)
        a = -1
      }
    }
    return { row: (y0 + y1) / 2, centres }
  })
}

/** RMS distance of glyph centres from the best fixed pitch `origin + k × pitch` of a line of `length` cells. */
const pitchResidual = (centres: ReadonlyArray<number>, length: number): number => {
  const first = centres[0]!
  const pitch0 = (centres[centres.length - 1]! - first) / (length - 1)
  const ks = centres.map((c) => Math.round((c - first) / pitch0))
  const n = ks.length
  const sk = ks.reduce((a, b) => a + b, 0)
  const skk = ks.reduce((a, b) => a + b * b, 0)
  const sc = centres.reduce((a, b) => a + b, 0)
  const skc = ks.reduce((a, k, i) => a + k * centres[i]!, 0)
  const pitch = (n * skc - sk * sc) / (n * skk - sk * sk)
  const origin = (sc - pitch * sk) / n
  return Math.sqrt(centres.reduce((a, c, i) => a + (c - origin - pitch * ks[i]!) ** 2, 0) / n)
}

describe("rectify on the evaluation slice (OCR-B pages ImageMagick photographed tilted on a table)", () => {
  const load = (index: number, variant: Variant) => {
    const dir = documentDir(SLICE_ROOT, SLICE_SEED, index)
    const truth = JSON.parse(readFileSync(path.join(dir, "truth.json"), "utf8")) as Truth
    return { truth, grey: toGrey(decodeRgb(new Uint8Array(readFileSync(path.join(dir, `${variant}.jpg`))))!) }
  }

  for (const index of [0, 3]) {
    it(`document ${index}: the tilted page comes out as its clean page, MRZ rows where they are and at a fixed pitch`, () => {
      const { truth, grey: tilt } = load(index, "tilt")
      const { grey: clean } = load(index, "clean")
      const { image, quad } = rectify(tilt)
      expect(quad).not.toBeNull()
      expect(Math.abs(image.width / clean.width - 1)).toBeLessThan(0.01)
      expect(Math.abs(image.height / clean.height - 1)).toBeLessThan(0.01)
      const lines = truth.lines
      const straight = mrzGlyphs(image, lines.length)
      const reference = mrzGlyphs(clean, lines.length)
      expect(straight).toHaveLength(lines.length)
      straight.forEach((line, k) => {
        const clean = reference[k]!
        expect(Math.abs(line.row - clean.row), `row of line ${k}`).toBeLessThan(2)
        // glyph centres are not exactly on the pitch even on the clean page (a chevron's ink is off its cell's centre)
        expect(pitchResidual(line.centres, lines[k]!.length), `pitch residual of line ${k}`).toBeLessThan(pitchResidual(clean.centres, lines[k]!.length) + 0.25)
        expect(line.centres).toHaveLength(clean.centres.length)
        const offsets = line.centres.map((c, i) => Math.abs(c - clean.centres[i]!))
        expect(Math.max(...offsets), `glyphs of line ${k} against the clean page's`).toBeLessThan(3)
      })
    })
  }
})
