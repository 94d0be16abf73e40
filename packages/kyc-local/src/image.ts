/** Pixels: JPEG decoding (jpeg-js, pure JS), greyscale, rotation, scaling and thresholds. */
import jpeg from "jpeg-js"

/** A greyscale image: one luminance byte per pixel, row by row. */
export interface Grey {
  readonly width: number
  readonly height: number
  readonly pixels: Uint8Array
}

/** An RGB image: three bytes per pixel, row by row. */
export interface Rgb {
  readonly width: number
  readonly height: number
  readonly data: Uint8Array
}

/** Images above this many pixels are refused before decoding (a JPEG bomb guard). */
const MAX_PIXELS = 40_000_000

/** Decodes a JPEG to RGB, or null when it is not a decodable JPEG. */
export const decodeRgb = (bytes: Uint8Array): Rgb | null => {
  try {
    const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: false, maxResolutionInMP: MAX_PIXELS / 1e6, maxMemoryUsageInMB: 512 })
    return { width: img.width, height: img.height, data: img.data }
  } catch {
    return null
  }
}

/** Luminance (BT.601) of an RGB image. */
export const toGrey = (rgb: Rgb): Grey => {
  const pixels = new Uint8Array(rgb.width * rgb.height)
  for (let p = 0, q = 0; p < pixels.length; p++, q += 3) pixels[p] = (rgb.data[q]! * 299 + rgb.data[q + 1]! * 587 + rgb.data[q + 2]! * 114) / 1000
  return { width: rgb.width, height: rgb.height, pixels }
}

/** Nearest-neighbour downscale of an RGB image so that its longer side is at most `max`. */
export const fitRgb = (rgb: Rgb, max: number): Rgb => {
  const scale = Math.min(1, max / Math.max(rgb.width, rgb.height))
  if (scale === 1) return rgb
  const width = Math.round(rgb.width * scale)
  const height = Math.round(rgb.height * scale)
  const data = new Uint8Array(width * height * 3)
  for (let y = 0; y < height; y++) {
    const sy = Math.min(rgb.height - 1, Math.floor(y / scale))
    for (let x = 0; x < width; x++) {
      const s = (sy * rgb.width + Math.min(rgb.width - 1, Math.floor(x / scale))) * 3
      const d = (y * width + x) * 3
      data[d] = rgb.data[s]!
      data[d + 1] = rgb.data[s + 1]!
      data[d + 2] = rgb.data[s + 2]!
    }
  }
  return { width, height, data }
}

/** `img` rotated by `degrees` (counter-clockwise) about its centre, bilinear, uncovered corners white. */
export const rotate = (img: Grey, degrees: number): Grey => {
  const { width, height } = img
  const out = new Uint8Array(width * height).fill(255)
  const a = (degrees * Math.PI) / 180
  const cos = Math.cos(a)
  const sin = Math.sin(a)
  const cx = width / 2
  const cy = height / 2
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dx = x - cx
      const dy = y - cy
      const sx = cos * dx - sin * dy + cx
      const sy = sin * dx + cos * dy + cy
      const x0 = Math.floor(sx)
      const y0 = Math.floor(sy)
      if (x0 < 0 || y0 < 0 || x0 + 1 >= width || y0 + 1 >= height) continue
      const fx = sx - x0
      const fy = sy - y0
      const i = y0 * width + x0
      const top = img.pixels[i]! * (1 - fx) + img.pixels[i + 1]! * fx
      const bottom = img.pixels[i + width]! * (1 - fx) + img.pixels[i + width + 1]! * fx
      out[y * width + x] = top * (1 - fy) + bottom * fy
    }
  }
  return { width, height, pixels: out }
}

/** A 3×3 box blur (takes the edge off JPEG ringing and pixel noise before thresholding). */
export const blur = (img: Grey): Grey => {
  const { width, height } = img
  const out = new Uint8Array(img.pixels)
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x
      const p = img.pixels
      out[i] =
        (p[i - width - 1]! + p[i - width]! + p[i - width + 1]! + p[i - 1]! + p[i]! + p[i + 1]! + p[i + width - 1]! + p[i + width]! + p[i + width + 1]!) / 9
    }
  }
  return { width, height, pixels: out }
}

/** Otsu's threshold of the rows `top..bottom` (a luminance that best separates ink from paper). */
export const otsu = (img: Grey, top = 0, bottom = img.height): number => {
  const hist = new Array<number>(256).fill(0)
  for (let i = top * img.width; i < bottom * img.width; i++) hist[img.pixels[i]!]!++
  const total = (bottom - top) * img.width
  let sum = 0
  for (let t = 0; t < 256; t++) sum += t * hist[t]!
  let sumB = 0
  let wB = 0
  let best = 0
  let threshold = 128
  for (let t = 0; t < 256; t++) {
    wB += hist[t]!
    if (wB === 0) continue
    const wF = total - wB
    if (wF === 0) break
    sumB += t * hist[t]!
    const between = wB * wF * (sumB / wB - (sum - sumB) / wF) ** 2
    if (between > best) {
      best = between
      threshold = t
    }
  }
  return threshold
}

/** A baseline JPEG of a greyscale image. */
export const encodeGrey = (img: Grey, quality = 92): Uint8Array => {
  const rgba = new Uint8Array(img.width * img.height * 4)
  for (let p = 0, q = 0; p < img.pixels.length; p++, q += 4) {
    rgba[q] = rgba[q + 1] = rgba[q + 2] = img.pixels[p]!
    rgba[q + 3] = 255
  }
  const out = jpeg.encode({ data: rgba, width: img.width, height: img.height }, quality).data
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
}

/**
 * `img` divided by its local mean (a box of side 2 × `radius` + 1, from an integral image), so
 * that paper becomes white however the light falls across the page and ink stays dark in
 * proportion to its surroundings: a global threshold (Otsu) then works under uneven light.
 */
export const flatten = (img: Grey, radius: number): Grey => {
  const { width, height } = img
  const w1 = width + 1
  const sum = new Float64Array(w1 * (height + 1))
  for (let y = 0; y < height; y++) {
    let row = 0
    for (let x = 0; x < width; x++) {
      row += img.pixels[y * width + x]!
      sum[(y + 1) * w1 + x + 1] = sum[y * w1 + x + 1]! + row
    }
  }
  const out = new Uint8Array(width * height)
  for (let y = 0; y < height; y++) {
    const y0 = Math.max(0, y - radius)
    const y1 = Math.min(height, y + radius + 1)
    for (let x = 0; x < width; x++) {
      const x0 = Math.max(0, x - radius)
      const x1 = Math.min(width, x + radius + 1)
      const total = sum[y1 * w1 + x1]! - sum[y0 * w1 + x1]! - sum[y1 * w1 + x0]! + sum[y0 * w1 + x0]!
      const mean = total / ((y1 - y0) * (x1 - x0))
      out[y * width + x] = mean <= 0 ? 0 : Math.min(255, (255 * img.pixels[y * width + x]!) / mean)
    }
  }
  return { width, height, pixels: out }
}
