/**
 * The local face matcher: the largest face of each image (detector confidence and size
 * checked), its face-description embedding, cosine similarity, and a calibrated mapping to
 * the 0..1 score the verdict compares with 0.75 (match) and 0.65 (review).
 */
import { createHash } from "node:crypto"
import { FaceMatcher } from "@signet/core"
import { Effect, Layer } from "effect"
import { decodeRgb, fitRgb } from "./image.ts"
import { detectFaces, type DetectedFace } from "./models.ts"

/**
 * Cosine anchors measured by `calibration/calibrate.ts` (results in calibration/results.json
 * and docs/kyc-local.md): `review` sits just above the most similar pair of different people,
 * `match` sits below the lowest same-person variant. Scores are piecewise linear between
 * the anchors: cos ≤ 0 → 0, `review` → 0.65, `match` → 0.75, 1 → 1.
 */
export const CALIBRATION = { review: 0.64, match: 0.72 } as const

/** Faces smaller than this (pixels, shorter side of the box) or less certain than this are not matched. */
export const FACE_QUALITY = { minSide: 48, minScore: 0.5 } as const

/** The verdict score of a cosine similarity. */
export const calibrated = (cos: number, anchors: { readonly review: number; readonly match: number } = CALIBRATION): number => {
  const c = Math.max(0, Math.min(1, cos))
  if (c <= anchors.review) return (c / anchors.review) * 0.65
  if (c <= anchors.match) return 0.65 + ((c - anchors.review) / (anchors.match - anchors.review)) * 0.1
  return 0.75 + ((c - anchors.match) / (1 - anchors.match)) * 0.25
}

/** Cosine similarity of two embeddings. */
export const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    dot += a[k]! * b[k]!
    na += a[k]! * a[k]!
    nb += b[k]! * b[k]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/** Only the models the matcher needs (detector, mesh for alignment, description). */
export const MATCH_MODELS = { face: { iris: { enabled: false }, antispoof: { enabled: false }, liveness: { enabled: false } } } as const

type Usable = DetectedFace | "no_image" | "no_face" | "face_too_small"

// The last few images' faces, by SHA-256 of the bytes: a document image is compared with each
// new capture and with compare requests; bounded, process-local, never persisted.
const recent = new Map<string, Usable>()
const RECENT_MAX = 32

/** The face of an image good enough to match, or why not (the last 32 images are remembered). */
export const usableFace = async (jpeg: Uint8Array): Promise<Usable> => {
  const key = createHash("sha256").update(jpeg).digest("hex")
  const known = recent.get(key)
  if (known !== undefined) return known
  const face = await findFace(jpeg)
  recent.set(key, face)
  if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value!)
  return face
}

const findFace = async (jpeg: Uint8Array): Promise<Usable> => {
  const rgb = decodeRgb(jpeg)
  if (rgb === null) return "no_image"
  const faces = await detectFaces(fitRgb(rgb, 1280), MATCH_MODELS)
  const face = faces.find((f) => f.score >= FACE_QUALITY.minScore && f.embedding.length > 0)
  if (face === undefined) return "no_face"
  if (Math.min(face.box[2], face.box[3]) < FACE_QUALITY.minSide) return "face_too_small"
  return face
}

/** Raw cosine and calibrated score of two face images; 0 when either has no usable face. */
export const faceSimilarity = async (reference: Uint8Array, probe: Uint8Array): Promise<{ readonly cosine: number; readonly score: number }> => {
  const a = await usableFace(reference)
  if (typeof a === "string") return { cosine: 0, score: 0 }
  const b = await usableFace(probe)
  if (typeof b === "string") return { cosine: 0, score: 0 }
  const cos = cosine(a.embedding, b.embedding)
  return { cosine: cos, score: calibrated(cos) }
}

/** The local face matcher as the core port. */
export const FaceMatcherLocal = Layer.succeed(
  FaceMatcher,
  FaceMatcher.of({
    similarity: (reference, probe) => Effect.promise(async () => (await faceSimilarity(reference, probe)).score),
  }),
)
