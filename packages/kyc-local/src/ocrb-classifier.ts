/**
 * The OCR-B character classifier of the MRZ reader: a small multilayer perceptron (one hidden
 * layer) over a cell's greyscale image, normalised for position (the ink's centroid across the
 * cell, the line's middle) and contrast (the line's paper and ink levels), never binarised. It
 * answers a probability per MRZ symbol (A-Z, 0-9, `<`) and for "no character" (blank or broken
 * cells). Fitted by `train/ocrb.ts` on glyphs rasterised from the OCR-B font (fonts-ocr-b,
 * public domain / permissive, see `ocrb-model.ts`), never on the evaluation's documents.
 */
import type { Grey } from "./image.ts"
import { OCRB_MODEL } from "./ocrb-model.ts"

/** The MRZ alphabet; the classifier's last output is "no character" (`?`). */
export const MRZ_SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
/** The classes, in output order: the 37 symbols, then `?` for a cell with no readable character. */
export const CLASSES = `${MRZ_SYMBOLS}?`

/** Feature grid columns. */
export const GRID_W = 12
/** Feature grid rows. */
export const GRID_H = 16
/** Number of features of one cell. */
export const FEATURES = GRID_W * GRID_H

/** Paper and ink luminance of one text line. */
export interface Levels {
  readonly paper: number
  readonly ink: number
}

/** The paper (90th percentile) and ink (3rd percentile) luminance over the rows of one line. */
export const lineLevels = (grey: Grey, top: number, bottom: number, x0 = 0, x1 = grey.width): Levels => {
  const hist = new Uint32Array(256)
  let n = 0
  for (let y = Math.max(0, top); y < Math.min(grey.height, bottom); y++)
    for (let x = Math.max(0, x0); x < Math.min(grey.width, x1); x++) {
      hist[grey.pixels[y * grey.width + x]!]!++
      n++
    }
  const at = (q: number) => {
    let seen = 0
    for (let v = 0; v < 256; v++) {
      seen += hist[v]!
      if (seen > q * n) return v
    }
    return 255
  }
  const paper = at(0.9)
  const ink = Math.min(at(0.03), paper - 40)
  return { paper, ink }
}

/** A line's text geometry: the height of its tallest glyphs and their vertical middle along the line. */
export interface LineGeometry {
  /** height of the line's tallest glyphs (OCR-B's digits stand about 9 % taller than its capitals), px */
  readonly cap: number
  /** their middle (y) at column x */
  readonly middle: (x: number) => number
}

/**
 * The geometry of a line of cells, from the ink in each cell (`ink`, the binary mask). All
 * OCR-B glyphs but the filler stand on the baseline; the digits are about 9 % taller than the
 * capitals, which is most of what tells `0` from `O`. So the reference is the tallest glyphs:
 * those within 4 % of the third-tallest cell (robust to a stray tall box); their median height
 * is the scale, their bottoms fitted to a straight line in x the baseline.
 */
export const lineGeometry = (
  ink: (x: number, y: number) => boolean,
  cells: ReadonlyArray<{ readonly x0: number; readonly x1: number }>,
  top: number,
  bottom: number,
): LineGeometry => {
  const boxes: Array<{ readonly x: number; readonly height: number; readonly bottom: number }> = []
  for (const { x0, x1 } of cells) {
    let t = -1
    let b = -1
    for (let y = top; y < bottom; y++) {
      let any = false
      for (let x = Math.max(0, x0); x < x1 && !any; x++) any = ink(x, y)
      if (any) {
        if (t < 0) t = y
        b = y + 1
      }
    }
    if (t >= 0) boxes.push({ x: (x0 + x1) / 2, height: b - t, bottom: b })
  }
  if (boxes.length < 3) return { cap: bottom - top, middle: () => (top + bottom) / 2 }
  const reference = [...boxes].sort((p, q) => q.height - p.height)[2]!.height
  const tall = boxes.filter((c) => c.height >= reference * 0.96)
  const cap = tall.map((c) => c.height).sort((p, q) => p - q)[Math.floor(tall.length / 2)]!
  const n = tall.length
  const mx = tall.reduce((s, c) => s + c.x, 0) / n
  const my = tall.reduce((s, c) => s + c.bottom, 0) / n
  let sxx = 0
  let sxy = 0
  for (const c of tall) {
    sxx += (c.x - mx) ** 2
    sxy += (c.x - mx) * (c.bottom - my)
  }
  const slope = sxx > 0 ? sxy / sxx : 0
  return { cap, middle: (x) => my + slope * (x - mx) - cap / 2 }
}

/**
 * The features of one character cell: its darkness (0 paper .. 1 ink, from the line's levels)
 * sampled on a GRID_W × GRID_H grid over a window 1.05 × 1.3 times the line's glyph height,
 * centred on the ink's centroid across the cell (within a quarter cell of the cut) and on the
 * middle of the line's tallest glyphs. Scaled by that height alone, not by the pitch, so a glyph
 * keeps its proportions however the document spaces its cells. Bilinear, area-averaged:
 * the same grid at any text size.
 */
