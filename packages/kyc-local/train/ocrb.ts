/**
 * Fits the OCR-B character classifier (`src/ocrb-classifier.ts`) and writes `src/ocrb-model.ts`.
 *
 *   npx tsx --conditions=@signet/source packages/kyc-local/train/ocrb.ts [--pages 400] [--epochs 5] [--seed 7]
 *
 * The glyphs come from the OCR-B font itself (Debian `fonts-ocr-b`, rasterised by ImageMagick at
 * 120 pt, in three stroke weights). From them it draws synthetic MRZ blocks (random symbols, TD1,
 * TD2 and TD3 line lengths, text 15-45 px high) photographed in software: rotation up to ±3°,
 * shear, sub-pixel placement, stroke weight, Gaussian blur σ 0-1.5, uneven light, paper and ink
 * levels, pixel noise, JPEG 40-95. Each block goes through the reader's own `locateMrz` (the same
 * flattening, deskew and cell cuts as a real read), and each cell's features are labelled with the
 * symbol drawn there; blank cells beside the text are "no character". It never reads the
 * evaluation's documents (`eval/`), nor uses them to choose anything here.
 */
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { parseArgs } from "node:util"
import jpeg from "jpeg-js"
import type { Grey } from "../src/image.ts"
import { locateMrz } from "../src/mrz-reader.ts"
import { CLASSES, cellFeatures, FEATURES, lineGeometry, lineLevels, MRZ_SYMBOLS, type Network, probabilities } from "../src/ocrb-classifier.ts"

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "400" },
    epochs: { type: "string", default: "5" },
    hidden: { type: "string", default: "96" },
    seed: { type: "string", default: "7" },
    font: { type: "string", default: "/usr/share/fonts/opentype/ocr-b/OCRB.otf" },
  },
})
const PAGES = Number(values.pages)
const EPOCHS = Number(values.epochs)
const HIDDEN = Number(values.hidden)

// mulberry32: a small seeded generator, so a training run can be repeated
let state = Number(values.seed) >>> 0
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0
  let t = state
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const uniform = (a: number, b: number) => a + (b - a) * random()
const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())

// --- the font, rasterised -------------------------------------------------------------------------

interface Atlas {
  readonly width: number
  readonly height: number
  readonly advance: number
  /** ink coverage 0..1 */
  readonly ink: Float32Array
}

const rasterise = (morphology: ReadonlyArray<string>): Atlas => {
  const args = ["-font", values.font, "-pointsize", "120", "-background", "white", "-fill", "black", `label:${MRZ_SYMBOLS}`, ...morphology]
  const size = execFileSync("convert", [...args, "-format", "%w %h", "info:"], { encoding: "utf8" })
    .trim()
    .split(" ")
    .map(Number)
  const raw = execFileSync("convert", [...args, "-depth", "8", "gray:-"], { maxBuffer: 1 << 26 })
  const [width, height] = size as [number, number]
  const ink = new Float32Array(width * height)
  for (let i = 0; i < ink.length; i++) ink[i] = 1 - raw[i]! / 255
  return { width, height, advance: width / MRZ_SYMBOLS.length, ink }
}
// three stroke weights (the font's, thinner, bolder); a page blends two neighbours
const atlases = [
  rasterise(["-negate", "-morphology", "Erode", "Disk:2.5", "-negate"]),
  rasterise([]),
  rasterise(["-negate", "-morphology", "Dilate", "Disk:3", "-negate"]),
]
const base = atlases[1]!
// the cap height of the rasterised font (rows the H has ink in), for the text-size scale
const capHeight = (() => {
  const k = MRZ_SYMBOLS.indexOf("H")
  let top = base.height
  let bottom = 0
  for (let y = 0; y < base.height; y++)
    for (let x = Math.floor(k * base.advance); x < Math.floor((k + 1) * base.advance); x++)
      if (base.ink[y * base.width + x]! > 0.5) {
        top = Math.min(top, y)
        bottom = Math.max(bottom, y + 1)
      }
  return { top, bottom, height: bottom - top }
})()

