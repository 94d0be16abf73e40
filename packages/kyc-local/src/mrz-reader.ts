/**
 * Reading the machine-readable zone of a document photo, offline: decode, greyscale, deskew
 * (projection profile over a few angles), threshold (Otsu), find the MRZ lines at the bottom
 * of the page, cut each line into its fixed-pitch character cells, tell the `<` fillers by
 * their chevron shape, and read the remaining characters with tesseract.js (traineddata from
 * `@tesseract.js-data/eng`, character whitelist, digits-only passes for numeric fields). The
 * text is then normalised by field type (O→0, I→1, B→8, S→5 in numeric fields; the reverse
 * in name and country fields) and handed to core's MRZ parser.
 */
import { createRequire } from "node:module"
import { blur, decodeRgb, encodeGrey, flatten, otsu, rotate, toGrey, type Grey } from "./image.ts"
import { nextTurn } from "./models.ts"
import { checkBlind, decideMrz, MIN_CONFIDENCE, type CharRead } from "./mrz-decide.ts"
import { rectify } from "./rectify.ts"

const require = createRequire(import.meta.url)

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

interface TesseractWorker {
  setParameters(params: Record<string, string>): Promise<unknown>
  recognize(
    image: Buffer,
    options: Record<string, unknown>,
    output: Record<string, boolean>,
  ): Promise<{
    data: {
      text: string
      confidence: number
      blocks: Array<{
        paragraphs: Array<{
          lines: Array<{ words: Array<{ symbols: Array<{ text: string; confidence: number; bbox: { x0: number; y0: number; x1: number; y1: number } }> }> }>
        }>
      }> | null
    }
  }>
  terminate(): Promise<unknown>
}

let worker: Promise<TesseractWorker> | undefined
let queue: Promise<unknown> = Promise.resolve()

/** The process's one tesseract worker, created on first use; reads run one at a time through it. */
const ocr = <A>(task: (w: TesseractWorker) => Promise<A>): Promise<A> => {
  worker ??= (async () => {
    const { createWorker, OEM } = require("tesseract.js") as {
      createWorker: (lang: string, oem: number, options: Record<string, unknown>) => Promise<TesseractWorker>
      OEM: { LSTM_ONLY: number }
    }
    const eng = require("@tesseract.js-data/eng") as { langPath: string }
    return createWorker("eng", OEM.LSTM_ONLY, {
      langPath: eng.langPath,
      gzip: true,
      cacheMethod: "none",
      logger: () => undefined,
      errorHandler: () => undefined,
    })
  })()
  const run = queue.then(async () => task(await worker!))
  queue = run.catch(() => undefined)
  return run
}

/** Ends the tesseract worker (tests and the benchmark; a server keeps it for its lifetime). */
export const stopOcr = async (): Promise<void> => {
  const w = worker
  worker = undefined
  if (w !== undefined) await (await w).terminate()
}

/** Text height (px) the glyphs are scaled to for tesseract (22 read 9/10 generated cases exactly, 30 read 6/10). */
const CAP = 22

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
/** Text height of the second, independent read of the alphabetic fields (no check digit covers them). */
const RECHECK_CAP = 30
const DIGITS = "0123456789"

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
 * Whether the ink in a glyph box is a `<` chevron: ink on the left only around the middle, on
 * the right only at the ends, and the top and bottom rows inked only on the right half (the
 * arms of a `<` are diagonals; the arcs of a `C`, which passes the other tests, run across).
 */
