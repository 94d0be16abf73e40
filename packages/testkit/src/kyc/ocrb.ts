/**
 * The MRZ printed in OCR-B, from the committed glyph atlas (`ocrb-atlas.ts`): each glyph scaled
 * (bilinear) to the requested cap height and blended onto the page, one symbol every advance.
 */
import { OCRB_ATLAS } from "./ocrb-atlas.ts"

/** The page drawn on: one luminance byte per pixel, row by row (render.ts's `GreyImage`). */
interface Page {
  readonly width: number
  readonly height: number
  readonly pixels: Uint8Array
}

let coverage: Float32Array | undefined
const atlas = (): Float32Array => {
  if (coverage === undefined) {
    const bytes = Buffer.from(OCRB_ATLAS.data.join(""), "base64")
    coverage = new Float32Array(bytes.length * 2)
    for (let i = 0; i < bytes.length; i++) {
      coverage[2 * i] = (bytes[i]! >> 4) / 15
      coverage[2 * i + 1] = (bytes[i]! & 15) / 15
    }
  }
  return coverage
}

/** The distance from one OCR-B symbol to the next for capitals `cap` px high. */
export const ocrbPitch = (cap: number): number => (OCRB_ATLAS.advance * cap) / OCRB_ATLAS.cap

/**
 * Draws `text` (MRZ symbols; anything else is left blank) in OCR-B with capitals `cap` px high,
 * their top at `y`, the first cell from `x`; returns the x after the last cell.
 */
export const drawOcrb = (img: Page, text: string, x: number, y: number, cap: number, ink: number): number => {
  const cov = atlas()
  const { cellWidth, rows, capTop, symbols } = OCRB_ATLAS
  const scale = cap / OCRB_ATLAS.cap
  const pitch = ocrbPitch(cap)
  const size = cellWidth * rows
  const sample = (k: number, u: number, v: number) => {
    if (u < 0 || v < 0 || u >= cellWidth - 1 || v >= rows - 1) return 0
    const ui = Math.floor(u)
    const vi = Math.floor(v)
    const fu = u - ui
    const fv = v - vi
    const i = k * size + vi * cellWidth + ui
    return (cov[i]! * (1 - fu) + cov[i + 1]! * fu) * (1 - fv) + (cov[i + cellWidth]! * (1 - fu) + cov[i + cellWidth + 1]! * fu) * fv
  }
  for (let c = 0; c < text.length; c++) {
    const k = symbols.indexOf(text[c]!)
    if (k < 0) continue
    const ox = x + c * pitch
    const oy = y - capTop * scale
    for (let row = Math.floor(oy); row < Math.ceil(oy + rows * scale); row++) {
      if (row < 0 || row >= img.height) continue
      for (let col = Math.floor(ox); col < Math.ceil(ox + cellWidth * scale); col++) {
        if (col < 0 || col >= img.width) continue
        const a = sample(k, (col + 0.5 - ox) / scale - 0.5, (row + 0.5 - oy) / scale - 0.5)
        if (a <= 0) continue
        const at = row * img.width + col
        img.pixels[at] = Math.round(img.pixels[at]! * (1 - a) + ink * a)
      }
    }
  }
  return x + text.length * pitch
}
