/**
 * The face matcher on labelled public photos of people (not made by the project, not shipped
 * by the face library): every pair of different photos of one person (genuine) and of two
 * people (impostor), and an ID-photo rendition of each person's first photo (greyscale,
 * cropped to a passport portrait, small, JPEG 70) against the person's other photos and
 * everyone else's. Runs the matcher as the port does (quality checks, embedding, calibrated score).
 *
 * Build the photos: `packages/kyc-local/calibration/faces-data.sh <face-api.js git dir> <deepface git dir> <root>`.
 * Run: `npx tsx --conditions=@signet/source packages/kyc-local/calibration/faces-eval.ts <root> calibration|evaluation [--json out.json]`
 * The split (calibration/faces-split.json) is by person and fixed; anchors are set on calibration only.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { encodeRgb } from "../src/encode.ts"
import { CALIBRATION, calibrated, cosine, usableFace } from "../src/face-matcher.ts"
import { faceQuality, greyRgb } from "../src/face-quality.ts"
import { crop, resize } from "../src/samples.ts"
import { decodeRgb, fitRgb, type Rgb } from "../src/image.ts"

const [root, set, flag, out] = process.argv.slice(2)
if (root === undefined || (set !== "calibration" && set !== "evaluation")) {
  console.error("usage: faces-eval.ts <root> calibration|evaluation [--json out.json]")
  process.exit(2)
}
const split = JSON.parse(readFileSync(fileURLToPath(new URL("./faces-split.json", import.meta.url)), "utf8")) as Record<string, ReadonlyArray<string>>
const people = split[set]!
const photos = people.flatMap((p) =>
  readdirSync(path.join(root, p))
    .filter((f) => f.endsWith(".jpg"))
    .sort()
    .map((f) => ({ person: p, file: `${p}/${f}` })),
)

/** A passport-style rendition: the face with margins at 35:45, greyscale, 180 px wide, JPEG 70. */
const idPhoto = (rgb: Rgb, box: readonly [number, number, number, number]): Uint8Array => {
  const [x, y, w, h] = box
  const width = Math.min(rgb.width, Math.round(w * 1.7))
  const height = Math.min(rgb.height, Math.round((width * 45) / 35))
  const left = Math.max(0, Math.min(rgb.width - width, Math.round(x + w / 2 - width / 2)))
  const top = Math.max(0, Math.min(rgb.height - height, Math.round(y + h * 0.45 - height / 2)))
  const portrait = resize(crop(rgb, left, top, width, height), 180 / width)
  const data = new Uint8Array(portrait.data.length)
  for (let p = 0; p < data.length; p += 3)
    data[p] = data[p + 1] = data[p + 2] = portrait.data[p]! * 0.299 + portrait.data[p + 1]! * 0.587 + portrait.data[p + 2]! * 0.114
  return encodeRgb({ ...portrait, data }, 70)
}

const round = (n: number) => Math.round(n * 1000) / 1000
type Seen = {
  person: string
  file: string
  embedding: ReadonlyArray<number> | null
  problem?: string
  id?: { embedding: ReadonlyArray<number> | null; problem?: string }
}
const seen: Array<Seen> = []
const problems: Record<string, number> = {}
const quality: Array<{ file: string; brightness: number; sharpness: number; yaw: number; pitch: number }> = []
const started = performance.now()
for (const p of photos) {
  const jpeg = new Uint8Array(readFileSync(path.join(root, p.file)))
  const check = await usableFace(jpeg)
  if ("problem" in check) {
    problems[check.problem] = (problems[check.problem] ?? 0) + 1
    console.log(`unusable ${p.file}: ${check.problem}`)
    seen.push({ ...p, embedding: null, problem: check.problem })
    continue
  }
  const s: Seen = { ...p, embedding: check.face.embedding }
  // the box is in the 1280-px fitted image
  const rgb = fitRgb(decodeRgb(jpeg)!, 1280)
  const q = faceQuality(greyRgb(rgb), check.face.box)
  quality.push({
    file: p.file,
    brightness: round(q.brightness),
    sharpness: round(q.sharpness),
    yaw: Math.round((check.face.yaw * 180) / Math.PI),
    pitch: Math.round((check.face.pitch * 180) / Math.PI),
  })
  if (p.file.endsWith("/1.jpg")) {
    const id = await usableFace(idPhoto(rgb, check.face.box))
    s.id = "problem" in id ? { embedding: null, problem: id.problem } : { embedding: id.face.embedding }
    if ("problem" in id) console.log(`unusable ID photo of ${p.person}: ${id.problem}`)
  }
  seen.push(s)
}
const perPhotoMs = (performance.now() - started) / photos.length