const coverage = (atlas: Atlas, symbol: number, u: number, v: number): number => {
  // u, v in the glyph's cell (u from 0 to advance, v in atlas rows)
  const x = symbol * atlas.advance + u
  if (u < 0 || u >= atlas.advance || v < 0 || v >= atlas.height - 1) return 0
  const xi = Math.floor(x)
  const yi = Math.floor(v)
  if (xi >= atlas.width - 1) return 0
  const fx = x - xi
  const fy = v - yi
  const i = yi * atlas.width + xi
  const w = atlas.width
  return (atlas.ink[i]! * (1 - fx) + atlas.ink[i + 1]! * fx) * (1 - fy) + (atlas.ink[i + w]! * (1 - fx) + atlas.ink[i + w + 1]! * fx) * fy
}

// --- a synthetic photographed MRZ block -------------------------------------------------------------

const FORMATS = [
  { lines: 2, length: 44 },
  { lines: 2, length: 36 },
  { lines: 3, length: 30 },
] as const

const randomLine = (length: number): Array<number> => {
  const out: Array<number> = []
  while (out.length < length) {
    const r = random()
    if (r < 0.12) {
      // a filler run, as in names and optional fields
      const run = 1 + Math.floor(random() * 8)
      for (let k = 0; k < run && out.length < length; k++) out.push(MRZ_SYMBOLS.length - 1)
    } else out.push(Math.floor(random() * MRZ_SYMBOLS.length))
  }
  return out
}

const gaussianBlur = (img: Float32Array, width: number, height: number, sigma: number): Float32Array => {
  if (sigma < 0.2) return img
  const r = Math.ceil(sigma * 3)
  const kernel = Array.from({ length: 2 * r + 1 }, (_, k) => Math.exp(-((k - r) ** 2) / (2 * sigma * sigma)))
  const total = kernel.reduce((a, b) => a + b, 0)
  const tmp = new Float32Array(img.length)
  const out = new Float32Array(img.length)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let s = 0
      for (let k = -r; k <= r; k++) s += kernel[k + r]! * img[y * width + Math.min(width - 1, Math.max(0, x + k))]!
      tmp[y * width + x] = s / total
    }
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let s = 0
      for (let k = -r; k <= r; k++) s += kernel[k + r]! * tmp[Math.min(height - 1, Math.max(0, y + k)) * width + x]!
      out[y * width + x] = s / total
    }
  return out
}

interface Page {
  readonly grey: Grey
  readonly text: ReadonlyArray<ReadonlyArray<number>>
}

