/**
 * Reading the machine-readable zone of a document photo, offline: decode, greyscale, flatten
 * the paper, deskew (projection profile over a few angles), threshold (Otsu), find the MRZ
 * lines at the bottom of the page, cut each line into its fixed-pitch character cells (pitch
 * fitted to the glyph centres), and read every cell with the OCR-B classifier
 * (`ocrb-classifier.ts`) among the symbols its field allows. `decideMrz` then takes only
 * confident characters; the check digits verify them.
 */
import { blur, decodeRgb, flatten, otsu, rotate, toGrey, type Grey } from "./image.ts"
import { nextTurn } from "./models.ts"
import { checkBlind, decideMrz, type CharRead } from "./mrz-decide.ts"
import { cellFeatures, classify, lineGeometry, lineLevels, MRZ_SYMBOLS, probabilities } from "./ocrb-classifier.ts"
import { enlarge, rectify } from "./rectify.ts"

/** The result of reading one image's MRZ. */
export interface MrzRead {
  /** the lines as decided (`?` where no character could be taken), or null when no MRZ was found */
  readonly lines: ReadonlyArray<string> | null
  /** every position's character as read, with its confidence and any other reading seen there (absent when no MRZ was found) */
  readonly characters?: ReadonlyArray<ReadonlyArray<CharRead>>
  /** mean confidence over the characters read (fillers excluded), 0..1 (0 when nothing was read) */
  readonly confidence: number
  /** the skew corrected, in degrees */
  readonly skew: number
}

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
const DIGITS = "0123456789"

/** Nothing to stop: the reader no longer runs an OCR worker (kept for callers written when it did). */
export const stopOcr = async (): Promise<void> => undefined

// Field types per position: N numeric, A alphabetic, X alphanumeric (fillers may stand anywhere).
const TD3 = ["AAAAA" + "A".repeat(39), "XXXXXXXXXNAAANNNNNNNANNNNNNNXXXXXXXXXXXXXXNN"] as const
const TD2 = ["AAAAA" + "A".repeat(31), "XXXXXXXXXNAAANNNNNNNANNNNNNNXXXXXXXN"] as const
const TD1 = ["AAAAAXXXXXXXXXNXXXXXXXXXXXXXXX", "NNNNNNNANNNNNNNAAAXXXXXXXXXXXN", "A".repeat(30)] as const

const TO_DIGIT: Record<string, string> = { O: "0", D: "0", Q: "0", U: "0", I: "1", L: "1", T: "1", J: "1", Z: "2", A: "4", S: "5", G: "6", B: "8" }
const TO_LETTER: Record<string, string> = { "0": "O", "1": "I", "2": "Z", "4": "A", "5": "S", "6": "G", "8": "B" }

/** Position-aware normalisation of one MRZ line: letters in numeric fields become digits and the reverse. */
export const normaliseLine = (line: string, types: string): string =>
  [...line]
    .map((c, i) => {
      const t = types[i]
      if (c === "<") return c
      if (t === "N") return TO_DIGIT[c] ?? c
      if (t === "A") return TO_LETTER[c] ?? c
      return c
    })
    .join("")

/** A binary ink image: 1 where a pixel is darker than the threshold. */
export interface InkMask {
  readonly width: number
  readonly height: number
  readonly ink: Uint8Array
  readonly threshold: number
}

/**
 * Ink pixels (darker than Otsu's threshold), without the dark regions that touch the image
 * border (the table around a photographed page, shadows): print never touches the border.
 */
export const inkMask = (img: Grey): InkMask => {
  const { width, height } = img
  const threshold = otsu(img)
  const ink = new Uint8Array(width * height)
  for (let i = 0; i < ink.length; i++) ink[i] = img.pixels[i]! < threshold ? 1 : 0
  const stack: Array<number> = []
  const seed = (i: number) => {
    if (ink[i] === 1) {
      ink[i] = 0
      stack.push(i)
    }
  }
  for (let x = 0; x < width; x++) {
    seed(x)
    seed((height - 1) * width + x)
  }
  for (let y = 0; y < height; y++) {
    seed(y * width)
    seed(y * width + width - 1)
  }
  while (stack.length > 0) {
    const i = stack.pop()!
    const x = i % width
    if (x > 0) seed(i - 1)
    if (x < width - 1) seed(i + 1)
    if (i >= width) seed(i - width)
    if (i < (height - 1) * width) seed(i + width)
  }
  return { width, height, ink, threshold }
}

