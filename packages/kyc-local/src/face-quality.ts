/**
 * Image-quality measures of a detected face: its luminance and its sharpness, on the face box
 * resampled to a fixed size so that the figures do not depend on the photo's resolution.
 */
import type { Rgb } from "./image.ts"

/** Side (pixels) of the square the face box is resampled to before it is measured. */
export const QUALITY_SIDE = 64

/** Mean luminance (0..255) and sharpness of the face inside `box` (x, y, width, height). */
export const faceQuality = (rgb: Rgb, box: readonly [number, number, number, number]): { readonly brightness: number; readonly sharpness: number } => {
  const n = QUALITY_SIDE
  const grey = new Float64Array(n * n)
  const [bx, by, bw, bh] = box
  // area average of the box cells: downsampling without aliasing, so JPEG noise does not pass for detail
  for (let gy = 0; gy < n; gy++) {
    const y0 = Math.max(0, Math.floor(by + (gy * bh) / n))
    const y1 = Math.min(rgb.height, Math.max(y0 + 1, Math.floor(by + ((gy + 1) * bh) / n)))
    for (let gx = 0; gx < n; gx++) {
      const x0 = Math.max(0, Math.floor(bx + (gx * bw) / n))
      const x1 = Math.min(rgb.width, Math.max(x0 + 1, Math.floor(bx + ((gx + 1) * bw) / n)))
      let sum = 0
      let count = 0
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const q = (y * rgb.width + x) * 3
          sum += rgb.data[q]! * 0.299 + rgb.data[q + 1]! * 0.587 + rgb.data[q + 2]! * 0.114
          count++
        }
      }
      grey[gy * n + gx] = count === 0 ? 0 : sum / count
    }
  }
  let total = 0
  for (const v of grey) total += v
  const brightness = total / grey.length
  // variance of the Laplacian, relative to the face's contrast (its luminance spread): a dim but
  // sharp face is not called blurred, a bright but soft one is
  let lapSum = 0
  let lapSq = 0
  let count = 0
  for (let y = 1; y < n - 1; y++) {
    for (let x = 1; x < n - 1; x++) {
      const i = y * n + x
      const lap = grey[i - 1]! + grey[i + 1]! + grey[i - n]! + grey[i + n]! - 4 * grey[i]!
      lapSum += lap
      lapSq += lap * lap
      count++
    }
  }
  let spread = 0
  for (const v of grey) spread += (v - brightness) ** 2
  const deviation = Math.sqrt(spread / grey.length)
  const lapDeviation = Math.sqrt(Math.max(0, lapSq / count - (lapSum / count) ** 2))
  return { brightness, sharpness: deviation === 0 ? 0 : lapDeviation / deviation }
}

/** The luminance (BT.601) of an RGB image, kept as RGB (three equal channels) for the face models. */
export const greyRgb = (rgb: Rgb): Rgb => {
  const data = new Uint8Array(rgb.data.length)
  for (let p = 0; p < data.length; p += 3) data[p] = data[p + 1] = data[p + 2] = rgb.data[p]! * 0.299 + rgb.data[p + 1]! * 0.587 + rgb.data[p + 2]! * 0.114
  return { width: rgb.width, height: rgb.height, data }
}
