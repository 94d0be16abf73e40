import { Effect } from "effect"
import { FaceMatcher } from "@signet/core"
import { describe, expect, it } from "vitest"
import { encodeRgb } from "./encode.ts"
import { compareFaces, FaceMatcherLocal, faceSimilarity } from "./face-matcher.ts"
import type { Rgb } from "./image.ts"
import { DISTINCT_FACES, faceVariant, VARIANTS } from "./samples-set.ts"
import { faceTile, resize, variant } from "./samples.ts"

// six of the calibration people (all thirteen: calibration/calibrate.ts); variants on four of them
const PEOPLE = DISTINCT_FACES.slice(0, 6)
/** A tile of the screenshot whose face is turned beyond `FACE_QUALITY.maxYaw`. */
const TURNED = 26
const jpeg = (i: number) => encodeRgb(faceTile(i))
const compare = (reference: Uint8Array, probe: Uint8Array) =>
  Effect.runPromise(Effect.flatMap(FaceMatcher, (m) => m.compare(reference, probe)).pipe(Effect.provide(FaceMatcherLocal)))

/** `img` placed at the centre of a grey canvas. */
const onCanvas = (img: Rgb, width: number, height: number): Rgb => {
  const data = new Uint8Array(width * height * 3).fill(128)
  const left = Math.floor((width - img.width) / 2)
  const top = Math.floor((height - img.height) / 2)
  for (let y = 0; y < img.height; y++) data.set(img.data.subarray(y * img.width * 3, (y + 1) * img.width * 3), ((top + y) * width + left) * 3)
  return { width, height, data }
}

/** A box blur of radius `r`, applied `passes` times (close to a Gaussian). */
const blurred = (img: Rgb, r: number, passes = 3): Rgb => {
  let src = img.data
  for (let pass = 0; pass < passes; pass++) {
    const out = new Uint8Array(src.length)
    for (let y = 0; y < img.height; y++) {
      for (let x = 0; x < img.width; x++) {
        for (let c = 0; c < 3; c++) {
          let sum = 0
          let n = 0
          for (let dy = -r; dy <= r; dy++) {
            const yy = Math.min(img.height - 1, Math.max(0, y + dy))
            for (let dx = -r; dx <= r; dx++) {
              const xx = Math.min(img.width - 1, Math.max(0, x + dx))
              sum += src[(yy * img.width + xx) * 3 + c]!
              n++
            }
          }
          out[(y * img.width + x) * 3 + c] = sum / n
        }
      }
    }
    src = out
  }
  return { ...img, data: src }
}

describe("local face matcher (human, WASM) with the calibrated score", () => {
  it("scores the same face under brightness, scale, rotation and greyscale changes at least 0.75", async () => {
    const rows = []
    for (const i of PEOPLE.slice(0, 4)) {
      for (const v of VARIANTS) {
        const { cosine, score } = await faceSimilarity(jpeg(i), encodeRgb(faceVariant(i, v)))
        rows.push({ face: i, variant: v.name, cosine: Number(cosine.toFixed(3)), score: Number(score.toFixed(3)) })
      }
    }
    console.table(rows)
    for (const r of rows) expect(r.score, `${r.face} ${r.variant}`).toBeGreaterThanOrEqual(0.75)
  })

  it("scores different people below 0.65", async () => {
    const rows = []
    for (let a = 0; a < PEOPLE.length; a++) {
      for (let b = a + 1; b < PEOPLE.length; b++) {
        const { score } = await faceSimilarity(jpeg(PEOPLE[a]!), jpeg(PEOPLE[b]!))
        rows.push({ a: PEOPLE[a]!, b: PEOPLE[b]!, score: Number(score.toFixed(3)) })
      }
    }
    console.table(rows)
    for (const r of rows) expect(r.score, `${r.a} vs ${r.b}`).toBeLessThan(0.65)
  })

  it("answers through the port which image is unusable: no face, not a JPEG", async () => {
    const blank = encodeRgb({ width: 320, height: 240, data: new Uint8Array(320 * 240 * 3).fill(200) })
    expect(await compare(jpeg(PEOPLE[0]!), blank)).toEqual({ _tag: "Unusable", side: "probe", reason: "no_face" })
    expect(await compare(new Uint8Array([1, 2, 3]), jpeg(PEOPLE[0]!))).toEqual({ _tag: "Unusable", side: "reference", reason: "no_face" })
    expect(await compare(jpeg(PEOPLE[0]!), encodeRgb(faceVariant(PEOPLE[0]!, VARIANTS[0]!)))).toMatchObject({ _tag: "Compared" })
  })

  it("gives a retry reason for a tiny face, a very dark photo, a turned face, a blurred one and two people side by side", async () => {
    const face = faceTile(PEOPLE[0]!)
    const reference = jpeg(PEOPLE[1]!)
    const reasonOf = async (img: Rgb) => {
      const c = await compareFaces(reference, encodeRgb(img))
      return c._tag === "Unusable" ? `${c.side} ${c.reason}` : `compared ${c.similarity.toFixed(3)}`
    }
    // small in pixels, not in the frame (the detector sees the whole image at 256 px: a face small in the frame is not found at all)
    expect(await reasonOf(onCanvas(resize(face, 0.12), 160, 120))).toBe("probe face_too_small")
    expect(await reasonOf(variant(face, { brightness: 0.12 }))).toBe("probe face_too_dark")
    // tile 26: a real face turned about 33° (the mesh's yaw)
    expect(await reasonOf(faceTile(TURNED))).toBe("probe face_turned")
    // blurred so that the detector still finds the face (a little more and it finds none: no_face)
    expect(await reasonOf(blurred(faceTile(PEOPLE[3]!), 5))).toBe("probe face_blurred")
    // two people side by side (tiles 20 and 27) on a square canvas
    const right = faceTile(PEOPLE[1]!)
    const w = face.width * 2 + 20
    const top = Math.floor((w - face.height) / 2)
    const side: Rgb = { width: w, height: w, data: new Uint8Array(w * w * 3).fill(128) }
    for (let y = 0; y < face.height; y++) side.data.set(face.data.subarray(y * face.width * 3, (y + 1) * face.width * 3), (y + top) * w * 3)
    for (let y = 0; y < right.height; y++)
      side.data.set(right.data.subarray(y * right.width * 3, (y + 1) * right.width * 3), ((y + top) * w + face.width + 20) * 3)
    expect(await reasonOf(side)).toBe("probe several_faces")
  })
})
