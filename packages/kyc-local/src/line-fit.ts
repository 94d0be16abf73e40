/**
 * Glyph cells of a text line seen in perspective, for when no page quad was found to rectify:
 * the cells of a fixed-pitch line photographed at an angle lie at x_k = (a + b k) / (1 + c k),
 * a 1-D projective map of the cell index k, so their pitch shrinks or grows steadily along the
 * line. c = 0 is the constant pitch of a line seen square on.
 */

/** A 1-D projective cell model: centre of cell k at (a + b k) / (1 + c k). */
export interface CellModel {
  readonly a: number
  readonly b: number
  readonly c: number
}

/** Centre (px) of cell `k` under `m`. */
export const cellCentre = (m: CellModel, k: number): number => (m.a + m.b * k) / (1 + m.c * k)

/** The cell index (fractional) whose centre is at `x` under `m`. */
export const cellIndex = (m: CellModel, x: number): number => (x - m.a) / (m.b - m.c * x)

/** Solves the 3×3 system `s · v = t` (Cramer's rule), or null when it is singular. */
const solve3 = (s: ReadonlyArray<ReadonlyArray<number>>, t: ReadonlyArray<number>): [number, number, number] | null => {
  const det = (m: ReadonlyArray<ReadonlyArray<number>>) =>
    m[0]![0]! * (m[1]![1]! * m[2]![2]! - m[1]![2]! * m[2]![1]!) -
    m[0]![1]! * (m[1]![0]! * m[2]![2]! - m[1]![2]! * m[2]![0]!) +
    m[0]![2]! * (m[1]![0]! * m[2]![1]! - m[1]![1]! * m[2]![0]!)
  const d = det(s)
  if (Math.abs(d) < 1e-12) return null
  const col = (j: number) => s.map((row, i) => row.map((v, k) => (k === j ? t[i]! : v)))
  return [det(col(0)) / d, det(col(1)) / d, det(col(2)) / d]
}

/**
 * The projective cell model of a line of `count` cells from the centres of the glyphs found in
 * it (`centres`, left to right; fillers and touching glyphs may be missing or merged, so not
 * every cell has one). The first glyph is cell 0; walking along the line, each gap is counted in
 * cells at the pitch last seen between neighbours (the pitch drifts slowly, so a constant pitch
 * from the outermost glyphs would miscount the middle of a tilted line by a cell). The model is
 * fitted by least squares on the linearised x (1 + c k) = a + b k, and the cells assigned again
 * from it, a few rounds. Null with fewer than four glyphs or more cells counted than the line has.
 */
export const fitCells = (centres: ReadonlyArray<number>, count: number): CellModel | null => {
  if (centres.length < 4 || count < 2) return null
  const gaps = centres.slice(1).map((x, i) => x - centres[i]!)
  // the smaller gaps are between neighbouring cells
  let pitch = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 4)]!
  const ks = [0]
  for (const gap of gaps) {
    const steps = Math.max(1, Math.round(gap / pitch))
    if (steps === 1) pitch = 0.5 * pitch + 0.5 * gap
    ks.push(ks[ks.length - 1]! + steps)
  }
  if (ks[ks.length - 1]! >= count) return null
  let model: CellModel | null = null
  for (let round = 0; round < 3; round++) {
    // normal equations of x = a + b k − c k x over the glyphs given a cell, each cell once
    const s = [
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]
    const t = [0, 0, 0]
    const taken = new Set<number>()
    for (const [i, x] of centres.entries()) {
      const k = model === null ? ks[i]! : Math.round(cellIndex(model, x))
      if (k < 0 || k >= count || taken.has(k)) continue
      taken.add(k)
      const row = [1, k, -k * x]
      for (let r = 0; r < 3; r++) {
        t[r]! += row[r]! * x
        for (let c = 0; c < 3; c++) s[r]![c]! += row[r]! * row[c]!
      }
    }
    if (taken.size < 4) return null
    const v = solve3(s, t)
    if (v === null) return null
    model = { a: v[0], b: v[1], c: v[2] }
  }
  return model
}

/** Root-mean-square distance (px) of the centres from the cells `model` gives them. */
export const cellResidual = (model: CellModel, centres: ReadonlyArray<number>): number => {
  const d = centres.map((x) => x - cellCentre(model, Math.round(cellIndex(model, x))))
  return Math.sqrt(d.reduce((a, v) => a + v * v, 0) / Math.max(1, d.length))
}
