import { Effect } from "effect"
import { FaceMatcher } from "@signet/core"
import { describe, expect, it } from "vitest"
import { encodeRgb } from "./encode.ts"
import { FaceMatcherLocal, faceSimilarity } from "./face-matcher.ts"
import { DISTINCT_FACES, faceVariant, VARIANTS } from "./samples-set.ts"
import { faceTile } from "./samples.ts"

// six of the calibration people (all thirteen: calibration/calibrate.ts); variants on four of them
const PEOPLE = DISTINCT_FACES.slice(0, 6)
const jpeg = (i: number) => encodeRgb(faceTile(i))

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

  it("answers 0 through the port when an image shows no face or is not a JPEG", async () => {
    const blank = encodeRgb({ width: 320, height: 240, data: new Uint8Array(320 * 240 * 3).fill(200) })
    const score = await Effect.runPromise(Effect.flatMap(FaceMatcher, (m) => m.similarity(jpeg(PEOPLE[0]!), blank)).pipe(Effect.provide(FaceMatcherLocal)))
    expect(score).toBe(0)
    expect(
      await Effect.runPromise(
        Effect.flatMap(FaceMatcher, (m) => m.similarity(new Uint8Array([1, 2, 3]), jpeg(PEOPLE[0]!))).pipe(Effect.provide(FaceMatcherLocal)),
      ),
    ).toBe(0)
  })
})
