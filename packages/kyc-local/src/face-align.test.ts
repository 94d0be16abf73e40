import { describe, expect, it } from "vitest"
import { ARCFACE_TEMPLATE, alignFace, fivePoints, similarity } from "./face-align.ts"

// A face tilted by 20°, three times the template's size, placed at (140, 60) in a 400 × 420 image.
const angle = (20 * Math.PI) / 180
const scale = 3
const place = ([x, y]: readonly [number, number]): readonly [number, number] => [
  scale * (Math.cos(angle) * x - Math.sin(angle) * y) + 140,
  scale * (Math.sin(angle) * x + Math.cos(angle) * y) + 60,
]

describe("five-point face alignment", () => {
  it("recovers the scale, rotation and shift between the template and a placed face", () => {
    const [a, b, tx, ty] = similarity(ARCFACE_TEMPLATE, ARCFACE_TEMPLATE.map(place))
    expect(a).toBeCloseTo(scale * Math.cos(angle), 6)
    expect(b).toBeCloseTo(scale * Math.sin(angle), 6)
    expect(tx).toBeCloseTo(140, 6)
    expect(ty).toBeCloseTo(60, 6)
  })

  it("brings a tilted face's eyes, nose and mouth corners onto the template's positions, level and at 112 px", () => {
    const width = 400
    const height = 420
    const data = new Uint8Array(width * height * 3)
    // a bright 15 × 15 spot at each placed landmark on a black image
    for (const [cx, cy] of ARCFACE_TEMPLATE.map(place))
      for (let y = Math.round(cy) - 7; y <= Math.round(cy) + 7; y++)
        for (let x = Math.round(cx) - 7; x <= Math.round(cx) + 7; x++) data.fill(255, (y * width + x) * 3, (y * width + x) * 3 + 3)
    const crop = alignFace({ width, height, data }, ARCFACE_TEMPLATE.map(place))
    expect([crop.width, crop.height]).toEqual([112, 112])
    const at = (x: number, y: number) => crop.data[(Math.round(y) * 112 + Math.round(x)) * 3]!
    for (const [x, y] of ARCFACE_TEMPLATE) expect(at(x, y)).toBeGreaterThan(200)
    // between the eyes and below the nose there is nothing
    expect(at(56, 51.6)).toBeLessThan(20)
    expect(at(56, 84)).toBeLessThan(20)
  })

  it("takes the eye centres, nose tip and mouth corners from the face mesh", () => {
    const mesh = Array.from({ length: 468 }, (_, k) => [k, 2 * k, 0] as const)
    const [leftEye, rightEye, nose, mouthLeft, mouthRight] = fivePoints(mesh)
    expect(leftEye).toEqual([(33 + 133 + 159 + 145) / 4, (2 * (33 + 133 + 159 + 145)) / 4])
    expect(rightEye).toEqual([(263 + 362 + 386 + 374) / 4, (2 * (263 + 362 + 386 + 374)) / 4])
    expect(nose).toEqual([1, 2])
    expect(mouthLeft).toEqual([61, 122])
    expect(mouthRight).toEqual([291, 582])
  })
})