const genuine: Array<number> = []
const impostor: Array<number> = []
let skipped = 0
for (let a = 0; a < seen.length; a++) {
  for (let b = a + 1; b < seen.length; b++) {
    const x = seen[a]!
    const y = seen[b]!
    if (x.embedding === null || y.embedding === null) {
      skipped++
      continue
    }
    ;(x.person === y.person ? genuine : impostor).push(cosine(x.embedding, y.embedding))
  }
}
// ID photo of a person's first photo against the person's other photos and everyone else's photos
const idGenuine: Array<number> = []
const idImpostor: Array<number> = []
for (const x of seen) {
  if (x.id?.embedding == null) continue
  for (const y of seen) {
    if (y === x || y.embedding === null) continue
    ;(x.person === y.person ? idGenuine : idImpostor).push(cosine(x.id.embedding, y.embedding))
  }
}

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const describe = (name: string, g: ReadonlyArray<number>, i: ReadonlyArray<number>) => {
  const at = (xs: ReadonlyArray<number>, score: number) => xs.filter((c) => calibrated(c) >= score).length
  const row = {
    pairs: name,
    genuine: g.length,
    "genuine cos min / p10 / median": `${round(Math.min(...g))} / ${round(quantile(g, 0.1))} / ${round(quantile(g, 0.5))}`,
    "genuine ≥ 0.75 (match)": `${at(g, 0.75)} (${((100 * at(g, 0.75)) / g.length).toFixed(1)} %)`,
    "genuine ≥ 0.65": `${at(g, 0.65)}`,
    "FRR at 0.75": `${g.length - at(g, 0.75)}/${g.length}`,
    "FRR at 0.65": `${g.length - at(g, 0.65)}/${g.length}`,
    impostor: i.length,
    "impostor cos median / p99 / max": `${round(quantile(i, 0.5))} / ${round(quantile(i, 0.99))} / ${round(Math.max(...i))}`,
    "FAR at 0.65": `${at(i, 0.65)}/${i.length}`,
    "FAR at 0.75": `${at(i, 0.75)}/${i.length}`,
  }
  return row
}
const rows = [describe("different photos", genuine, impostor), describe("ID photo vs photo", idGenuine, idImpostor)]
console.log(
  `${set}: ${people.length} people, ${photos.length} photos (${perPhotoMs.toFixed(0)} ms per photo), anchors cos ${CALIBRATION.review} → 0.65, ${CALIBRATION.match} → 0.75`,
)
console.log(`unusable photos: ${JSON.stringify(problems)} (${skipped} pairs not compared)`)
const extreme = (k: "brightness" | "sharpness" | "yaw" | "pitch") => `${Math.min(...quality.map((q) => q[k]))}..${Math.max(...quality.map((q) => q[k]))}`
console.log(`usable faces: brightness ${extreme("brightness")}, sharpness ${extreme("sharpness")}, yaw ${extreme("yaw")}°, pitch ${extreme("pitch")}°`)
for (const r of rows) console.log(JSON.stringify(r, null, 1))
if (set === "calibration") {
  // the anchors the calibration set gives: review above every impostor with a margin, match at
  // the 10th percentile of genuine pairs when that is above review (else as low as the margin allows)
  const maxImpostor = Math.max(...impostor, ...idImpostor)
  const review = round(maxImpostor + 0.03)
  const match = round(Math.max(review + 0.02, quantile([...genuine, ...idGenuine], 0.1)))
  console.log(`proposed anchors: review ${review} (max impostor cos ${round(maxImpostor)} + 0.03), match ${match}`)
}
if (flag === "--json" && out !== undefined)
  writeFileSync(out, `${JSON.stringify({ set, people, rows, problems, genuine, impostor, idGenuine, idImpostor }, null, 1)}\n`)
process.exit(0)