export const cellFeatures = (grey: Grey, x0: number, x1: number, line: LineGeometry, levels: Levels, out = new Float32Array(FEATURES)): Float32Array => {
  const { width, height, pixels } = grey
  const range = Math.max(1, levels.paper - levels.ink)
  const dark = (x: number, y: number) => {
    if (x < 0 || y < 0 || x > width - 1 || y > height - 1) return 0
    const xi = Math.min(width - 2, Math.floor(x))
    const yi = Math.min(height - 2, Math.floor(y))
    const fx = x - xi
    const fy = y - yi
    const i = yi * width + xi
    const v = (pixels[i]! * (1 - fx) + pixels[i + 1]! * fx) * (1 - fy) + (pixels[i + width]! * (1 - fx) + pixels[i + width + 1]! * fx) * fy
    const d = (levels.paper - v) / range
    return d <= 0 ? 0 : Math.min(d, 1)
  }
  const pitch = x1 - x0
  const mid = (x0 + x1) / 2
  const cy = line.middle(mid)
  const h = line.cap
  let sum = 0
  let sx = 0
  for (let y = Math.floor(cy - h / 2); y < Math.ceil(cy + h / 2); y++)
    for (let x = Math.floor(x0); x < Math.ceil(x1); x++) {
      const d = dark(x, y)
      sum += d
      sx += d * x
    }
  const cx = sum > 0.5 ? Math.max(mid - pitch / 4, Math.min(mid + pitch / 4, sx / sum)) : mid
  const ww = h * 1.05
  const wh = h * 1.3
  const bw = ww / GRID_W
  const bh = wh / GRID_H
  const sX = Math.max(1, Math.min(4, Math.ceil(bw)))
  const sY = Math.max(1, Math.min(4, Math.ceil(bh)))
  const left = cx - ww / 2
  const upper = cy - wh / 2
  for (let gy = 0; gy < GRID_H; gy++)
    for (let gx = 0; gx < GRID_W; gx++) {
      let s = 0
      for (let j = 0; j < sY; j++) for (let i = 0; i < sX; i++) s += dark(left + (gx + (i + 0.5) / sX) * bw - 0.5, upper + (gy + (j + 0.5) / sY) * bh - 0.5)
      out[gy * GRID_W + gx] = s / (sX * sY)
    }
  return out
}

/** A fitted network: weights as stored by the training script. */
export interface Network {
  readonly hidden: number
  readonly w1: Float32Array
  readonly b1: Float32Array
  readonly w2: Float32Array
  readonly b2: Float32Array
}

const decode = (base64: string): Float32Array => {
  const bytes = Buffer.from(base64, "base64")
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
}

let network: Network | undefined
/** The shipped network, decoded once per process. */
export const ocrbNetwork = (): Network => {
  network ??= {
    hidden: OCRB_MODEL.hidden,
    w1: decode(OCRB_MODEL.w1.join("")),
    b1: decode(OCRB_MODEL.b1.join("")),
    w2: decode(OCRB_MODEL.w2.join("")),
    b2: decode(OCRB_MODEL.b2.join("")),
  }
  return network
}

/** Class probabilities (softmax, CLASSES order) of one cell's features. */
export const probabilities = (features: Float32Array, net: Network = ocrbNetwork()): Float32Array => {
  const { hidden, w1, b1, w2, b2 } = net
  const a = new Float32Array(hidden)
  for (let j = 0; j < hidden; j++) {
    let s = b1[j]!
    const row = j * FEATURES
    for (let i = 0; i < FEATURES; i++) s += w1[row + i]! * features[i]!
    a[j] = Math.max(s, 0)
  }
  const out = new Float32Array(CLASSES.length)
  let max = -Infinity
  for (let k = 0; k < CLASSES.length; k++) {
    let s = b2[k]!
    const row = k * hidden
    for (let j = 0; j < hidden; j++) s += w2[row + j]! * a[j]!
    out[k] = s
    if (s > max) max = s
  }
  let total = 0
  for (let k = 0; k < out.length; k++) {
    out[k] = Math.exp(out[k]! - max)
    total += out[k]!
  }
  for (let k = 0; k < out.length; k++) out[k]! /= total
  return out
}

/** The best and second-best reading of one cell among the allowed symbols, probabilities renormalised over them and "no character". */
export interface CellReading {
  readonly char: string
  readonly confidence: number
  readonly second: { readonly char: string; readonly confidence: number }
}

/**
 * The reading of a cell restricted to `allowed` symbols (a numeric field holds digits and `<`):
 * the probabilities of those and of "no character" renormalised, best first. `?` when "no
 * character" wins.
 */
export const classify = (probs: Float32Array, allowed: string = MRZ_SYMBOLS): CellReading => {
  let total = probs[CLASSES.length - 1]!
  const ranked: Array<[string, number]> = [["?", total]]
  for (const c of allowed) {
    const p = probs[CLASSES.indexOf(c)]!
    total += p
    ranked.push([c, p])
  }
  ranked.sort((a, b) => b[1] - a[1])
  const [first, second] = [ranked[0]!, ranked[1]!]
  return { char: first[0], confidence: first[1] / total, second: { char: second[0], confidence: second[1] / total } }
}
