/**
 * Embeds every photo of a faces directory under several descriptor/pre-processing options and
 * writes the embeddings (for comparing the options' genuine and impostor distributions).
 * Run: `npx tsx --conditions=@signet/source packages/kyc-local/calibration/faces-options.ts <root> <models dir> <out.json>`
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import { decodeRgb, fitRgb, type Rgb } from "../src/image.ts"
import { modelPaths } from "../src/models.ts"

const [root, modelsDir, out, only] = process.argv.slice(2) as [string, string, string, string | undefined]
const require = createRequire(import.meta.url)
const loader = (file: string) => ({
  load: async () => {
    const json = JSON.parse(readFileSync(file, "utf8"))
    const shards = json.weightsManifest.flatMap((g: any) => g.paths.map((p: string) => readFileSync(path.join(path.dirname(file), p))))
    const all = Buffer.concat(shards)
    return {
      ...json,
      weightSpecs: json.weightsManifest.flatMap((g: any) => g.weights),
      weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
    }
  },
})
let routed = false
const make = async (face: unknown) => {
  const paths = modelPaths()
  const { Human } = require(paths.human)
  const human = new Human({
    backend: "wasm",
    wasmPath: paths.wasm,
    modelBasePath: `file://${modelsDir}/`,
    debug: false,
    cacheModels: false,
    filter: { enabled: false },
    async: true,
    warmup: "none",
    face: {
      enabled: true,
      detector: { rotation: true, maxDetected: 4, minConfidence: 0.3, skipFrames: 0, skipTime: 0, return: false },
      mesh: { enabled: true },
      iris: { enabled: true, skipFrames: 0, skipTime: 0 },
      emotion: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
      ...(face as object),
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
  })
  // the IO registry is shared by every instance: one router
  if (!routed)
    human.tf.io.registerLoadRouter((url: any) => {
      const u = Array.isArray(url) ? url[0] : url
      return typeof u === "string" && u.startsWith("file://") ? loader(u.slice(7)) : null
    })
  routed = true
  await human.load()
  return human
}
const mirror = (img: Rgb): Rgb => {
  const data = new Uint8Array(img.data.length)
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) for (let c = 0; c < 3; c++) data[(y * img.width + x) * 3 + c] = img.data[(y * img.width + img.width - 1 - x) * 3 + c]!
  return { ...img, data }
}
const grey = (img: Rgb): Rgb => {
  const data = new Uint8Array(img.data.length)
  for (let p = 0; p < data.length; p += 3) data[p] = data[p + 1] = data[p + 2] = (img.data[p]! * 299 + img.data[p + 1]! * 587 + img.data[p + 2]! * 114) / 1000
  return { ...img, data }
}
const options: Record<string, unknown> = {
  faceres: { description: { enabled: true, modelPath: "faceres.json", skipFrames: 0, skipTime: 0 } },
  "faceres-deep": { description: { enabled: true, modelPath: "faceres-deep.json", skipFrames: 0, skipTime: 0 } },
  mobilefacenet: { description: { enabled: false }, mobilefacenet: { enabled: true, modelPath: "mobilefacenet.json", skipFrames: 0, skipTime: 0 } },
}
const files = readdirSync(root)
  .sort()
  .flatMap((p) =>
    readdirSync(path.join(root, p))
      .sort()
      .map((f) => `${p}/${f}`),
  )
const result: Record<string, Record<string, { box: number[]; score: number; yaw: number; pitch: number; e: number[] } | null>> = existsSync(out)
  ? JSON.parse(readFileSync(out, "utf8"))
  : {}
for (const [name, face] of Object.entries(options)) {
  if (only !== undefined && !only.split(",").includes(name)) continue
  const human = await make(face)
  const embed = async (rgb: Rgb) => {
    const t = human.tf.tensor3d(rgb.data, [rgb.height, rgb.width, 3], "int32")
    const r = await human.detect(t)
    t.dispose()
    const f = r.face.sort((a: any, b: any) => b.box[2] * b.box[3] - a.box[2] * a.box[3])[0]
    return f?.embedding?.length ? { box: f.box, score: f.score, yaw: f.rotation?.angle.yaw ?? 0, pitch: f.rotation?.angle.pitch ?? 0, e: f.embedding } : null
  }
  const variants: Record<string, (r: Rgb) => Rgb> = { "": (r) => r, "+mirror": mirror, "+grey": grey }
  for (const [v, fn] of Object.entries(variants)) {
    const key = name + v
    if (result[key] !== undefined) continue
    result[key] = {}
    const t0 = Date.now()
    for (const f of files) result[key]![f] = await embed(fn(fitRgb(decodeRgb(readFileSync(path.join(root, f)))!, 1280)))
    writeFileSync(out, JSON.stringify(result))
    console.log(key, files.length, "photos", Date.now() - t0, "ms", Object.values(result[key]!).filter((x) => x === null).length, "without a face")
  }
}
writeFileSync(out, JSON.stringify(result))
process.exit(0)