/** The dominant skew of the text (degrees), from the sharpest horizontal projection of the ink. */
export const estimateSkew = (mask: InkMask): number => {
  const img = { width: mask.width, height: mask.height }
  const xs: Array<number> = []
  const ys: Array<number> = []
  for (let y = 0; y < img.height; y += 1) {
    for (let x = 0; x < img.width; x += 2) {
      if (mask.ink[y * img.width + x] === 1) {
        xs.push(x - img.width / 2)
        ys.push(y)
      }
    }
  }
  if (xs.length === 0) return 0
  const score = (deg: number) => {
    const t = Math.tan((deg * Math.PI) / 180)
    const bins = new Float64Array(img.height * 2)
    for (let k = 0; k < xs.length; k++) {
      // rounded after the offset: an odd height made every index fractional, every score 0 and the answer −8°
      const b = Math.round(ys[k]! - xs[k]! * t + img.height / 2)
      if (b >= 0 && b < bins.length) bins[b]!++
    }
    let s = 0
    for (const v of bins) s += v * v
    return s
  }
  let best = 0
  let bestScore = -1
  for (let deg = -8; deg <= 8; deg += 0.5) {
    const s = score(deg)
    if (s > bestScore) [best, bestScore] = [deg, s]
  }
  for (let deg = best - 0.4; deg <= best + 0.4; deg += 0.1) {
    const s = score(deg)
    if (s > bestScore) [best, bestScore] = [deg, s]
  }
  return best
}

interface Line {
  readonly top: number
  readonly bottom: number
  readonly cells: ReadonlyArray<readonly [number, number]>
}

/** Text rows of the binary image below `from`, each with its ink column runs. */
const textRows = (ink: (x: number, y: number) => boolean, width: number, height: number, from: number): Array<Line> => {
  const rows: Array<[number, number]> = []
  let start = -1
  for (let y = from; y <= height; y++) {
    let n = 0
    if (y < height) for (let x = 0; x < width; x++) if (ink(x, y)) n++
    const on = n >= 3
    if (on && start < 0) start = y
    if (!on && start >= 0) {
      if (y - start >= 8) rows.push([start, y])
      start = -1
    }
  }
  return rows.map(([top, bottom]) => {
    const cells: Array<[number, number]> = []
    let a = -1
    const minInk = Math.max(1, Math.round((bottom - top) * 0.08))
    for (let x = 0; x <= width; x++) {
      let n = 0
      if (x < width) for (let y = top; y < bottom; y++) if (ink(x, y)) n++
      if (n >= minInk && a < 0) a = x
      if (n < minInk && a >= 0) {
        if (x - a >= 2) cells.push([a, x])
        a = -1
      }
    }
    return { top, bottom, cells }
  })
}

/**
 * G or 6, told apart by shape (no check digit can: they weigh the same mod 10). A 6 closes its
 * bowl with a stroke across the middle and has nothing at the upper right; a G is open in the
 * middle (its bar only reaches in from the right) and its arc ends at the upper right. Both
 * must agree. Measured on OCR-B and on the fixtures' font (centre / upper right): 6 0.63-0.73 /
 * 0.00-0.03, G 0.04-0.20 / 0.39-0.47. Null when the ink looks like neither clearly.
 */
export const gOrSix = (ink: (x: number, y: number) => boolean, x0: number, x1: number, y0: number, y1: number): "G" | "6" | null => {
  let top = y1
  let bottom = y0
  let left = x1
  let right = x0
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++)
      if (ink(x, y)) {
        top = Math.min(top, y)
        bottom = Math.max(bottom, y + 1)
        left = Math.min(left, x)
        right = Math.max(right, x + 1)
      }
  const h = bottom - top
  const w = right - left
  if (h < 6 || w < 3) return null
  const density = (fx0: number, fx1: number, fy0: number, fy1: number) => {
    let n = 0
    let area = 0
    for (let y = top + Math.floor(h * fy0); y < top + Math.ceil(h * fy1); y++)
      for (let x = left + Math.floor(w * fx0); x < left + Math.ceil(w * fx1); x++) {
        area++
        if (ink(x, y)) n++
      }
    return n / Math.max(1, area)
  }
  const centre = density(0.25, 0.45, 0.4, 0.6)
  const upperRight = density(0.7, 1, 0.12, 0.3)
  if (centre >= 0.45 && upperRight <= 0.15) return "6"
  if (centre <= 0.3 && upperRight >= 0.25) return "G"
  return null
}

