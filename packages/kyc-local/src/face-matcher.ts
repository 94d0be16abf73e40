/**
 * The local face matcher: the largest face of each image, checked for what a person can fix
 * (several faces, size, pose, light, sharpness: an unusable image is named, not scored), its
 * face-description embedding on the greyscale image, cosine similarity, and a calibrated
 * mapping to the 0..1 score the verdict compares with 0.75 (match) and 0.65 (review).
 */
import { createHash } from "node:crypto"
import { type FaceComparison, FaceMatcher, type FaceProblem } from "@signet/core"
import { Effect, Layer } from "effect"
import { faceQuality, greyRgb } from "./face-quality.ts"
import { decodeRgb, fitRgb, type Rgb } from "./image.ts"
import { detectFaces, type DetectedFace } from "./models.ts"

/**
 * Cosine anchors set by `calibration/faces-eval.ts` on the calibration half of labelled
 * public photos (different photos of one person; docs/kyc-local.md, "Face matcher"):
 * `review` sits 0.03 above the most similar pair of different people (0.617), `match` 0.02
 * above `review` (the genuine pairs overlap the impostors, so no higher anchor keeps the
 * impostors below review with a margin and most genuine pairs above match). Scores are
 * piecewise linear between the anchors: cos ≤ 0 → 0, `review` → 0.65, `match` → 0.75, 1 → 1.
 */
export const CALIBRATION = { review: 0.647, match: 0.667 } as const

/**
 * What makes a face usable (docs/kyc-local.md, "Retry reasons"): detector confidence; the
 * shorter side of its box (pixels, after fitting the image into 1280 px); head pose from the
 * mesh (degrees of yaw and pitch); luminance and sharpness of the face (`face-quality.ts`);
 * and a second face at least `otherFace` times the first one's side is "several faces" (an
 * ID card's small ghost portrait is far smaller, so it does not count).
 */
export const FACE_QUALITY = { minSide: 48, minScore: 0.5, maxYaw: 30, maxPitch: 25, minBrightness: 40, minSharpness: 0.17, otherFace: 0.6 } as const

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
export const MATCH_MODELS = {
  // description.crop: the descriptor sees the mesh-aligned face crop less 5 % on each side (on the
  // calibration photos 77 % of genuine pairs above the closest impostor pair, against 75 % uncropped)
  face: { iris: { enabled: false }, antispoof: { enabled: false }, liveness: { enabled: false }, description: { crop: 0.05 } },
} as const

/** A usable face, or why the image has none. */
export type FaceCheck = { readonly face: DetectedFace } | { readonly problem: FaceProblem }

// The last few images' faces, by SHA-256 of the bytes: a document image is compared with each
// new capture and with compare requests; bounded, process-local, never persisted.
const recent = new Map<string, FaceCheck>()
const RECENT_MAX = 32

/** The face of an image good enough to match, or why not (the last 32 images are remembered). */
export const usableFace = async (jpeg: Uint8Array): Promise<FaceCheck> => {
  const key = createHash("sha256").update(jpeg).digest("hex")
  const known = recent.get(key)
  if (known !== undefined) return known
  const rgb = decodeRgb(jpeg)
  // not a decodable JPEG: as far as the matcher can tell, no face was sent
  // greyscale before the models: an ID portrait is often grey, and on the calibration photos grey
  // inputs separated genuine pairs from impostors better than colour (docs/kyc-local.md)
  const face = rgb === null ? { problem: "no_face" as const } : await checkFace(greyRgb(fitRgb(rgb, 1280)))
  recent.set(key, face)
  if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value!)
  return face
}

/** The checks of `FACE_QUALITY`, in the order a person would fix them. */
export const checkFace = async (rgb: Rgb): Promise<FaceCheck> => {
  const faces = (await detectFaces(rgb, MATCH_MODELS)).filter((f) => f.score >= FACE_QUALITY.minScore && f.embedding.length > 0)
  const face = faces[0]
  if (face === undefined) return { problem: "no_face" }
  const side = Math.min(face.box[2], face.box[3])
  // another face of comparable size outside this one (a second detection of the same face overlaps it)
  const [x, y, w, h] = face.box
  const elsewhere = (f: DetectedFace) => {
    const cx = f.box[0] + f.box[2] / 2
    const cy = f.box[1] + f.box[3] / 2
    return cx < x || cx > x + w || cy < y || cy > y + h
  }
  if (faces.slice(1).some((f) => Math.min(f.box[2], f.box[3]) >= side * FACE_QUALITY.otherFace && elsewhere(f))) return { problem: "several_faces" }
  if (side < FACE_QUALITY.minSide) return { problem: "face_too_small" }
  if (Math.abs(degrees(face.yaw)) > FACE_QUALITY.maxYaw || Math.abs(degrees(face.pitch)) > FACE_QUALITY.maxPitch) return { problem: "face_turned" }
  const quality = faceQuality(rgb, face.box)
  if (quality.brightness < FACE_QUALITY.minBrightness) return { problem: "face_too_dark" }
  if (quality.sharpness < FACE_QUALITY.minSharpness) return { problem: "face_blurred" }
  return { face }
}

const degrees = (radians: number) => (radians * 180) / Math.PI

/** Two face images compared: the calibrated score and raw cosine, or which one is unusable and why. */
export const compareFaces = async (reference: Uint8Array, probe: Uint8Array): Promise<FaceComparison & { readonly cosine?: number }> => {
  const a = await usableFace(reference)
  if ("problem" in a) return { _tag: "Unusable", side: "reference", reason: a.problem }
  const b = await usableFace(probe)
  if ("problem" in b) return { _tag: "Unusable", side: "probe", reason: b.problem }
  const cos = cosine(a.face.embedding, b.face.embedding)
  return { _tag: "Compared", similarity: calibrated(cos), cosine: cos }
}

/** Raw cosine and calibrated score of two face images; 0 when either has no usable face. */
export const faceSimilarity = async (reference: Uint8Array, probe: Uint8Array): Promise<{ readonly cosine: number; readonly score: number }> => {
  const c = await compareFaces(reference, probe)
  return c._tag === "Compared" ? { cosine: c.cosine ?? 0, score: c.similarity } : { cosine: 0, score: 0 }
}

/** The local face matcher as the core port. */
export const FaceMatcherLocal = Layer.succeed(
  FaceMatcher,
  FaceMatcher.of({
    compare: (reference, probe) =>
      Effect.promise(async (): Promise<FaceComparison> => {
        const c = await compareFaces(reference, probe)
        return c._tag === "Compared" ? { _tag: "Compared", similarity: c.similarity } : c
      }),
  }),
)