const isChevron = (ink: (x: number, y: number) => boolean, x0: number, x1: number, y0: number, y1: number, lineHeight: number): boolean => {
  // tighten to the ink
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
  if (h <= 0 || w <= 0) return false
  if (h > lineHeight * 0.92) return false // a chevron is shorter than the capitals
  const band = (fx0: number, fx1: number, fy0: number, fy1: number) => {
    let n = 0
    for (let y = top + Math.floor(h * fy0); y < top + Math.ceil(h * fy1); y++)
      for (let x = left + Math.floor(w * fx0); x < left + Math.ceil(w * fx1); x++) if (ink(x, y)) n++
    return n
  }
  const leftEnds = band(0, 0.25, 0, 0.2) + band(0, 0.25, 0.8, 1)
  const leftMiddle = band(0, 0.3, 0.35, 0.65)
  const rightEnds = band(0.7, 1, 0, 0.25) + band(0.7, 1, 0.75, 1)
  const rightMiddle = band(0.65, 1, 0.35, 0.65)
  const arcs = band(0, 0.5, 0, 0.1) + band(0, 0.5, 0.9, 1)
  return leftEnds === 0 && leftMiddle > 0 && rightEnds > 0 && rightMiddle === 0 && arcs === 0
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
  readonly filler: boolean
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
const cellsOf = (ink: (x: number, y: number) => boolean, line: Line, count: number): Array<Cell> => {
  const { origin, pitch } = pitchOf(line.cells, count)
  const cells: Array<Cell> = []
  for (let k = 0; k < count; k++) {
    const x0 = Math.max(0, Math.round(origin + (k - 0.5) * pitch))
    const x1 = Math.round(origin + (k + 0.5) * pitch)
    cells.push({ x0, x1, filler: isChevron(ink, x0, x1, line.top, line.bottom, line.bottom - line.top) })
  }
  return cells
}

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
  const band: Grey = { width: full.width, height: full.height - cut, pixels: full.pixels.subarray(cut * full.width) }
  // paper made white under any light: a box several text heights wide (an MRZ line is about a
  // twentieth of the band's shorter side or less)
  const grey0 = flatten(band, Math.max(16, Math.round(Math.min(band.width, band.height) / 16)))
  const skew = estimateSkew(inkMask(blur(grey0)))
  await nextTurn()
  const grey = blur(Math.abs(skew) >= 0.2 ? rotate(grey0, skew) : grey0)
  const mask = inkMask(grey)
  const threshold = mask.threshold
  const ink = (x: number, y: number) => mask.ink[y * grey.width + x] === 1
  const rows = textRows(ink, grey.width, grey.height, 0)
  // MRZ lines: the lowest rows with at least 28 glyph runs and a similar height
  const candidates = rows.filter((r) => r.cells.length >= 26)
  if (candidates.length < 2) return { lines: null, confidence: 0, skew }
  const three = candidates.length >= 3 && candidates.slice(-3).every((r) => Math.abs(r.cells.length - 30) <= 4)
  const lines = three ? candidates.slice(-3) : candidates.slice(-2)
  const glyphs = lines.reduce((n, l) => n + l.cells.length, 0) / lines.length
  const formats: ReadonlyArray<ReadonlyArray<string>> = three ? [TD1] : Math.abs(glyphs - 36) < Math.abs(glyphs - 44) ? [TD2, TD3] : [TD3, TD2]
  const format = formats[0]!
  const cells = lines.map((line, k) => cellsOf(ink, line, format[k]!.length))
  // The units tesseract reads: runs of neighbouring non-filler cells of one field type. Each
  // pass has its own alphabet: numeric runs are read with digits only, alphabetic ones with
  // letters only, alphanumeric ones with both, and again with digits only (a digit seen there
  // is the look-alike alternative a check digit may choose, in `decideMrz`). Every
  // symbol tesseract returns is put in the cell its centre falls in, so an inserted or dropped
  // character never shifts the rest of the line.
  interface Group {
    readonly line: number
    readonly start: number
    readonly end: number
    readonly type: string
  }
  const groups: Array<Group> = []
  cells.forEach((row, li) => {
    let k = 0
    while (k < row.length) {
      if (row[k]!.filler) {
        k++
        continue
      }
      const type = format[li]![k]!
      let e = k
      while (e + 1 < row.length && !row[e + 1]!.filler && format[li]![e + 1] === type) e++
      groups.push({ line: li, start: k, end: e + 1, type })
      k = e + 1
    }
  })
  interface Seen {
    readonly char: string
    readonly confidence: number
    readonly symbols: number
  }
  const seen = { digits: new Map<string, Seen>(), letters: new Map<string, Seen>(), recheck: new Map<string, Seen>(), both: new Map<string, Seen>() }
  const alphabet = { digits: DIGITS, letters: LETTERS, recheck: LETTERS, both: LETTERS + DIGITS }
  const readIn = { digits: "NX", letters: "A", recheck: "A", both: "X" }
  // In the digits pass an alphanumeric cell the full pass read as a letter that looks like no
  // digit is left blank: a forced-digit reading of a K or an M is noise, and it merges with its
  // neighbours into one symbol, which would take the digit reading of the look-alikes with it.
  const blank = (line: number, cell: number) => {
    if (format[line]![cell] !== "X") return false
    const read = seen.both.get(`${line}:${cell}`)
    return read !== undefined && !/[0-9ODQIZASTBG]/.test(read.char)
  }
  for (const pass of ["letters", "recheck", "both", "digits"] as const) {
    const mine = groups.filter((g) => readIn[pass].includes(g.type))
    if (mine.length === 0) continue
    const { image, lineAt, cellAt } = composeGroups(
      grey,
      threshold,
      lines,
      cells,
      mine,
      pass === "recheck" ? RECHECK_CAP : CAP,
      pass === "digits" ? blank : () => false,
    )
    const result = await ocr(async (w) => {
      await w.setParameters({ tessedit_char_whitelist: alphabet[pass], tessedit_pageseg_mode: "6" })
      return w.recognize(Buffer.from(encodeGrey(image, 95)), {}, { text: true, blocks: true })
    })
    for (const block of result.data.blocks ?? []) {
      for (const paragraph of block.paragraphs) {
        for (const line of paragraph.lines) {
          for (const word of line.words) {
            for (const symbol of word.symbols) {
              const k = lineAt((symbol.bbox.y0 + symbol.bbox.y1) / 2)
              const g = mine[k]
              if (g === undefined) continue
              const c = cellAt(k, (symbol.bbox.x0 + symbol.bbox.x1) / 2)
              if (c < 0) continue
              const key = `${g.line}:${g.start + c}`
              const before = seen[pass].get(key)
              const char = symbol.text.trim()
              if (char.length !== 1) continue
              const confidence = Math.max(0, Math.min(1, symbol.confidence / 100))
              // two symbols in one cell: a glyph split in two, so neither is a clean read
              seen[pass].set(key, before === undefined ? { char, confidence, symbols: 1 } : { char: before.char, confidence: 0, symbols: before.symbols + 1 })
            }
          }
        }
      }
    }
  }
  const characters: Array<Array<CharRead>> = cells.map((row, li) =>
    row.map((cell, k): CharRead => {
      if (cell.filler) return { char: "<", confidence: 1 }
      const type = format[li]![k]!
      const digit = seen.digits.get(`${li}:${k}`)
      const only = type === "N" ? digit : type === "A" ? seen.letters.get(`${li}:${k}`) : undefined
      // no check digit covers an alphabetic field, so it is read twice, at two text heights: a
      // letter the second read contradicts is not taken (blur made CHIDI read EHIDL at 0.98 once)
      if (type === "A" && only !== undefined) {
        const again = seen.recheck.get(`${li}:${k}`)
        if (again !== undefined && again.char !== only.char) return { char: only.char, confidence: 0 }
      }
      if (type !== "X") return only === undefined ? { char: "?", confidence: 0 } : { char: only.char, confidence: only.confidence }
      // alphanumeric: the full pass's reading is taken, the digits pass's is its alternative; the
      // digits pass (forced to a digit, so its confidence says little about letters) leads only
      // where the full pass has no clear reading
      const full = seen.both.get(`${li}:${k}`)
      const [first, second] =
        full !== undefined && (full.confidence >= MIN_CONFIDENCE || digit === undefined || full.confidence >= digit.confidence) ? [full, digit] : [digit, full]
      if (first === undefined) return { char: "?", confidence: 0 }
      // G and 6 weigh the same in every check digit (16 ≡ 6 mod 10), so no check catches one
      // read for the other (tesseract does both, at 0.98): either is taken only when the full
      // pass read it and the shape test agrees, and never with the other as an alternative
      if (checkBlind(first.char)) {
        const shape = gOrSix(ink, cell.x0, cell.x1, lines[li]!.top, lines[li]!.bottom)
        return { char: first.char, confidence: first === full && shape === first.char ? first.confidence : 0 }
      }
      return second === undefined || second.char === first.char
        ? { char: first.char, confidence: first.confidence }
        : { char: first.char, confidence: first.confidence, alternative: { char: second.char, confidence: second.confidence } }
    }),
  )
  const decided = decideMrz(characters)
  const read = characters.flat().filter((c) => c.char !== "<")
  const confidence = read.length === 0 ? 0 : read.reduce((sum, c) => sum + c.confidence, 0) / read.length
  return { lines: decided.lines, characters, confidence, skew }
}

