/**
 * The local liveness check: an active challenge over the capture's frames (the head must
 * move: turn, nod, or come closer, measured from the face box and the mesh's head pose) plus
 * the anti-spoof and liveness models of `@vladmandic/human`. NOT certified presentation-attack
 * detection (ISO/IEC 30107-3): a replayed video of the person defeats it. Certified providers
 * plug into the same `LivenessProvider` port (docs/kyc-local.md).
 */
import { LivenessProvider, type LivenessResult } from "@signet/core"
import { Effect, Layer } from "effect"
import { cosine, CALIBRATION, FACE_QUALITY } from "./face-matcher.ts"
import { decodeRgb, fitRgb } from "./image.ts"
import { detectFaces, type DetectedFace } from "./models.ts"

/** The frames that are judged (the first ones sent); more are ignored. */
export const MAX_FRAMES = 6
/** At least this many frames must show one usable face. */
export const MIN_FRAMES = 3
/** Movement that meets the challenge: head yaw/pitch range (radians), or face centre shift / size change relative to the face size. */
export const CHALLENGE = { pose: 0.2, shift: 0.12, scale: 0.12 } as const

const LIVENESS_MODELS = { face: { iris: { enabled: false } } } as const

/** The liveness result of capture frames (JPEG bytes). */
export const assessLiveness = async (frames: ReadonlyArray<Uint8Array>): Promise<LivenessResult & { readonly detail?: Record<string, number> }> => {
  const seen: Array<{ readonly face: DetectedFace; readonly jpeg: Uint8Array }> = []
  let several = false
  for (const jpeg of frames.slice(0, MAX_FRAMES)) {
    const rgb = decodeRgb(jpeg)
    if (rgb === null) continue
    const faces = (await detectFaces(fitRgb(rgb, 1280), LIVENESS_MODELS)).filter((f) => f.score >= FACE_QUALITY.minScore)
    if (faces.length > 1) several = true
    const face = faces[0]
    if (face !== undefined && faces.length === 1 && Math.min(face.box[2], face.box[3]) >= FACE_QUALITY.minSide) seen.push({ face, jpeg })
  }
  if (seen.length < MIN_FRAMES) return { _tag: "Retry", reason: several ? "several_faces" : "no_face_frame" }
  const first = seen[0]!.face
  // one person throughout: every frame's face matches the first
  if (seen.some((s) => cosine(s.face.embedding, first.embedding) < CALIBRATION.match)) return { _tag: "Retry", reason: "face_changed" }
  const range = (f: (d: DetectedFace) => number) => Math.max(...seen.map((s) => f(s.face))) - Math.min(...seen.map((s) => f(s.face)))
  const size = first.box[2]
  const pose = Math.max(
    range((d) => d.yaw),
    range((d) => d.pitch),
  )
  const shift =
    Math.max(
      range((d) => d.box[0] + d.box[2] / 2),
      range((d) => d.box[1] + d.box[3] / 2),
    ) / size
  const scale = range((d) => d.box[2]) / size
  const moved = pose >= CHALLENGE.pose || shift >= CHALLENGE.shift || scale >= CHALLENGE.scale
  if (!moved) return { _tag: "Retry", reason: "challenge_not_met" }
  const mean = (f: (d: DetectedFace) => number) => seen.reduce((n, s) => n + f(s.face), 0) / seen.length
  const real = mean((d) => d.real)
  const live = mean((d) => d.live)
  // the challenge met gives half; the models' signals the other half
  const score = Math.round((0.5 + 0.25 * real + 0.25 * live) * 1000) / 1000
  const best = seen.reduce((a, b) => (b.face.score * b.face.box[2] > a.face.score * a.face.box[2] ? b : a))
  return { _tag: "Confirmed", score, selfie: best.jpeg, detail: { pose, shift, scale, real, live } }
}

/** The local liveness provider as the core port. */
export const LivenessProviderLocal = Layer.succeed(
  LivenessProvider,
  LivenessProvider.of({
    assess: (frames) =>
      Effect.promise(async (): Promise<LivenessResult> => {
        const result = await assessLiveness(frames)
        return result._tag === "Confirmed" ? { _tag: "Confirmed", score: result.score, selfie: result.selfie } : { _tag: "Retry", reason: result.reason }
      }),
  }),
)
