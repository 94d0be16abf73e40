/**
 * Five-point face alignment to the 112 × 112 template that ArcFace-class descriptors are trained
 * on (InsightFace's: eye centres, nose tip, mouth corners), from the face mesh's landmarks.
 */
import type { Rgb } from "./image.ts"

/** The 112 × 112 five-point template (x, y): left eye, right eye, nose tip, left and right mouth corner (as seen in the image). */
export const ARCFACE_TEMPLATE: ReadonlyArray<readonly [number, number]> = [
  [38.2946, 51.6963],
  [73.5318, 51.5014],
  [56.0252, 71.7366],
  [41.5493, 92.3655],
  [70.7299, 92.2041],
]

// MediaPipe face-mesh indices: each eye's corners and lids (the centre is their mean), nose tip,
// mouth corners; "left" is the image's left (the person's right).
const LEFT_EYE = [33, 133, 159, 145]
const RIGHT_EYE = [263, 362, 386, 374]
const NOSE_TIP = 1
const MOUTH = [61, 291]

type Point = readonly [number, number]

/** The five template points of a 468-point face mesh (pixels of the image the mesh was found in). */
export const fivePoints = (mesh: ReadonlyArray<readonly [number, number, number]>): ReadonlyArray<Point> => {
  const mean = (ix: ReadonlyArray<number>): Point => [ix.reduce((s, i) => s + mesh[i]![0], 0) / ix.length, ix.reduce((s, i) => s + mesh[i]![1], 0) / ix.length]
  return [mean(LEFT_EYE), mean(RIGHT_EYE), mean([NOSE_TIP]), mean([MOUTH[0]!]), mean([MOUTH[1]!])]
}

/**
 * The least-squares similarity (scale, rotation, shift; no reflection) taking `from` onto `to`,
 * as [a, b, tx, ty]: x' = a·x − b·y + tx, y' = b·x + a·y + ty.
 */
export const similarity = (from: ReadonlyArray<Point>, to: ReadonlyArray<Point>): readonly [number, number, number, number] => {
  const n = from.length
  const fx = from.reduce((s, p) => s + p[0], 0) / n
  const fy = from.reduce((s, p) => s + p[1], 0) / n
  const tx = to.reduce((s, p) => s + p[0], 0) / n
  const ty = to.reduce((s, p) => s + p[1], 0) / n
  let re = 0
  let im = 0
  let norm = 0
  for (let k = 0; k < n; k++) {
    const x = from[k]![0] - fx
    const y = from[k]![1] - fy
    const u = to[k]![0] - tx
    const v = to[k]![1] - ty
    // (x − iy)(u + iv), summed: the complex least-squares factor
    re += x * u + y * v
    im += x * v - y * u
    norm += x * x + y * y
  }
  const a = re / norm
  const b = im / norm
  return [a, b, tx - (a * fx - b * fy), ty - (b * fx + a * fy)]
}

/**
 * The `size` × `size` RGB crop of the face whose five points are given, warped onto the template
 * (bilinear; outside the image is black); `margin` widens the 112-unit template frame on each side.
 */
export const alignFace = (image: Rgb, facePoints: ReadonlyArray<Point>, size = 112, margin = 0): Rgb => {
  const frame = ARCFACE_TEMPLATE.map(([x, y]) => [((x + margin) * size) / (112 + 2 * margin), ((y + margin) * size) / (112 + 2 * margin)] as const)
  // a large face is first reduced by area averaging, so bilinear sampling does not alias
  const [sa, sb] = similarity(frame, facePoints)
  const factor = Math.max(1, Math.floor(Math.hypot(sa, sb)))
  const rgb = factor > 1 ? shrink(image, factor) : image
  const points = facePoints.map(([x, y]) => [(x + 0.5) / factor - 0.5, (y + 0.5) / factor - 0.5] as const)
  // map each template pixel into the image (the inverse warp)
  const [a, b, tx, ty] = similarity(frame, points)
  const data = new Uint8Array(size * size * 3)
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const sx = a * x - b * y + tx
      const sy = b * x + a * y + ty
      const x0 = Math.floor(sx)
      const y0 = Math.floor(sy)
      const dx = sx - x0
      const dy = sy - y0
      for (let c = 0; c < 3; c++) {
        const at = (px: number, py: number) => (px < 0 || py < 0 || px >= rgb.width || py >= rgb.height ? 0 : rgb.data[(py * rgb.width + px) * 3 + c]!)
        const top = at(x0, y0) * (1 - dx) + at(x0 + 1, y0) * dx
        const bottom = at(x0, y0 + 1) * (1 - dx) + at(x0 + 1, y0 + 1) * dx
        data[(y * size + x) * 3 + c] = Math.round(top * (1 - dy) + bottom * dy)
      }
    }
  }
  return { width: size, height: size, data }
}

/** The image reduced by an integer factor, each pixel the mean of a factor × factor block. */
const shrink = (rgb: Rgb, factor: number): Rgb => {
  const width = Math.floor(rgb.width / factor)
  const height = Math.floor(rgb.height / factor)
  const data = new Uint8Array(width * height * 3)
  const area = factor * factor
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < 3; c++) {
        let sum = 0
        for (let j = 0; j < factor; j++) for (let i = 0; i < factor; i++) sum += rgb.data[((y * factor + j) * rgb.width + x * factor + i) * 3 + c]!
        data[(y * width + x) * 3 + c] = Math.round(sum / area)
      }
  return { width, height, data }
}
