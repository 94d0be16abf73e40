/**
 * Local KYC benchmark: model load time, per-image document-read and face-match times, and
 * memory over repeated verifications (document read + liveness + face match each).
 * `pnpm bench:kyc` (20 verifications) or `pnpm bench:kyc --verifications 1000`.
 */
import { composeTd3 } from "@signet/core"
import { ALICE, encodeJpeg, renderDocument } from "@signet/testkit/kyc"
import { assessLiveness } from "../src/liveness.ts"
import { documentCases } from "../src/documents.ts"
import { encodeRgb } from "../src/encode.ts"
import { faceSimilarity } from "../src/face-matcher.ts"
import { toGrey } from "../src/image.ts"
import { faceModels, modelMemory } from "../src/models.ts"
import { readDocument } from "../src/document-reader.ts"
import { readMrz, stopOcr } from "../src/mrz-reader.ts"
import { DISTINCT_FACES } from "../src/samples-set.ts"
import { faceTile, variant } from "../src/samples.ts"

const arg = process.argv.indexOf("--verifications")
const verifications = arg >= 0 ? Number(process.argv[arg + 1]) : 20
const ms = (t: number) => Math.round(performance.now() - t)
const mb = () => Math.round(process.memoryUsage().rss / 1024 / 1024)
const stats = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return `median ${s[Math.floor(s.length / 2)]} ms, p90 ${s[Math.floor(s.length * 0.9)]} ms, max ${s[s.length - 1]} ms (n=${s.length})`
}

let t = performance.now()
await faceModels()
console.log(`face models loaded in ${ms(t)} ms`)
t = performance.now()
await readMrz(documentCases()[0]!.jpeg)
console.log(`OCR worker started and first read in ${ms(t)} ms`)

const reads: Array<number> = []
for (const c of documentCases()) {
  t = performance.now()
  await readMrz(c.jpeg)
  const took = ms(t)
  reads.push(took)
  console.log(`  read ${c.name}: ${took} ms`)
}
console.log(`document read (MRZ): ${stats(reads)}`)

const matches: Array<number> = []
for (const i of DISTINCT_FACES.slice(0, 6)) {
  const a = encodeRgb(faceTile(i))
  const b = encodeRgb(variant(faceTile(i), { brightness: 1.2, degrees: 5 }))
  t = performance.now()
  await faceSimilarity(a, b)
  matches.push(ms(t))
}
console.log(`face match (two images): ${stats(matches)}`)

// Repeated verifications: RSS and live tensors must stay flat.
const photo = faceTile(DISTINCT_FACES[0])
const page = encodeJpeg(renderDocument("passport", { mrz: composeTd3({ issuingState: "KEN", ...ALICE }), photo: toGrey(photo) }), 80)
const frames = [{}, { shiftX: 40 }, { shiftX: 80, scale: 1.15 }].map((v) => encodeRgb(variant(photo, v)))
const startRss = mb()
const startTensors = (await modelMemory()).numTensors
t = performance.now()
for (let k = 1; k <= verifications; k++) {
  await readDocument([page])
  const live = await assessLiveness(frames)
  if (live._tag === "Confirmed") await faceSimilarity(page, live.selfie)
  if (k % Math.max(1, Math.floor(verifications / 10)) === 0) {
    console.log(`  ${k} verifications: rss ${mb()} MB (start ${startRss}), tensors ${(await modelMemory()).numTensors} (start ${startTensors}), ${Math.round(ms(t) / k)} ms each`)
  }
}
console.log(`memory over ${verifications} verifications: rss ${startRss} → ${mb()} MB, tensors ${startTensors} → ${(await modelMemory()).numTensors}`)
await stopOcr()
process.exit(0)
