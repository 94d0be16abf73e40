/**
 * Finding the document in a photo and making it upright: the page (bright paper) is told from
 * the table around it on a small copy of the image, its outline reduced to the quadrilateral
 * that best covers it, each side then located to a fraction of a pixel on the full image (the
 * strongest dark-to-bright step along the side's normal) and fitted with a line; the corners
 * are the lines' intersections. A homography maps an upright rectangle of the page's measured
 * size onto that quad and the page is resampled (bilinear) through it, which undoes rotation
 * and perspective tilt alike. When no credible quad is found (the page fills the frame) the
 * image is returned as it is.
 */
import type { Grey } from "./image.ts"

/** A point in image coordinates: pixel (i, j) covers [i, i + 1) × [j, j + 1), so its centre is (i + 0.5, j + 0.5). */
export interface Point {
  readonly x: number
  readonly y: number
}

/** The page's corners, clockwise from the top left. */
export type Quad = readonly [Point, Point, Point, Point]

/** What rectification found and did. */
export interface Rectified {
  /** the upright page, or the input itself when no page was found */
  readonly image: Grey
  /** the page's corners in the input, or null when none credible was found */
  readonly quad: Quad | null
}

/** Longer side of the copy the page is searched on (px): coarse is enough, the sides are refined on the full image. */
const SEARCH_SIDE = 320
/** A side's step from table to paper must be at least this many grey levels over 2 px: a gradient of light is no page edge. */
const MIN_STEP = 24

/** Box-averaged copy of `img`, `factor` times smaller on each side. */
const shrink = (img: Grey, factor: number): Grey => {
  const width = Math.max(1, Math.floor(img.width / factor))
  const height = Math.max(1, Math.floor(img.height / factor))
  const pixels = new Uint8Array(width * height)
  for (let y = 0; y < height; y++) {
    const y0 = y * factor
    for (let x = 0; x < width; x++) {
      const x0 = x * factor
      let sum = 0
      for (let dy = 0; dy < factor; dy++) {
        const row = (y0 + dy) * img.width + x0
        for (let dx = 0; dx < factor; dx++) sum += img.pixels[row + dx]!
      }
      pixels[y * width + x] = sum / (factor * factor)
    }
  }
  return { width, height, pixels }
}

/** Otsu's threshold over a whole image. */
const otsuOf = (img: Grey): number => {
  const hist = new Float64Array(256)
  for (const v of img.pixels) hist[v]!++
  let sum = 0
  for (let t = 0; t < 256; t++) sum += t * hist[t]!
  let sumB = 0
  let wB = 0
  let best = -1
  let threshold = 128
  for (let t = 0; t < 256; t++) {
    wB += hist[t]!
    if (wB === 0) continue
    const wF = img.pixels.length - wB
    if (wF === 0) break
    sumB += t * hist[t]!
    const between = wB * wF * (sumB / wB - (sum - sumB) / wF) ** 2
    if (between > best) [best, threshold] = [between, t]
  }
  return threshold
}

/** The largest 4-connected region of `on` pixels, as a mask, with its size. */
const largestRegion = (on: Uint8Array, width: number, height: number): { readonly mask: Uint8Array; readonly size: number } => {
  const label = new Int32Array(on.length)
  let bestLabel = 0
  let bestSize = 0
  let next = 0
  const stack: Array<number> = []
  for (let start = 0; start < on.length; start++) {
    if (on[start] !== 1 || label[start] !== 0) continue
    next++
    let size = 0
    label[start] = next
    stack.push(start)
    while (stack.length > 0) {
      const i = stack.pop()!
      size++
      const x = i % width
      const visit = (j: number) => {
        if (on[j] === 1 && label[j] === 0) {
          label[j] = next
          stack.push(j)
        }
      }
      if (x > 0) visit(i - 1)
      if (x < width - 1) visit(i + 1)
      if (i >= width) visit(i - width)
      if (i < (height - 1) * width) visit(i + width)
    }
    if (size > bestSize) [bestSize, bestLabel] = [size, next]
  }
  const mask = new Uint8Array(on.length)
  for (let i = 0; i < on.length; i++) mask[i] = label[i] === bestLabel && bestLabel > 0 ? 1 : 0
  return { mask, size: bestSize }
}

