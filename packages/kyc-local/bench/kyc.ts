/**
 * Local KYC benchmark: model load time, per-image document-read and face-match times, and
 * memory over repeated verifications (document read + liveness + face match each).
 * `pnpm bench:kyc` (20 verifications) or `pnpm bench:kyc --verifications 1000`.
 */
import { composeTd3 } from "@signet/core"
import { ALICE, documentCases, encodeJpeg, passport, renderDocument } from "@signet/testkit/kyc"
import { assessLiveness } from "../src/liveness.ts"
import { encodeRgb } from "../src/encode.ts"
import { faceSimilarity } from "../src/face-matcher.ts"
import { toGrey } from "../src/image.ts"
import { faceModels, modelMemory } from "../src/models.ts"
import { readDocument } from "../src/document-reader.ts"
import { readMrz } from "../src/mrz-reader.ts"
import { DISTINCT_FACES } from "../src/samples-set.ts"
import { faceTile, variant } from "../src/samples.ts"

const arg = process.argv.indexOf("--verifications")
const verifications = arg >= 0 ? Number(process.argv[arg + 1]) : 20
const ms = (t: number) => Math.round(performance.now() - t)
// CPU time of this process (all its threads): on a shared machine
// wall time includes waiting for a core, CPU time is what one read or match costs
const cpu = () => process.cpuUsage()
const cpuMs = (c: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(c)
  return Math.round((d.user + d.system) / 1000)
}
const mb = () => Math.round(process.memoryUsage().rss / 1024 / 1024)
const stats = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return `median ${s[Math.floor(s.length / 2)]} ms, p90 ${s[Math.floor(s.length * 0.9)]} ms, max ${s[s.length - 1]} ms (n=${s.length})`
}

// The sandbox fixtures tests draw: a new passport page, then the same one from the cache.
let t = performance.now()
passport("carol", { expiryDate: "330303" })
const fixtureFirst = performance.now() - t
t = performance.now()
passport("carol", { expiryDate: "330303" })
console.log(`KYC fixture: a new passport page in ${Math.round(fixtureFirst)} ms, the same page again in ${(performance.now() - t).toFixed(2)} ms (cached)`)

t = performance.now()
await faceModels()
console.log(`face models loaded in ${ms(t)} ms`)
t = performance.now()
await readMrz(documentCases()[0]!.jpeg)
console.log(`first read (the ten fixture pages drawn, the OCR-B network decoded) in ${ms(t)} ms`)

const reads: Array<number> = []
const readsCpu: Array<number> = []
for (const c of documentCases()) {
  t = performance.now()
  const c0 = cpu()
  await readMrz(c.jpeg)
  const took = ms(t)
  reads.push(took)
  readsCpu.push(cpuMs(c0))
  console.log(`  read ${c.name}: ${took} ms wall, ${readsCpu[readsCpu.length - 1]} ms CPU`)
}
console.log(`document read (MRZ), wall: ${stats(reads)}`)
console.log(`document read (MRZ), CPU:  ${stats(readsCpu)}`)

const matches: Array<number> = []
const matchesCpu: Array<number> = []
for (const i of DISTINCT_FACES.slice(0, 6)) {
  const a = encodeRgb(faceTile(i))
  const b = encodeRgb(variant(faceTile(i), { brightness: 1.2, degrees: 5 }))
  t = performance.now()
  const c0 = cpu()
  await faceSimilarity(a, b)
  matches.push(ms(t))
  matchesCpu.push(cpuMs(c0))
}
console.log(`face match (two new images), wall: ${stats(matches)}`)
console.log(`face match (two new images), CPU:  ${stats(matchesCpu)}`)

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
    console.log(
      `  ${k} verifications: rss ${mb()} MB (start ${startRss}), tensors ${(await modelMemory()).numTensors} (start ${startTensors}), ${Math.round(ms(t) / k)} ms each`,
    )
  }
}
console.log(`memory over ${verifications} verifications: rss ${startRss} → ${mb()} MB, tensors ${startTensors} → ${(await modelMemory()).numTensors}`)
process.exit(0)
