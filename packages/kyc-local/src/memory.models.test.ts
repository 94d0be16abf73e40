import { composeTd3 } from "@signet/core"
import { ALICE, encodeJpeg, renderDocument } from "@signet/testkit/kyc"
import { describe, expect, it } from "vitest"
import { readDocument } from "./document-reader.ts"
import { encodeRgb } from "./encode.ts"
import { faceSimilarity } from "./face-matcher.ts"
import { toGrey } from "./image.ts"
import { assessLiveness } from "./liveness.ts"
import { faceModels, modelMemory } from "./models.ts"
import { DISTINCT_FACES } from "./samples-set.ts"
import { faceTile, variant } from "./samples.ts"

describe("local KYC adapters over repeated verifications", () => {
  it("load the models once and keep live tensors and RSS flat", async () => {
    const runtime = await faceModels()
    expect(await faceModels()).toBe(runtime)
    const photo = faceTile(DISTINCT_FACES[1])
    const page = encodeJpeg(renderDocument("passport", { mrz: composeTd3({ issuingState: "KEN", ...ALICE }), photo: toGrey(photo) }), 80)
    const frames = [{}, { shiftX: 40 }, { shiftX: 80, scale: 1.15 }].map((v) => encodeRgb(variant(photo, v)))
    const verify = async () => {
      expect((await readDocument([page])).accepted).toBe(true)
      const live = await assessLiveness(frames)
      expect(live._tag).toBe("Confirmed")
      if (live._tag === "Confirmed") expect(await faceSimilarity(page, live.selfie)).toMatchObject({ score: expect.any(Number) })
    }
    await verify()
    await verify()
    const tensors = (await modelMemory()).numTensors
    const rss = process.memoryUsage().rss
    for (let k = 0; k < 8; k++) await verify()
    expect((await modelMemory()).numTensors).toBe(tensors)
    // RSS may breathe with the garbage collector, not grow by a leak of images (each run decodes ~10 MB of pixels)
    expect(process.memoryUsage().rss - rss).toBeLessThan(150 * 1024 * 1024)
  })
})