const cross = (o: Point, a: Point, b: Point) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)

/** Convex hull (Andrew's monotone chain), clockwise in image coordinates (y down). */
const hull = (points: ReadonlyArray<Point>): Array<Point> => {
  const p = [...points].sort((a, b) => a.x - b.x || a.y - b.y)
  if (p.length < 3) return p
  const lower: Array<Point> = []
  for (const q of p) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, q) <= 0) lower.pop()
    lower.push(q)
  }
  const upper: Array<Point> = []
  for (const q of p.reverse()) {
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, q) <= 0) upper.pop()
    upper.push(q)
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1))
}

const polygonArea = (p: ReadonlyArray<Point>): number => {
  let a = 0
  for (let i = 0; i < p.length; i++) {
    const q = p[i]!
    const r = p[(i + 1) % p.length]!
    a += q.x * r.y - r.x * q.y
  }
  return Math.abs(a) / 2
}

/**
 * The largest quadrilateral on the hull's vertices: for each diagonal (i, k), the vertex
 * farthest from it on either side. A page's corners are the hull's outermost vertices, which
 * this finds where dropping vertices one by one (least area lost first) can go astray.
 */
const toQuad = (h: ReadonlyArray<Point>): Array<Point> => {
  const n = h.length
  let best: Array<Point> = h.slice(0, 4)
  let bestArea = -1
  const farthest = (i: number, k: number, from: number, to: number): [number, number] => {
    let at = from
    let most = -1
    for (let j = from; j < to; j++) {
      const a = Math.abs(cross(h[i]!, h[k]!, h[j % n]!))
      if (a > most) [most, at] = [a, j % n]
    }
    return [at, most]
  }
  for (let i = 0; i < n; i++)
    for (let k = i + 2; k < n; k++) {
      if (i === 0 && k === n - 1) continue
      const [j, a] = farthest(i, k, i + 1, k)
      const [l, b] = farthest(i, k, k + 1, i + n)
      if (a + b > bestArea) [bestArea, best] = [a + b, [h[i]!, h[j]!, h[k]!, h[l]!]]
    }
  return best
}

/** The four corners ordered clockwise (y down) from the one nearest the image's top left. */
const ordered = (q: ReadonlyArray<Point>): Quad => {
  const cx = q.reduce((s, p) => s + p.x, 0) / q.length
  const cy = q.reduce((s, p) => s + p.y, 0) / q.length
  const around = [...q].sort((a, b) => Math.atan2(a.y - cy, a.x - cx) - Math.atan2(b.y - cy, b.x - cx))
  let first = 0
  for (let i = 1; i < 4; i++) if (around[i]!.x + around[i]!.y < around[first]!.x + around[first]!.y) first = i
  return [0, 1, 2, 3].map((k) => around[(first + k) % 4]!) as unknown as Quad
}

/** Bilinear sample of `img` at the point (x, y) (pixel (i, j) covers [i, i + 1) × [j, j + 1)), or NaN outside it. */
const sample = (img: Grey, px: number, py: number): number => {
  const x = px - 0.5
  const y = py - 0.5
  const x0 = Math.floor(x)
  const y0 = Math.floor(y)
  if (x0 < 0 || y0 < 0 || x0 + 1 >= img.width || y0 + 1 >= img.height) return Number.NaN
  const fx = x - x0
  const fy = y - y0
  const i = y0 * img.width + x0
  const p = img.pixels
  return (p[i]! * (1 - fx) + p[i + 1]! * fx) * (1 - fy) + (p[i + img.width]! * (1 - fx) + p[i + img.width + 1]! * fx) * fy
}

/** A line n·p = d with unit normal n. */
interface Line {
  readonly nx: number
  readonly ny: number
  readonly d: number
}

/** Total-least-squares line through points. */
const fitLine = (pts: ReadonlyArray<Point>): Line => {
  const mx = pts.reduce((s, p) => s + p.x, 0) / pts.length
  const my = pts.reduce((s, p) => s + p.y, 0) / pts.length
  let sxx = 0
  let sxy = 0
  let syy = 0
  for (const p of pts) {
    sxx += (p.x - mx) ** 2
    sxy += (p.x - mx) * (p.y - my)
    syy += (p.y - my) ** 2
  }
  // the normal is the eigenvector of the scatter matrix with the smaller eigenvalue
  const theta = 0.5 * Math.atan2(2 * sxy, sxx - syy)
  const nx = -Math.sin(theta)
  const ny = Math.cos(theta)
  return { nx, ny, d: nx * mx + ny * my }
}