const page = (): Page => {
  const format = FORMATS[Math.floor(random() * FORMATS.length)]!
  const text = Array.from({ length: format.lines }, () => randomLine(format.length))
  const cap = uniform(15, 45)
  const scale = cap / capHeight.height // atlas px → image px
  const xScale = scale * uniform(0.94, 1.06)
  const pitch = base.advance * xScale
  const leading = cap * uniform(1.55, 2.0)
  const margin = Math.round(cap * uniform(1.5, 3))
  const width = Math.ceil(format.length * pitch + 2 * margin)
  const height = Math.ceil(format.lines * leading + 2 * margin)
  const angle = (uniform(-3, 3) * Math.PI) / 180
  const shear = uniform(-0.06, 0.06)
  const weight = uniform(0, 2) // 0 thin .. 1 the font .. 2 bold
  const [lo, hi] = weight < 1 ? [atlases[0]!, atlases[1]!] : [atlases[1]!, atlases[2]!]
  const mix = weight < 1 ? weight : weight - 1
  const cos = Math.cos(angle)
  const sin = Math.sin(angle)
  const cx = width / 2
  const cy = height / 2
  const ox = margin + uniform(0, 1)
  const oy = margin + uniform(0, 1)
  const samples = Math.max(2, Math.min(5, Math.ceil(1 / scale / 2)))
  const ink = new Float32Array(width * height)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let s = 0
      for (let j = 0; j < samples; j++)
        for (let i = 0; i < samples; i++) {
          // image point → unrotated text-block point
          const px = x + (i + 0.5) / samples - 0.5 - cx
          const py = y + (j + 0.5) / samples - 0.5 - cy
          const ty = -sin * px + cos * py + cy - oy
          const tx = cos * px + sin * py + cx - ox - shear * (ty % leading)
          const line = Math.floor(ty / leading)
          if (line < 0 || line >= format.lines) continue
          const col = Math.floor(tx / pitch)
          if (col < 0 || col >= format.length) continue
          const u = (tx - col * pitch) / xScale
          // the line box starts 0.3 cap heights above the capitals: OCR-B digits stand about 9 % taller
          const v = (ty - line * leading) / scale + capHeight.top - 0.3 * capHeight.height
          const symbol = text[line]![col]!
          s += coverage(lo, symbol, u, v) * (1 - mix) + coverage(hi, symbol, u, v) * mix
        }
      ink[y * width + x] = s / (samples * samples)
    }
  const blurred = gaussianBlur(ink, width, height, random() < 0.25 ? 0 : uniform(0.2, 1.5))
  const paper = uniform(150, 250)
  const inkLevel = uniform(5, Math.min(110, paper - 60))
  const gx = uniform(-0.45, 0.45)
  const gy = uniform(-0.3, 0.3)
  const noise = uniform(0, 7)
  const rgba = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const light = 1 + gx * (x / width - 0.5) + gy * (y / height - 0.5)
      const d = blurred[y * width + x]!
      const v = Math.max(0, Math.min(255, (paper * (1 - d) + inkLevel * d) * light + noise * gauss()))
      const q = (y * width + x) * 4
      rgba[q] = rgba[q + 1] = rgba[q + 2] = v
      rgba[q + 3] = 255
    }
  const quality = random() < 0.15 ? 98 : Math.round(uniform(40, 95))
  const decoded = jpeg.decode(jpeg.encode({ data: rgba, width, height }, quality).data, { useTArray: true, formatAsRGBA: true })
  const pixels = new Uint8Array(width * height)
  for (let i = 0; i < pixels.length; i++) pixels[i] = decoded.data[i * 4]!
  return { grey: { width, height, pixels }, text }
}

// --- samples ------------------------------------------------------------------------------------------

const NONE = CLASSES.length - 1
const inputs: Array<Float32Array> = []
const labels: Array<number> = []
let located = 0
const started = performance.now()
for (let p = 0; p < PAGES; p++) {
  const { grey, text } = page()
  if (process.env.OCRB_DUMP && p < 3)
    writeFileSync(`/tmp/ocrb-page-${p}.pgm`, Buffer.concat([Buffer.from(`P5 ${grey.width} ${grey.height} 255\n`), Buffer.from(grey.pixels)]))
  const layout = locateMrz(grey)
  if (layout.lines === null || layout.lines.length !== text.length || layout.cells[0]!.length !== text[0]!.length) continue
  located++
  const ink = (x: number, y: number) => layout.mask.ink[y * layout.grey.width + x] === 1
  layout.cells.forEach((row, li) => {
    const { top, bottom } = layout.lines[li]!
    const levels = lineLevels(layout.grey, top, bottom, row[0]!.x0, row[row.length - 1]!.x1)
    const geometry = lineGeometry(ink, row, top, bottom)
    row.forEach((cell, k) => {
      inputs.push(cellFeatures(layout.grey, cell.x0, cell.x1, geometry, levels))
      labels.push(text[li]![k]!)
    })
    // blank paper beyond the line's ends: no character
    const pitch = row[1]!.x0 - row[0]!.x0
    for (const x0 of [row[0]!.x0 - pitch * uniform(1.2, 1.8), row[row.length - 1]!.x1 + pitch * uniform(0.2, 0.8)]) {
      if (x0 < 0 || x0 + pitch > layout.grey.width) continue
      inputs.push(cellFeatures(layout.grey, x0, x0 + pitch, geometry, levels))
      labels.push(NONE)
    }
  })
  // noise, fine or blotchy, is no character either
  for (let k = 0; k < 3; k++) {
    const cap = uniform(15, 45)
    const w = Math.ceil(cap * 3)
    const h = Math.ceil(cap * 2)
    let noise: Float32Array = Float32Array.from({ length: w * h }, () => random())
    if (random() < 0.5) noise = gaussianBlur(noise, w, h, uniform(0.5, 3))
    let lo = Infinity
    let hi = -Infinity
    for (const v of noise) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)]
    const pixels = Uint8Array.from(noise, (v) => (255 * (v - lo)) / Math.max(1e-6, hi - lo))
    const patch = { width: w, height: h, pixels }
    inputs.push(cellFeatures(patch, cap, 2 * cap, { cap, middle: () => h / 2 }, lineLevels(patch, 0, h)))
    labels.push(NONE)
  }
  if (p % 100 === 99)
    process.stderr.write(`pages ${p + 1}/${PAGES}, located ${located}, samples ${inputs.length}, ${((performance.now() - started) / 1000).toFixed(0)} s\n`)
}