/**
 * One image per pass: each group on its own text line, its glyphs at their own pitch, groups
 * a blank line apart; each output line is given to the group drawn at its height.
 */
const composeGroups = (
  grey: Grey,
  threshold: number,
  lines: ReadonlyArray<Line>,
  cells: ReadonlyArray<ReadonlyArray<Cell>>,
  groups: ReadonlyArray<{ line: number; start: number; end: number }>,
  cap: number,
  blank: (line: number, cell: number) => boolean,
): { readonly image: Grey; readonly lineAt: (y: number) => number; readonly cellAt: (group: number, x: number) => number } => {
  const lineHeight = Math.max(...lines.map((l) => l.bottom - l.top))
  // one text height for every document size: scale every glyph to `cap`
  const scale = cap / lineHeight
  const pad = Math.round(cap * 0.8)
  const widths = groups.map((g) => Math.ceil((cells[g.line]![g.end - 1]!.x1 - cells[g.line]![g.start]!.x0) * scale))
  const width = Math.max(...widths) + 2 * pad
  const step = cap + pad
  const height = groups.length * step + pad
  const pixels = new Uint8Array(width * height).fill(255)
  // where each cell of each group is drawn (x from, x to), for giving symbols back to cells
  const drawn: Array<Array<readonly [number, number]>> = []
  groups.forEach((g, k) => {
    drawn.push([])
    const line = lines[g.line]!
    const row = cells[g.line]!
    const oy = pad + k * step
    const x0 = row[g.start]!.x0
    for (let c = g.start; c < g.end; c++) {
      const cell = row[c]!
      if (blank(g.line, c)) {
        drawn[k]!.push([-1, -1])
        continue
      }
      const dx0 = Math.round((cell.x0 - x0) * scale)
      const dx1 = Math.round((cell.x1 - x0) * scale)
      drawn[k]!.push([pad + dx0, pad + dx1])
      for (let dy = 0; dy < cap; dy++) {
        const sy0 = line.top + Math.floor(dy / scale)
        const sy1 = Math.max(sy0 + 1, Math.min(line.bottom, line.top + Math.floor((dy + 1) / scale)))
        for (let dx = dx0; dx < dx1; dx++) {
          const sx0 = x0 + Math.floor(dx / scale)
          const sx1 = Math.max(sx0 + 1, Math.min(cell.x1, x0 + Math.floor((dx + 1) / scale)))
          // box average of the source pixels; paper (lighter than the threshold) becomes white
          let sum = 0
          let n = 0
          for (let y = sy0; y < sy1; y++)
            for (let x = sx0; x < sx1; x++) {
              const v = grey.pixels[y * grey.width + x]!
              sum += v < threshold ? v * 0.5 : 255
              n++
            }
          pixels[(oy + dy) * width + pad + dx] = n === 0 ? 255 : sum / n
        }
      }
    }
  })
  return {
    image: { width, height, pixels },
    lineAt: (y) => Math.floor((y - pad / 2) / step),
    cellAt: (group, x) => (drawn[group] ?? []).findIndex(([a, b]) => x >= a && x < b),
  }
}
