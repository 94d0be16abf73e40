import { describe, expect, it } from "vitest"
import { cellCentre, cellResidual, fitCells } from "./line-fit.ts"
import { homography, project, type Quad } from "./rectify.ts"

/**
 * The glyph centres of a 44-cell MRZ line (2.54 mm pitch at 10 px/mm, 20 mm from the page's left
 * edge, 80 mm down a 125 × 88 mm page) on a page whose right edge is 5 % farther from the camera,
 * as the evaluation's tilt draws it: mapped through that homography. Cells 30..41 are fillers
 * with no clean centre, and a small jitter stands for where ink falls in a cell.
 */
const tiltedLine = () => {
  const W = 1250
  const H = 880
  const page: Quad = [
    { x: 0, y: 0 },
    { x: W, y: 0 },
    { x: W, y: H },
    { x: 0, y: H },
  ]
  const photo: Quad = [
    { x: 0, y: 0 },
    { x: W - 0.025 * W, y: 0.05 * H },
    { x: W - 0.025 * W, y: H - 0.05 * H },
    { x: 0, y: H },
  ]
  const h = homography(page, photo)
  const truth = Array.from({ length: 44 }, (_, k) => project(h, { x: 200 + 25.4 * (k + 0.5), y: 800 }).x)
  const jitter = [0.3, -0.2, 0.1, -0.35, 0.25, 0, -0.1]
  const centres = truth.map((x, k) => x + jitter[k % jitter.length]!).filter((_, k) => k < 30 || k > 41)
  return { truth, centres }
}

describe("fitCells: the cells of a text line seen in perspective", () => {
  it("puts every cell of a tilted line within half a pixel, where a constant pitch is off by pixels", () => {
    const { truth, centres } = tiltedLine()
    const model = fitCells(centres, 44)
    expect(model).not.toBeNull()
    for (const [k, x] of truth.entries()) expect(Math.abs(cellCentre(model!, k) - x), `cell ${k}`).toBeLessThan(0.5)
    // the best constant pitch through the same glyphs
    const n = truth.length
    const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
    const ks = truth.map((_, k) => k)
    const pitch = (mean(truth.map((x, k) => x * k)) - mean(truth) * mean(ks)) / (mean(ks.map((k) => k * k)) - mean(ks) ** 2)
    const origin = mean(truth) - pitch * mean(ks)
    const worst = Math.max(...truth.map((x, k) => Math.abs(x - origin - pitch * k)))
    expect(worst).toBeGreaterThan(2)
    expect(n).toBe(44)
    expect(cellResidual(model!, centres)).toBeLessThan(0.4)
  })

  it("gives a line seen square on its constant pitch (c ≈ 0)", () => {
    const centres = Array.from({ length: 30 }, (_, k) => 57.3 + 33.2 * k)
    const model = fitCells(centres, 30)!
    expect(Math.abs(model.c)).toBeLessThan(1e-9)
    expect(model.b).toBeCloseTo(33.2, 6)
    expect(model.a).toBeCloseTo(57.3, 6)
  })

  it("refuses to fit fewer than four glyphs", () => {
    expect(fitCells([10, 40, 70], 30)).toBeNull()
  })
})