// --- fitting: softmax cross-entropy, Adam, minibatches ----------------------------------------------

const order = Array.from(inputs.keys())
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1))
  ;[order[i], order[j]] = [order[j]!, order[i]!]
}
const heldOut = order.slice(0, Math.floor(order.length / 10))
const train = order.slice(heldOut.length)
const K = CLASSES.length
const net = {
  hidden: HIDDEN,
  w1: Float32Array.from({ length: HIDDEN * FEATURES }, () => gauss() * Math.sqrt(2 / FEATURES)),
  b1: new Float32Array(HIDDEN),
  w2: Float32Array.from({ length: K * HIDDEN }, () => gauss() * Math.sqrt(1 / HIDDEN)),
  b2: new Float32Array(K),
} satisfies Network
const params = [net.w1, net.b1, net.w2, net.b2]
const grads = params.map((p) => new Float32Array(p.length))
const m1 = params.map((p) => new Float32Array(p.length))
const m2 = params.map((p) => new Float32Array(p.length))
let step = 0
const BATCH = 32
const a = new Float32Array(HIDDEN)
const da = new Float32Array(HIDDEN)

const evaluate = (set: ReadonlyArray<number>) => {
  let right = 0
  let loss = 0
  for (const n of set) {
    const p = probabilities(inputs[n]!, net)
    let best = 0
    for (let k = 1; k < K; k++) if (p[k]! > p[best]!) best = k
    if (best === labels[n]) right++
    loss -= Math.log(Math.max(1e-9, p[labels[n]!]!))
  }
  return { accuracy: right / set.length, loss: loss / set.length }
}

