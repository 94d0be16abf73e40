/**
 * Measures candidate descriptors on five-point aligned crops (src/face-align.ts: eye centres,
 * nose tip and mouth corners from the face mesh, warped onto InsightFace's 112 × 112 template)
 * against the shipped `faceres` embedding, on the **calibration** people of faces-split.json only
 * (the evaluation people are never read here). For each option: genuine and impostor cosine
 * quantiles and the share of genuine pairs above the most similar impostor pair.
 *
 * Run: `npx tsx --conditions=@signet/source packages/kyc-local/calibration/faces-arcface.ts <root> descriptor <model.json> raw|norm`
 *   (a tfjs graph model taking [1, 112, 112, 3] RGB; `raw`: 0..255, the model normalises; `norm`: (x − 127.5) / 128)
 * or `... faces-arcface.ts <root> faceres-aligned` (the shipped `faceres` fed 224-px aligned crops, greyscale, margins 0–32).
 */
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { alignFace, fivePoints } from "../src/face-align.ts"
import { cosine, usableFace } from "../src/face-matcher.ts"
import { greyRgb } from "../src/face-quality.ts"
import { decodeRgb, fitRgb, type Rgb } from "../src/image.ts"
import { faceModels, modelPaths } from "../src/models.ts"

const [root, mode, modelFile, input] = process.argv.slice(2)
if (
  root === undefined ||
  (mode !== "descriptor" && mode !== "faceres-aligned") ||
  (mode === "descriptor" && (modelFile === undefined || (input !== "raw" && input !== "norm")))
) {
  console.error("usage: faces-arcface.ts <root> descriptor <model.json> raw|norm | faces-arcface.ts <root> faceres-aligned")
  process.exit(2)
}
const split = JSON.parse(readFileSync(fileURLToPath(new URL("./faces-split.json", import.meta.url)), "utf8")) as Record<string, ReadonlyArray<string>>
const photos = split.calibration!.flatMap((p) =>
  readdirSync(path.join(root, p))
    .filter((f) => f.endsWith(".jpg"))
    .sort()
    .map((f) => ({ person: p, file: path.join(root, p, f) })),
)

interface Tensor {
  readonly shape: ReadonlyArray<number>
  data(): Promise<Float32Array>
  dispose(): void
}
interface Runtime {
  tf: {
    loadGraphModel(url: string): Promise<{ execute(t: Tensor): Tensor | Array<Tensor> }>
    tensor4d(data: Float32Array, shape: [number, number, number, number]): Tensor
  }
}
const runtime = (await faceModels()) as unknown as Runtime
const model = await runtime.tf.loadGraphModel(`file://${mode === "descriptor" ? path.resolve(modelFile!) : path.join(modelPaths().models, "faceres.json")}`)

/** The model's embedding of a crop (`scale` maps a byte to the model's input value). */
const embed = async (crop: Rgb, scale: (v: number) => number): Promise<Array<number>> => {
  const t = runtime.tf.tensor4d(Float32Array.from(crop.data, scale), [1, crop.height, crop.width, 3])
  const out = model.execute(t)
  // faceres answers age, gender and the 1024-float descriptor; a plain descriptor answers one tensor
  const all = Array.isArray(out) ? out : [out]
  const e = Array.from(await (all.find((x) => x.shape[1] === 1024) ?? all[0]!).data())
  t.dispose()
  for (const x of all) x.dispose()
  return e
}
const mirror = (img: Rgb): Rgb => {
  const data = new Uint8Array(img.data.length)
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) for (let c = 0; c < 3; c++) data[(y * img.width + x) * 3 + c] = img.data[(y * img.width + img.width - 1 - x) * 3 + c]!
  return { ...img, data }
}
const scale = input === "raw" ? (v: number) => v : (v: number) => (v - 127.5) / 128

const embeddings: Array<{ person: string; options: Record<string, ReadonlyArray<number>> }> = []
let unusable = 0
for (const p of photos) {
  const jpeg = new Uint8Array(readFileSync(p.file))
  const check = await usableFace(jpeg)
  if ("problem" in check) {
    unusable++
    continue
  }
  // the image the matcher saw (fitted to 1280 px: the mesh is in its pixels), in colour
  const rgb = fitRgb(decodeRgb(jpeg)!, 1280)
  const points = fivePoints(check.face.mesh)
  const options: Record<string, ReadonlyArray<number>> = { "faceres (shipped)": check.face.embedding }
  if (mode === "descriptor") {
    const colour = alignFace(rgb, points)
    const c = await embed(colour, scale)
    const m = await embed(mirror(colour), scale)
    options.colour = c
    options.greyscale = await embed(greyRgb(colour), scale)
    options["colour, mean with mirror"] = c.map((v, k) => v + m[k]!)
  } else {
    for (const margin of [0, 8, 16, 24, 32]) options[`faceres, aligned, margin ${margin}`] = await embed(alignFace(greyRgb(rgb), points, 224, margin), (v) => v)
  }
  embeddings.push({ person: p.person, options })
}

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const r3 = (n: number) => n.toFixed(3)
const report = (name: string, similarity: (a: Record<string, ReadonlyArray<number>>, b: Record<string, ReadonlyArray<number>>) => number) => {
  const genuine: Array<number> = []
  const impostor: Array<number> = []
  for (let a = 0; a < embeddings.length; a++)
    for (let b = a + 1; b < embeddings.length; b++)
      (embeddings[a]!.person === embeddings[b]!.person ? genuine : impostor).push(similarity(embeddings[a]!.options, embeddings[b]!.options))
  const max = Math.max(...impostor)
  const above = genuine.filter((g) => g > max).length
  console.log(
    `| ${name} | ${r3(quantile(genuine, 0.1))} / ${r3(quantile(genuine, 0.5))} | ${r3(quantile(impostor, 0.99))} / ${r3(max)} | ${above}/${genuine.length} = ${((100 * above) / genuine.length).toFixed(1)} % |`,
  )
}
console.log(`calibration: ${photos.length} photos, ${unusable} unusable, ${embeddings.length} embedded`)
console.log("| option | genuine cos p10 / median | impostor cos p99 / max | genuine above max impostor |")
for (const name of Object.keys(embeddings[0]!.options)) report(name, (a, b) => cosine(a[name]!, b[name]!))
if (mode === "descriptor")
  for (const w of [0.5, 0.7])
    for (const name of ["colour", "greyscale"])
      report(
        `${w} × faceres + ${(1 - w).toFixed(1)} × ${name}`,
        (a, b) => w * cosine(a["faceres (shipped)"]!, b["faceres (shipped)"]!) + (1 - w) * cosine(a[name]!, b[name]!),
      )
process.exit(0)