/**
 * The side from `a` to `b` (page to its right, clockwise order), located on the full image:
 * along the normal at points spread over the side, the strongest step from dark (outside) to
 * bright (inside) within `reach` px; a line is fitted to those steps (outliers dropped and
 * fitted again). Null when too few points show a sharp page edge.
 */
const refineSide = (img: Grey, a: Point, b: Point, reach: number): Line | null => {
  const len = Math.hypot(b.x - a.x, b.y - a.y)
  if (len < 8) return null
  const tx = (b.x - a.x) / len
  const ty = (b.y - a.y) / len
  // outward normal: clockwise in y-down coordinates puts the inside on the right of a→b
  const ox = ty
  const oy = -tx
  const samples = Math.max(12, Math.min(80, Math.round(len / 8)))
  const found: Array<Point> = []
  for (let s = 0; s < samples; s++) {
    const t = 0.1 + (0.8 * s) / (samples - 1)
    const px = a.x + (b.x - a.x) * t
    const py = a.y + (b.y - a.y) * t
    let best = 0
    let at = 0
    const profile = new Float64Array(2 * reach + 5)
    for (let k = 0; k < profile.length; k++) profile[k] = sample(img, px + ox * (k - reach - 2), py + oy * (k - reach - 2))
    const steps = new Float64Array(profile.length)
    for (let k = 1; k < profile.length - 1; k++) {
      // inside (smaller offset) minus outside; NaN (beyond the frame) is never a step
      const step = profile[k - 1]! - profile[k + 1]!
      steps[k] = Number.isNaN(step) ? 0 : step
      if (steps[k]! > best) [best, at] = [steps[k]!, k]
    }
    if (best < MIN_STEP || at < 2 || at > profile.length - 3) continue
    // sub-pixel: the vertex of the parabola through the step and its neighbours
    const l = steps[at - 1]!
    const r = steps[at + 1]!
    const denom = l - 2 * best + r
    const offset = denom < 0 ? (0.5 * (l - r)) / denom : 0
    const o = at + offset - reach - 2
    found.push({ x: px + ox * o, y: py + oy * o })
  }
  if (found.length < samples * 0.6) return null
  let line = fitLine(found)
  const close = found.filter((p) => Math.abs(line.nx * p.x + line.ny * p.y - line.d) <= 1.5)
  if (close.length < samples * 0.5) return null
  line = fitLine(close)
  return line
}

const meet = (l: Line, m: Line): Point | null => {
  const det = l.nx * m.ny - l.ny * m.nx
  if (Math.abs(det) < 1e-6) return null
  return { x: (l.d * m.ny - l.ny * m.d) / det, y: (l.nx * m.d - l.d * m.nx) / det }
}

/**
 * The page's quadrilateral in `img`, or null when there is no credible one: the bright region
 * must cover at least a quarter of the image, fill its quad, have corners near right angles
 * and sharp edges against a darker surround on all four sides, and differ from the frame itself.
 */
