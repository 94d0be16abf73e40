/** The calibration set: tiles of distinct people (checked by eye) and the variants each is compared under. */
import { faceTile, variant } from "./samples.ts"
import type { Rgb } from "./image.ts"

/** Tile indices of distinct people in the screenshot's face grid (blurred and sunglasses tiles left out). */
export const DISTINCT_FACES = [20, 27, 30, 50, 58, 62, 70, 77, 86, 100, 105, 110, 118] as const

/** The changes a same-person photo is put through. */
export const VARIANTS = [
  { name: "darker 0.7", brightness: 0.7 },
  { name: "brighter 1.3", brightness: 1.3 },
  { name: "scale 0.7", scale: 0.7 },
  { name: "scale 1.4", scale: 1.4 },
  { name: "rotated +7°", degrees: 7 },
  { name: "rotated -7°", degrees: -7 },
  { name: "greyscale (document photo)", grey: true },
] as const

/** A face tile under one variant. */
export const faceVariant = (index: number, v: (typeof VARIANTS)[number]): Rgb => {
  const base = faceTile(index)
  if ("grey" in v) {
    const data = new Uint8Array(base.data.length)
    for (let p = 0; p < data.length; p += 3)
      data[p] = data[p + 1] = data[p + 2] = (base.data[p]! * 299 + base.data[p + 1]! * 587 + base.data[p + 2]! * 114) / 1000
    return { width: base.width, height: base.height, data }
  }
  return variant(base, v)
}