interface Cell {
  readonly x0: number
  readonly x1: number
}

/**
 * The fixed pitch and the first cell's centre of a line of `count` glyphs, from the glyphs found
 * in it: OCR-B (like every MRZ font) centres each glyph in its cell, so the centres of the ink
 * runs lie on a line `origin + k × pitch`. A first guess from the outermost runs gives each run
 * its cell index; a least-squares fit over the single-glyph runs then gives both numbers, so
 * neither the font's glyph width nor the image scale is assumed.
 */
export const pitchOf = (runs: ReadonlyArray<readonly [number, number]>, count: number): { readonly origin: number; readonly pitch: number } => {
  const centre = (r: readonly [number, number]) => (r[0] + r[1]) / 2
  const first = centre(runs[0]!)
  const last = centre(runs[runs.length - 1]!)
  let origin = first
  let pitch = count > 1 ? (last - first) / (count - 1) : runs[0]![1] - runs[0]![0]
  for (let round = 0; round < 2; round++) {
    let n = 0
    let sk = 0
    let sc = 0
    let skk = 0
    let skc = 0
    for (const r of runs) {
      if (r[1] - r[0] > pitch * 1.15) continue // touching glyphs: no single centre
      const k = Math.round((centre(r) - origin) / pitch)
      if (k < 0 || k >= count) continue
      n++
      sk += k
      sc += centre(r)
      skk += k * k
      skc += k * centre(r)
    }
    const det = n * skk - sk * sk
    if (n < 3 || det === 0) break
    pitch = (n * skc - sk * sc) / det
    origin = (sc - pitch * sk) / n
  }
  return { origin, pitch }
}

/** Cuts a text line into `count` fixed-pitch cells, centred on the glyphs found in it. */
const cellsOf = (line: Line, count: number): Array<Cell> => {
  const { origin, pitch } = pitchOf(line.cells, count)
  const cells: Array<Cell> = []
  for (let k = 0; k < count; k++) {
    const x0 = Math.max(0, Math.round(origin + (k - 0.5) * pitch))
    const x1 = Math.round(origin + (k + 0.5) * pitch)
    cells.push({ x0, x1 })
  }
  return cells
}

/** Where an MRZ was found in a band of a page: the deskewed band, its lines and their character cells. */
export interface MrzLayout {
  /** the band, flattened, deskewed and lightly blurred: what the cells are cut from */
  readonly grey: Grey
  /** which ink pixels the band has (Otsu's threshold, border-touching regions removed) */
  readonly mask: InkMask
  readonly lines: ReadonlyArray<{ readonly top: number; readonly bottom: number }>
  /** per line, the field type of each position (N numeric, A alphabetic, X alphanumeric) */
  readonly format: ReadonlyArray<string>
  readonly cells: ReadonlyArray<ReadonlyArray<{ readonly x0: number; readonly x1: number }>>
  /** the skew corrected, in degrees */
  readonly skew: number
}

/**
 * Finds the MRZ in a greyscale band (the lower part of a page): paper flattened, skew
 * corrected, the lowest two or three lines of 26 or more glyph runs taken, each cut into its
 * fixed-pitch cells. Null lines when there is none.
 */
export const locateMrz = (band: Grey): MrzLayout | { readonly lines: null; readonly skew: number } => {
  // paper made white under any light: a box several text heights wide (an MRZ line is about a
  // twentieth of the band's shorter side or less)
  const grey0 = flatten(band, Math.max(16, Math.round(Math.min(band.width, band.height) / 16)))
  const skew = estimateSkew(inkMask(blur(grey0)))
  const grey = blur(Math.abs(skew) >= 0.2 ? rotate(grey0, skew) : grey0)
  const mask = inkMask(grey)
  const ink = (x: number, y: number) => mask.ink[y * grey.width + x] === 1
  const rows = textRows(ink, grey.width, grey.height, 0)
  // MRZ lines: the lowest rows with at least 26 glyph runs
  const candidates = rows.filter((r) => r.cells.length >= 26)
  if (candidates.length < 2) return { lines: null, skew }
  const three = candidates.length >= 3 && candidates.slice(-3).every((r) => Math.abs(r.cells.length - 30) <= 4)
  const lines = three ? candidates.slice(-3) : candidates.slice(-2)
  const glyphs = lines.reduce((n, l) => n + l.cells.length, 0) / lines.length
  const format = three ? TD1 : Math.abs(glyphs - 36) < Math.abs(glyphs - 44) ? TD2 : TD3
  const cells = lines.map((line, k) => cellsOf(line, format[k]!.length))
  return { grey, mask, lines, format, cells, skew }
}

