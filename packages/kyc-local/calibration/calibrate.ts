/**
 * Face-matcher calibration: embeddings of distinct people (tiles of a screenshot shipped in
 * `@vladmandic/human`) and of each under brightness, scale, rotation and greyscale changes;
 * prints the cosine distributions, proposes the anchors and writes calibration/results.json.
 * Run: `npx tsx packages/kyc-local/calibration/calibrate.ts`.
 */
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { calibrated, CALIBRATION, cosine, MATCH_MODELS } from "../src/face-matcher.ts"
import { detectFaces } from "../src/models.ts"
import { DISTINCT_FACES, faceVariant, VARIANTS } from "../src/samples-set.ts"
import { faceTile } from "../src/samples.ts"

const embed = async (img: Parameters<typeof detectFaces>[0]) => (await detectFaces(img, MATCH_MODELS))[0]?.embedding ?? null

const originals = new Map<number, ReadonlyArray<number>>()
for (const i of DISTINCT_FACES) {
  const e = await embed(faceTile(i))
  if (e === null) throw new Error(`no face in tile ${i}`)
  originals.set(i, e)
}
const same: Array<{ face: number; variant: string; cosine: number; score: number }> = []
for (const i of DISTINCT_FACES) {
  for (const v of VARIANTS) {
    const e = await embed(faceVariant(i, v))
    const cos = e === null ? 0 : cosine(originals.get(i)!, e)
    same.push({ face: i, variant: v.name, cosine: round(cos), score: round(calibrated(cos)) })
  }
}
const different: Array<{ a: number; b: number; cosine: number; score: number }> = []
for (let x = 0; x < DISTINCT_FACES.length; x++) {
  for (let y = x + 1; y < DISTINCT_FACES.length; y++) {
    const cos = cosine(originals.get(DISTINCT_FACES[x]!)!, originals.get(DISTINCT_FACES[y]!)!)
    different.push({ a: DISTINCT_FACES[x]!, b: DISTINCT_FACES[y]!, cosine: round(cos), score: round(calibrated(cos)) })
  }
}
function round(n: number) {
  return Math.round(n * 1000) / 1000
}
const sameCos = same.map((s) => s.cosine).sort((a, b) => a - b)
const diffCos = different.map((d) => d.cosine).sort((a, b) => a - b)
const summary = {
  anchors: CALIBRATION,
  same: {
    pairs: same.length,
    min: sameCos[0],
    p05: sameCos[Math.floor(sameCos.length * 0.05)],
    median: sameCos[Math.floor(sameCos.length / 2)],
    minScore: Math.min(...same.map((s) => s.score)),
  },
  different: {
    pairs: different.length,
    max: diffCos[diffCos.length - 1],
    p95: diffCos[Math.floor(diffCos.length * 0.95)],
    median: diffCos[Math.floor(diffCos.length / 2)],
    maxScore: Math.max(...different.map((d) => d.score)),
  },
  // anchors the data would give: review just above the most similar different pair, match just below the least similar same pair
  proposed: { review: round(diffCos[diffCos.length - 1]! + 0.02), match: round(Math.max(diffCos[diffCos.length - 1]! + 0.04, sameCos[0]! - 0.02)) },
}
console.log(JSON.stringify(summary, null, 2))
const out = fileURLToPath(new URL("./results.json", import.meta.url))
writeFileSync(out, `${JSON.stringify({ summary, same, different }, null, 2)}\n`)
console.log(`written ${out}`)
process.exit(0)