for (let epoch = 0; epoch < EPOCHS; epoch++) {
  const rate = 0.002 * (epoch < EPOCHS - 3 ? 1 : 0.3 ** (epoch - EPOCHS + 4))
  for (let i = train.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[train[i], train[j]] = [train[j]!, train[i]!]
  }
  for (let b = 0; b < train.length; b += BATCH) {
    for (const g of grads) g.fill(0)
    const batch = train.slice(b, b + BATCH)
    for (const n of batch) {
      const x = inputs[n]!
      for (let j = 0; j < HIDDEN; j++) {
        let s = net.b1[j]!
        const row = j * FEATURES
        for (let i = 0; i < FEATURES; i++) s += net.w1[row + i]! * x[i]!
        a[j] = Math.max(s, 0)
      }
      const z = new Float32Array(K)
      let max = -Infinity
      for (let k = 0; k < K; k++) {
        let s = net.b2[k]!
        for (let j = 0; j < HIDDEN; j++) s += net.w2[k * HIDDEN + j]! * a[j]!
        z[k] = s
        max = Math.max(max, s)
      }
      let total = 0
      for (let k = 0; k < K; k++) total += z[k] = Math.exp(z[k]! - max)
      da.fill(0)
      for (let k = 0; k < K; k++) {
        const dz = z[k]! / total - (k === labels[n] ? 1 : 0)
        grads[3]![k]! += dz
        for (let j = 0; j < HIDDEN; j++) {
          grads[2]![k * HIDDEN + j]! += dz * a[j]!
          da[j]! += dz * net.w2[k * HIDDEN + j]!
        }
      }
      for (let j = 0; j < HIDDEN; j++) {
        if (a[j]! <= 0) continue
        const d = da[j]!
        grads[1]![j]! += d
        const row = j * FEATURES
        for (let i = 0; i < FEATURES; i++) grads[0]![row + i]! += d * x[i]!
      }
    }
    step++
    const c1 = 1 - 0.9 ** step
    const c2 = 1 - 0.999 ** step
    params.forEach((p, q) => {
      const g = grads[q]!
      const mm = m1[q]!
      const vv = m2[q]!
      for (let i = 0; i < p.length; i++) {
        const gi = g[i]! / batch.length + (q === 0 || q === 2 ? 1e-5 * p[i]! : 0)
        mm[i] = 0.9 * mm[i]! + 0.1 * gi
        vv[i] = 0.999 * vv[i]! + 0.001 * gi * gi
        p[i]! -= (rate * (mm[i]! / c1)) / (Math.sqrt(vv[i]! / c2) + 1e-8)
      }
    })
  }
  const t = evaluate(train.slice(0, 5000))
  const h = evaluate(heldOut)
  process.stderr.write(
    `epoch ${epoch + 1}/${EPOCHS}: train accuracy ${(100 * t.accuracy).toFixed(2)} % loss ${t.loss.toFixed(4)}, held out ${(100 * h.accuracy).toFixed(2)} % loss ${h.loss.toFixed(4)}, ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  )
}

// --- the held-out confusions and confidence, then the model file ---------------------------------------

let confidentWrong = 0
const confusions = new Map<string, number>()
for (const n of heldOut) {
  const p = probabilities(inputs[n]!, net)
  let best = 0
  for (let k = 1; k < K; k++) if (p[k]! > p[best]!) best = k
  if (best !== labels[n]) {
    const key = `${CLASSES[labels[n]!]}→${CLASSES[best]}`
    confusions.set(key, (confusions.get(key) ?? 0) + 1)
    if (p[best]! >= 0.9) confidentWrong++
  }
}
process.stderr.write(
  `held out: ${heldOut.length} cells, wrong at ≥ 0.9: ${confidentWrong}; confusions ${[...confusions]
    .sort((x, y) => y[1] - x[1])
    .slice(0, 15)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")}\n`,
)

const b64 = (f: Float32Array) => Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString("base64")
const chunks = (s: string) => s.match(/.{1,140}/g) ?? []
const out = path.join(import.meta.dirname, "../src/ocrb-model.ts")
writeFileSync(
  out,
  `/**
 * The fitted OCR-B classifier (written by \`train/ocrb.ts\`; do not edit): ${FEATURES} features → ${HIDDEN} ReLU → ${K} classes,
 * float32 little-endian, base64. Fitted on ${inputs.length} cells from ${located} synthetic MRZ blocks drawn with glyphs rasterised from
 * the OCR-B font of Debian's fonts-ocr-b (font outlines © 1995, 2010 Norbert Schwarz, "You may freely use, modify and/or
 * distribute this file, without limitation"; packaging © 2012 Matthew Skala, public domain).
 */
/** The network's size and weights. */
export const OCRB_MODEL = {
  hidden: ${HIDDEN},
  w1: [
${chunks(b64(net.w1))
  .map((c) => `    "${c}",`)
  .join("\n")}
  ],
  b1: [
${chunks(b64(net.b1))
  .map((c) => `    "${c}",`)
  .join("\n")}
  ],
  w2: [
${chunks(b64(net.w2))
  .map((c) => `    "${c}",`)
  .join("\n")}
  ],
  b2: [
${chunks(b64(net.b2))
  .map((c) => `    "${c}",`)
  .join("\n")}
  ],
} as const
`,
)
process.stderr.write(`wrote ${out}\n`)
