/**
 * The face model runtime: one `@vladmandic/human` instance per process on the tfjs WASM
 * backend, created on first use. Models and the WASM binaries are read from the installed
 * npm packages (`@vladmandic/human/models`, `@tensorflow/tfjs-backend-wasm/dist`) through a
 * `file://` load router; nothing is fetched from the network.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"

const require = createRequire(import.meta.url)

/** One detected face, as far as the adapters use it. */
export interface DetectedFace {
  /** detector confidence 0..1 */
  readonly score: number
  /** x, y, width, height in pixels of the input */
  readonly box: readonly [number, number, number, number]
  /** face-description embedding (1024 floats) */
  readonly embedding: ReadonlyArray<number>
  /** the anti-spoof model: 1 = a real face, 0 = a photo of a photo or screen */
  readonly real: number
  /** the liveness model: 1 = live */
  readonly live: number
  /** head pose in radians */
  readonly yaw: number
  readonly pitch: number
  /** 468 mesh points (x, y, z) */
  readonly mesh: ReadonlyArray<readonly [number, number, number]>
}

interface HumanFace {
  score: number
  box: [number, number, number, number]
  embedding?: Array<number>
  real?: number
  live?: number
  rotation?: { angle: { yaw: number; pitch: number } } | null
  mesh: Array<[number, number, number]>
}
interface Tensor {
  dispose(): void
}
interface HumanInstance {
  load(): Promise<void>
  detect(input: Tensor, config?: unknown): Promise<{ face: Array<HumanFace> }>
  tf: {
    tensor3d(data: Uint8Array, shape: [number, number, number], dtype: "int32"): Tensor
    getBackend(): string
    memory(): { numTensors: number; numBytes: number }
    io: { registerLoadRouter(router: (url: string | Array<string>) => unknown): void }
  }
}

/** Where the installed packages keep the models and the WASM binaries. */
export const modelPaths = () => {
  const humanDist = path.dirname(require.resolve("@vladmandic/human"))
  return {
    human: path.join(humanDist, "human.node-wasm.js"),
    models: path.join(humanDist, "..", "models"),
    wasm: `${path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm"))}${path.sep}`,
  }
}

// A tfjs IO handler reading a graph model (model.json and its weight shards) from disk.
const fileLoader = (file: string) => ({
  load: async () => {
    const json = JSON.parse(readFileSync(file, "utf8")) as {
      modelTopology: unknown
      format?: string
      generatedBy?: string
      convertedBy?: string
      signature?: unknown
      userDefinedMetadata?: unknown
      weightsManifest: Array<{ paths: Array<string>; weights: Array<unknown> }>
    }
    const shards = json.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(path.join(path.dirname(file), p))))
    const all = Buffer.concat(shards)
    return {
      modelTopology: json.modelTopology,
      format: json.format,
      generatedBy: json.generatedBy,
      convertedBy: json.convertedBy,
      signature: json.signature,
      userDefinedMetadata: json.userDefinedMetadata,
      weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
      weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
    }
  },
})

let instance: Promise<HumanInstance> | undefined

/** The process's face model runtime, loaded once (every later call reuses it). */
export const faceModels = (): Promise<HumanInstance> => {
  instance ??= (async () => {
    const paths = modelPaths()
    const { Human } = require(paths.human) as { Human: new (config: unknown) => HumanInstance }
    const human = new Human({
      backend: "wasm",
      wasmPath: paths.wasm,
      modelBasePath: `file://${paths.models}/`,
      debug: false,
      cacheModels: false,
      filter: { enabled: false },
      async: true,
      warmup: "none",
      face: {
        enabled: true,
        // no tracking between calls: every image is judged on its own
        detector: { rotation: true, maxDetected: 4, minConfidence: 0.3, skipFrames: 0, skipTime: 0, return: false },
        mesh: { enabled: true },
        iris: { enabled: true, skipFrames: 0, skipTime: 0 },
        description: { enabled: true, skipFrames: 0, skipTime: 0 },
        emotion: { enabled: false },
        antispoof: { enabled: true, skipFrames: 0, skipTime: 0 },
        liveness: { enabled: true, skipFrames: 0, skipTime: 0 },
      },
      body: { enabled: false },
      hand: { enabled: false },
      object: { enabled: false },
      gesture: { enabled: false },
      segmentation: { enabled: false },
    })
    human.tf.io.registerLoadRouter((url) => {
      const u = Array.isArray(url) ? url[0] : url
      return typeof u === "string" && u.startsWith("file://") ? fileLoader(u.slice("file://".length)) : null
    })
    await human.load()
    return human
  })()
  return instance
}

/** Faces in an RGB image, largest first (`models`: a partial human config for this call); the input tensor is freed before returning. */
export const detectFaces = async (
  rgb: { readonly width: number; readonly height: number; readonly data: Uint8Array },
  models?: unknown,
): Promise<Array<DetectedFace>> => {
  const human = await faceModels()
  // Inference runs on this thread and awaits only promises: let queued I/O (other requests,
  // IPC) through before and after it, so a run of detections does not starve the event loop.
  await nextTurn()
  const input = human.tf.tensor3d(rgb.data, [rgb.height, rgb.width, 3], "int32")
  try {
    const result = await human.detect(input, models)
    await nextTurn()
    return result.face
      .map(
        (f): DetectedFace => ({
          score: f.score,
          box: f.box,
          embedding: f.embedding ?? [],
          real: f.real ?? 0,
          live: f.live ?? 0,
          yaw: f.rotation?.angle.yaw ?? 0,
          pitch: f.rotation?.angle.pitch ?? 0,
          mesh: f.mesh,
        }),
      )
      .sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3])
  } finally {
    input.dispose()
  }
}

/** Resolves on a later turn of the event loop (after pending I/O callbacks). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Live tensors of the model runtime (a leak check for long runs). */
export const modelMemory = async () => (await faceModels()).tf.memory()
