/**
 * Face images for tests, calibration and the benchmark: the face tiles of the screenshot
 * `assets/screenshot-facematch.jpg` shipped in the `@vladmandic/human` npm package (MIT
 * licence, see docs/kyc-local.md), cut out at run time from the installed package (no copy
 * in this repository), and variants of them (brightness, scale, small rotation) made by code.
 */
import { readFileSync } from "node:fs"
import path from "node:path"
import { modelPaths } from "./models.ts"
import { decodeRgb, type Rgb } from "./image.ts"

/** Rows of the tile grid in the screenshot (top, bottom), columns are 96 px wide, 20 of them. */
const GRID_ROWS: ReadonlyArray<readonly [number, number]> = [
  [283, 389],
  [395, 501],
  [508, 614],
  [620, 726],
  [733, 839],
  [845, 951],
]
const TILE_WIDTH = 96
const COLUMNS = 20

/** The screenshot, decoded once. */
let sheet: Rgb | undefined
const screenshot = (): Rgb => {
  sheet ??= decodeRgb(readFileSync(path.join(modelPaths().models, "..", "assets", "screenshot-facematch.jpg")))!
  return sheet
}

/** Crops a rectangle of an RGB image. */
export const crop = (img: Rgb, x: number, y: number, w: number, h: number): Rgb => {
  const data = new Uint8Array(w * h * 3)
  for (let j = 0; j < h; j++) data.set(img.data.subarray(((y + j) * img.width + x) * 3, ((y + j) * img.width + x + w) * 3), j * w * 3)
  return { width: w, height: h, data }
}

/** Tile `index` (row-major, 0..119) of the screenshot's face grid, scaled up to a photo-like size. */
export const faceTile = (index: number): Rgb => {
  const [top, bottom] = GRID_ROWS[Math.floor(index / COLUMNS)]!
  // the tile's lowest 16 px carry a caption: leave them out
  const tile = crop(screenshot(), (index % COLUMNS) * TILE_WIDTH + 2, top + 14, TILE_WIDTH - 4, bottom - top - 30)
  return resize(pad(tile, 0.35), 3)
}

/** Surrounds an image with a border of its mean edge colour, `fraction` of its size on each side. */
const pad = (img: Rgb, fraction: number): Rgb => {
  const px = Math.round(img.width * fraction)
  const py = Math.round(img.height * fraction)
  const width = img.width + 2 * px
  const height = img.height + 2 * py
  const data = new Uint8Array(width * height * 3).fill(128)
  for (let j = 0; j < img.height; j++) data.set(img.data.subarray(j * img.width * 3, (j + 1) * img.width * 3), ((j + py) * width + px) * 3)
  return { width, height, data }
}

/** Bilinear resize by `scale`. */
export const resize = (img: Rgb, scale: number): Rgb => {
  const width = Math.max(1, Math.round(img.width * scale))
  const height = Math.max(1, Math.round(img.height * scale))
  const data = new Uint8Array(width * height * 3)
  for (let y = 0; y < height; y++) {
    const sy = Math.min(img.height - 1.001, Math.max(0, (y + 0.5) / scale - 0.5))
    const y0 = Math.floor(sy)
    const fy = sy - y0
    for (let x = 0; x < width; x++) {
      const sx = Math.min(img.width - 1.001, Math.max(0, (x + 0.5) / scale - 0.5))
      const x0 = Math.floor(sx)
      const fx = sx - x0
      for (let c = 0; c < 3; c++) {
        const at = (yy: number, xx: number) => img.data[(yy * img.width + xx) * 3 + c]!
        const v = (at(y0, x0) * (1 - fx) + at(y0, x0 + 1) * fx) * (1 - fy) + (at(y0 + 1, x0) * (1 - fx) + at(y0 + 1, x0 + 1) * fx) * fy
        data[(y * width + x) * 3 + c] = v
      }
    }
  }
  return { width, height, data }
}

/** A variant of a face photo: brightness factor, scale, rotation in degrees (about the centre), shift in pixels. */
export const variant = (
  img: Rgb,
  v: { readonly brightness?: number; readonly scale?: number; readonly degrees?: number; readonly shiftX?: number; readonly shiftY?: number },
): Rgb => {
  let out = v.scale === undefined || v.scale === 1 ? img : resize(img, v.scale)
  const a = ((v.degrees ?? 0) * Math.PI) / 180
  const k = v.brightness ?? 1
  const sx0 = v.shiftX ?? 0
  const sy0 = v.shiftY ?? 0
  if (a !== 0 || k !== 1 || sx0 !== 0 || sy0 !== 0) {
    const { width, height } = out
    const data = new Uint8Array(width * height * 3).fill(128)
    const cos = Math.cos(a)
    const sin = Math.sin(a)
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const dx = x - width / 2 - sx0
        const dy = y - height / 2 - sy0
        const sx = Math.round(cos * dx - sin * dy + width / 2)
        const sy = Math.round(sin * dx + cos * dy + height / 2)
        if (sx < 0 || sy < 0 || sx >= width || sy >= height) continue
        for (let c = 0; c < 3; c++) data[(y * width + x) * 3 + c] = Math.min(255, out.data[(sy * width + sx) * 3 + c]! * k)
      }
    }
    out = { width, height, data }
  }
  return out
}

/** A baseline JPEG of an RGB image. */
export { encodeRgb } from "./encode.ts"