const ALLOWED: Record<string, string> = { N: `${DIGITS}<`, A: `${LETTERS}<`, X: MRZ_SYMBOLS }

/**
 * Every cell of a located MRZ as the OCR-B classifier reads it, among the symbols its field
 * allows (digits and `<` in numeric fields, letters and `<` in alphabetic ones), with its
 * probability. The check digits only verify what was read; they never choose a character.
 */
export const readCells = (layout: MrzLayout): Array<Array<CharRead>> => {
  const { grey, mask } = layout
  const ink = (x: number, y: number) => mask.ink[y * grey.width + x] === 1
  return layout.cells.map((row, li) => {
    const { top, bottom } = layout.lines[li]!
    const levels = lineLevels(grey, top, bottom, row[0]!.x0, row[row.length - 1]!.x1)
    const geometry = lineGeometry(ink, row, top, bottom)
    return row.map((cell, k): CharRead => {
      const read = classify(probabilities(cellFeatures(grey, cell.x0, cell.x1, geometry, levels)), ALLOWED[layout.format[li]![k]!])
      if (read.char === "?") return { char: "?", confidence: 0 }
      // G and 6 weigh the same in every check digit (16 ≡ 6 mod 10): a shape test that
      // contradicts the classifier leaves the position unread
      if (checkBlind(read.char)) {
        const shape = gOrSix(ink, cell.x0, cell.x1, top, bottom)
        if (shape !== null && shape !== read.char) return { char: read.char, confidence: 0 }
      }
      // the runner-up is not offered to the check digits: on the development seed letting them
      // choose it won no read, and in the first 200-document evaluation it turned a tampered
      // TD1 composite check digit into an accepted card (a 0 of the optional data taken as O)
      return { char: read.char, confidence: read.confidence }
    })
  })
}

/** How much the MRZ band is enlarged before reading, and the width past which it is not (CPU). */
export const BAND_ENLARGEMENT = 1.5
const MAX_BAND_WIDTH = 2400

/**
 * Reads the MRZ of one image (JPEG bytes). Finds two or three lines of 30 to 44 glyphs at the
 * bottom of the page, or answers `lines: null`.
 */
export const readMrz = async (jpegBytes: Uint8Array): Promise<MrzRead> => {
  await nextTurn()
  const rgb = decodeRgb(jpegBytes)
  if (rgb === null || rgb.width < 200 || rgb.height < 100) return { lines: null, confidence: 0, skew: 0 }
  // The MRZ is in the lower half of a passport page or an ID card's back: only that half is processed.
  // a page photographed on a table (tilted, rotated) is first made upright through its four corners
  const full = rectify(toGrey(rgb)).image
  const cut = Math.floor(full.height * 0.45)
  const lower: Grey = { width: full.width, height: full.height - cut, pixels: full.pixels.subarray(cut * full.width) }
  // OCR-B's digits stand about 9 % taller than its capitals, which is most of what tells 0 from O:
  // at 9-12 px/mm that is one or two pixels. The band enlarged (bicubic) before the cells are cut
  // gives the classifier's height features that detail (development seed: 0/O refusals gone).
  const factor = Math.min(BAND_ENLARGEMENT, MAX_BAND_WIDTH / lower.width)
  const band = factor > 1 ? enlarge(lower, factor) : lower
  const layout = locateMrz(band)
  if (layout.lines === null) return { lines: null, confidence: 0, skew: layout.skew }
  await nextTurn()
  const characters = readCells(layout)
  const decided = decideMrz(characters)
  const read = characters.flat().filter((c) => c.char !== "<")
  const confidence = read.length === 0 ? 0 : read.reduce((sum, c) => sum + c.confidence, 0) / read.length
  return { lines: decided.lines, characters, confidence, skew: layout.skew }
}
