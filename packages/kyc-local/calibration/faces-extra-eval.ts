/**
 * The face matcher on a second labelled set of public photos (faces-extra.sh), for impostors:
 * every pair of different photos of one person (genuine) and of two people (impostor) within that
 * set, and every cross pair between it and the evaluation people of faces-split.json. Runs the
 * matcher as the port does (quality checks, embedding, calibrated score) and names the closest
 * impostor pairs so a person can look at them.
 *
 * The matcher module is an argument, so one script measures this branch's matcher and another
 * checkout's (its `similarity` of two usable faces if it exports one, else the cosine of the embeddings).
 * Build the photos: `faces-extra.sh` or `faces-lfw.sh` (calibration/). Run:
 * `npx tsx --conditions=@signet/source packages/kyc-local/calibration/faces-extra-eval.ts <face-matcher.ts> <extra root> <faces root> [--json out.json]`
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const [matcherPath, extraRoot, facesRoot, flag, out] = process.argv.slice(2)
if (matcherPath === undefined || extraRoot === undefined || facesRoot === undefined) {
  console.error("usage: faces-extra-eval.ts <face-matcher.ts> <extra root> <faces root> [--json out.json]")
  process.exit(2)
}
type Face = { readonly embedding: ReadonlyArray<number> }
type Matcher = {
  CALIBRATION: { review: number; match: number }
  calibrated: (similarity: number) => number
  usableFace: (jpeg: Uint8Array) => Promise<{ face: Face } | { problem: string }>
  similarity?: (a: Face, b: Face) => number
  cosine: (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => number
}
const matcher = (await import(pathToFileURL(path.resolve(matcherPath)).href)) as Matcher
const compare = (a: Face, b: Face) => (matcher.similarity !== undefined ? matcher.similarity(a, b) : matcher.cosine(a.embedding, b.embedding))

const split = JSON.parse(readFileSync(fileURLToPath(new URL("./faces-split.json", import.meta.url)), "utf8")) as Record<string, ReadonlyArray<string>>
// the same person under two names in the two sets (facenet-pytorch's Angelina Jolie is deepface's img1)
const SAME: Record<string, string> = { "fp-angelina_jolie": "df-img1" }
const identity = (person: string) => SAME[person] ?? person
const list = (root: string, people: ReadonlyArray<string>, set: "extra" | "evaluation") =>
  people.flatMap((p) =>
    readdirSync(path.join(root, p))
      .filter((f) => f.endsWith(".jpg"))
      .sort()
      .map((f) => ({ person: p, set, file: path.join(root, p, f), name: `${p}/${f}` })),
  )
const extraPeople = readdirSync(extraRoot).sort()
const photos = [...list(extraRoot, extraPeople, "extra"), ...list(facesRoot, split.evaluation!, "evaluation")]

type Seen = (typeof photos)[number] & { face: Face }
const seen: Array<Seen> = []
const problems: Record<string, number> = {}
const started = performance.now()
for (const p of photos) {
  const check = await matcher.usableFace(new Uint8Array(readFileSync(p.file)))
  if ("problem" in check) {
    problems[check.problem] = (problems[check.problem] ?? 0) + 1
    console.log(`unusable ${p.name}: ${check.problem}`)
  } else seen.push({ ...p, face: check.face })
}
const perPhotoMs = (performance.now() - started) / photos.length

type Pair = { a: string; b: string; similarity: number }
const groups = { extra: { genuine: [] as Array<Pair>, impostor: [] as Array<Pair> }, cross: { genuine: [] as Array<Pair>, impostor: [] as Array<Pair> } }
for (let i = 0; i < seen.length; i++) {
  for (let j = i + 1; j < seen.length; j++) {
    const x = seen[i]!
    const y = seen[j]!
    if (x.set === "evaluation" && y.set === "evaluation") continue // faces-eval.ts measures those
    const group = x.set === "extra" && y.set === "extra" ? groups.extra : groups.cross
    ;(identity(x.person) === identity(y.person) ? group.genuine : group.impostor).push({ a: x.name, b: y.name, similarity: compare(x.face, y.face) })
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000
const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
// not Math.max(...xs): hundreds of thousands of arguments overflow the stack
const max = (xs: ReadonlyArray<number>) => xs.reduce((m, x) => Math.max(m, x), Number.NEGATIVE_INFINITY)
const min = (xs: ReadonlyArray<number>) => xs.reduce((m, x) => Math.min(m, x), Number.POSITIVE_INFINITY)
const at = (xs: ReadonlyArray<Pair>, score: number) => xs.filter((p) => matcher.calibrated(p.similarity) >= score).length
const describe = (name: string, g: ReadonlyArray<Pair>, i: ReadonlyArray<Pair>) => {
  const gs = g.map((p) => p.similarity)
  const is = i.map((p) => p.similarity)
  return {
    pairs: name,
    genuine: g.length,
    "genuine ≥ 0.75": at(g, 0.75),
    "genuine ≥ 0.65": at(g, 0.65),
    "genuine similarity min / median": g.length === 0 ? "-" : `${round(min(gs))} / ${round(quantile(gs, 0.5))}`,
    impostor: i.length,
    "impostor ≥ 0.65": at(i, 0.65),
    "impostor ≥ 0.75": at(i, 0.75),
    "impostor similarity median / p99 / max": `${round(quantile(is, 0.5))} / ${round(quantile(is, 0.99))} / ${round(max(is))}`,
    "impostor max score": round(matcher.calibrated(max(is))),
  }
}
const all = { genuine: [...groups.extra.genuine, ...groups.cross.genuine], impostor: [...groups.extra.impostor, ...groups.cross.impostor] }
const rows = [
  describe("within the extra set", groups.extra.genuine, groups.extra.impostor),
  describe("extra × evaluation people", groups.cross.genuine, groups.cross.impostor),
  describe("all", all.genuine, all.impostor),
]
const worst = [...all.impostor].sort((a, b) => b.similarity - a.similarity).slice(0, 12)
const weakest = [...all.genuine].sort((a, b) => a.similarity - b.similarity).slice(0, 8)
console.log(
  `${matcherPath}: ${extraPeople.length} + ${split.evaluation!.length} people, ${photos.length} photos, ${seen.length} usable (${perPhotoMs.toFixed(0)} ms per photo), anchors ${matcher.CALIBRATION.review} → 0.65, ${matcher.CALIBRATION.match} → 0.75`,
)
console.log(`unusable photos: ${JSON.stringify(problems)}`)
for (const r of rows) console.log(JSON.stringify(r, null, 1))
const show = (p: Pair) => `${round(p.similarity)} (score ${round(matcher.calibrated(p.similarity))})  ${p.a}  ${p.b}`
console.log("closest impostor pairs:")
for (const p of worst) console.log(`  ${show(p)}`)
// which people the impostors at or above review come from: a few look-alike pairs, or spread out
const byPeople = new Map<string, number>()
for (const p of all.impostor.filter((p) => matcher.calibrated(p.similarity) >= 0.65)) {
  const key = [p.a.split("/")[0], p.b.split("/")[0]].sort().join(" × ")
  byPeople.set(key, (byPeople.get(key) ?? 0) + 1)
}
const reviewByPeople = [...byPeople].sort((a, b) => b[1] - a[1])
console.log(`impostors ≥ 0.65 by pair of people (${reviewByPeople.length} pairs of people):`)
for (const [people, n] of reviewByPeople.slice(0, 15)) console.log(`  ${n}  ${people}`)
console.log("weakest genuine pairs:")
for (const p of weakest) console.log(`  ${show(p)}`)
if (flag === "--json" && out !== undefined)
  writeFileSync(out, `${JSON.stringify({ matcher: matcherPath, problems, rows, worst, weakest, reviewByPeople }, null, 1)}\n`)
process.exit(0)
