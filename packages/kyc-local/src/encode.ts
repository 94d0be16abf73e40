/** JPEG encoding of RGB images (tests, calibration, the benchmark). */
import jpeg from "jpeg-js"
import type { Rgb } from "./image.ts"

/** A baseline JPEG of an RGB image. */
export const encodeRgb = (img: Rgb, quality = 90): Uint8Array => {
  const rgba = new Uint8Array(img.width * img.height * 4)
  for (let p = 0, q = 0; p < img.data.length; p += 3, q += 4) {
    rgba[q] = img.data[p]!
    rgba[q + 1] = img.data[p + 1]!
    rgba[q + 2] = img.data[p + 2]!
    rgba[q + 3] = 255
  }
  const out = jpeg.encode({ data: rgba, width: img.width, height: img.height }, quality).data
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
}