export const findPage = (img: Grey): Quad | null => {
  const factor = Math.max(1, Math.floor(Math.max(img.width, img.height) / SEARCH_SIDE))
  const small = shrink(img, factor)
  const t = otsuOf(small)
  const on = new Uint8Array(small.pixels.length)
  for (let i = 0; i < on.length; i++) on[i] = small.pixels[i]! > t ? 1 : 0
  const { mask, size } = largestRegion(on, small.width, small.height)
  if (size < small.pixels.length * 0.25) return null
  // the region's outline: its leftmost and rightmost pixel on every row, as pixel corners
  const outline: Array<Point> = []
  for (let y = 0; y < small.height; y++) {
    let left = -1
    let right = -1
    for (let x = 0; x < small.width; x++)
      if (mask[y * small.width + x] === 1) {
        if (left < 0) left = x
        right = x
      }
    if (left < 0) continue
    outline.push({ x: left, y }, { x: left, y: y + 1 }, { x: right + 1, y }, { x: right + 1, y: y + 1 })
  }
  const h = hull(outline)
  if (h.length < 4) return null
  const coarse = toQuad(h)
  const quadArea = polygonArea(coarse)
  // a page is convex and solid: its quad covers its hull and most of the quad is paper (ink and photo aside)
  if (quadArea < polygonArea(h) * 0.95 || size < quadArea * 0.6) return null
  const frame = Math.hypot(small.width, small.height)
  const corners = ordered(coarse)
  const frameCorners = [
    { x: 0, y: 0 },
    { x: small.width, y: 0 },
    { x: small.width, y: small.height },
    { x: 0, y: small.height },
  ]
  // the page fills the frame: nothing to correct
  if (corners.every((c, k) => Math.hypot(c.x - frameCorners[k]!.x, c.y - frameCorners[k]!.y) < frame * 0.02)) return null
  const full = corners.map((c) => ({ x: c.x * factor, y: c.y * factor }))
  const reach = 3 * factor + 4
  const lines: Array<Line> = []
  for (let k = 0; k < 4; k++) {
    const line = refineSide(img, full[k]!, full[(k + 1) % 4]!, reach)
    if (line === null) return null
    lines.push(line)
  }
  const refined: Array<Point> = []
  for (let k = 0; k < 4; k++) {
    const c = meet(lines[(k + 3) % 4]!, lines[k]!)
    if (c === null) return null
    refined.push(c)
  }
  // every corner near a right angle (a tilt of a few per cent bends them by a few degrees)
  for (let k = 0; k < 4; k++) {
    const p = refined[(k + 3) % 4]!
    const c = refined[k]!
    const n = refined[(k + 1) % 4]!
    const cos = ((p.x - c.x) * (n.x - c.x) + (p.y - c.y) * (n.y - c.y)) / (Math.hypot(p.x - c.x, p.y - c.y) * Math.hypot(n.x - c.x, n.y - c.y))
    if (!(Math.abs(cos) < Math.cos((60 * Math.PI) / 180))) return null
  }
  return refined as unknown as Quad
}

/** The homography (row-major 3×3, h33 = 1) taking each `from` point to its `to` point. */
export const homography = (from: Quad, to: Quad): Array<number> => {
  // eight equations in the eight unknowns h11..h32, solved by Gaussian elimination with pivoting
  const a: Array<Array<number>> = []
  for (let k = 0; k < 4; k++) {
    const { x, y } = from[k]!
    const { x: u, y: v } = to[k]!
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u])
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v])
  }
  for (let c = 0; c < 8; c++) {
    let pivot = c
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[pivot]![c]!)) pivot = r
    ;[a[c], a[pivot]] = [a[pivot]!, a[c]!]
    for (let r = 0; r < 8; r++) {
      if (r === c) continue
      const f = a[r]![c]! / a[c]![c]!
      for (let k = c; k < 9; k++) a[r]![k]! -= f * a[c]![k]!
    }
  }
  return [...a.map((row, r) => row[8]! / row[r]!), 1]
}

/** `p` through the homography `h`. */
export const project = (h: ReadonlyArray<number>, p: Point): Point => {
  const w = h[6]! * p.x + h[7]! * p.y + h[8]!
  return { x: (h[0]! * p.x + h[1]! * p.y + h[2]!) / w, y: (h[3]! * p.x + h[4]! * p.y + h[5]!) / w }
}

/** Width over height of the ICAO 9303 documents: TD3 passport page 125 × 88 mm, TD2 105 × 74 mm, TD1 card 85.6 × 54 mm. */
const DOCUMENT_ASPECTS = [125 / 88, 105 / 74, 85.6 / 54]

/**
 * The upright size of the page in `quad`: as wide as its longer horizontal side and as high as
 * its longer vertical side, so the text keeps at least the pixels it had. Foreshortening makes
 * the measured aspect a few per cent short, so an aspect within 4 % of a document's is taken
 * as that document's.
 */
const uprightSize = (quad: Quad): { readonly width: number; readonly height: number } => {
  const [tl, tr, br, bl] = quad
  const w = Math.max(Math.hypot(tr.x - tl.x, tr.y - tl.y), Math.hypot(br.x - bl.x, br.y - bl.y))
  const h = Math.max(Math.hypot(bl.x - tl.x, bl.y - tl.y), Math.hypot(br.x - tr.x, br.y - tr.y))
  const measured = w / h
  const aspect = DOCUMENT_ASPECTS.reduce((a, b) => (Math.abs(b / measured - 1) < Math.abs(a / measured - 1) ? b : a))
  if (Math.abs(aspect / measured - 1) > 0.04) return { width: Math.round(w), height: Math.round(h) }
  const width = Math.max(w, h * aspect)
  return { width: Math.round(width), height: Math.round(width / aspect) }
}

/** Keys' cubic convolution weights (a = −0.5) of the four taps around a fractional offset `t`. */
const cubicWeights = (t: number, w: Float64Array): void => {
  const t2 = t * t
  const t3 = t2 * t
  w[0] = -0.5 * t3 + t2 - 0.5 * t
  w[1] = 1.5 * t3 - 2.5 * t2 + 1
  w[2] = -1.5 * t3 + 2 * t2 + 0.5 * t
  w[3] = 0.5 * t3 - 0.5 * t2
}

/** `img` resampled (bicubic) to `factor` times its size. */
export const enlarge = (img: Grey, factor: number): Grey =>
  warpPage(
    img,
    [
      { x: 0, y: 0 },
      { x: img.width, y: 0 },
      { x: img.width, y: img.height },
      { x: 0, y: img.height },
    ],
    { width: Math.round(img.width * factor), height: Math.round(img.height * factor) },
  )

/**
 * The page inside `quad` resampled upright, at the size `uprightSize` gives (or `size`). Bicubic: the page
 * is resampled at about its own scale, where bilinear interpolation would average neighbouring
 * pixels at half-pixel offsets and soften the glyphs (a filler's chevron or a `P` then read worse).
 */
export const warpPage = (img: Grey, quad: Quad, size: { readonly width: number; readonly height: number } = uprightSize(quad)): Grey => {
  const { width, height } = size
  const rect: Quad = [
    { x: 0, y: 0 },
    { x: width, y: 0 },
    { x: width, y: height },
    { x: 0, y: height },
  ]
  const h = homography(rect, quad)
  const pixels = new Uint8Array(width * height)
  const wx = new Float64Array(4)
  const wy = new Float64Array(4)
  const src = img.pixels
  const last = { x: img.width - 1, y: img.height - 1 }
  for (let y = 0; y < height; y++) {
    const cy = y + 0.5
    for (let x = 0; x < width; x++) {
      const cx = x + 0.5
      const w = h[6]! * cx + h[7]! * cy + h[8]!
      // the point in the input, in pixel-index coordinates (pixel centres at integers)
      const sx = (h[0]! * cx + h[1]! * cy + h[2]!) / w - 0.5
      const sy = (h[3]! * cx + h[4]! * cy + h[5]!) / w - 0.5
      const x0 = Math.floor(sx)
      const y0 = Math.floor(sy)
      cubicWeights(sx - x0, wx)
      cubicWeights(sy - y0, wy)
      let v = 0
      if (x0 >= 1 && y0 >= 1 && x0 + 2 <= last.x && y0 + 2 <= last.y) {
        // inside: the 4×4 taps without clamping
        let i = (y0 - 1) * img.width + x0 - 1
        for (let j = 0; j < 4; j++, i += img.width) v += wy[j]! * (wx[0]! * src[i]! + wx[1]! * src[i + 1]! + wx[2]! * src[i + 2]! + wx[3]! * src[i + 3]!)
      } else {
        for (let j = 0; j < 4; j++) {
          const row = Math.min(last.y, Math.max(0, y0 - 1 + j)) * img.width
          let r = 0
          for (let i = 0; i < 4; i++) r += wx[i]! * src[row + Math.min(last.x, Math.max(0, x0 - 1 + i))]!
          v += wy[j]! * r
        }
      }
      pixels[y * width + x] = v < 0 ? 0 : v > 255 ? 255 : Math.round(v)
    }
  }
  return { width, height, pixels }
}

/** The page of `img` upright when a credible quad is found in it; `img` itself otherwise. */
export const rectify = (img: Grey): Rectified => {
  const quad = findPage(img)
  return quad === null ? { image: img, quad: null } : { image: warpPage(img, quad), quad }
}
