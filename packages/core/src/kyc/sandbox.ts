/**
 * Deterministic sandbox adapters of the document reader, liveness provider and face
 * matcher. They read a marker the testkit embeds in the JPEG comment segment (COM, 0xFFFE):
 * `SIGNET-SANDBOX ` followed by JSON. docs/kyc.md lists the fixtures and their results.
 *
 * - document: `{"kind":"document","mrz":[...],"visual":{...},"authentic":true,"face":"alice"}`
 * - selfie/frame: `{"kind":"selfie","face":"alice","liveness":0.93,"similarity":0.7}`
 *   (`similarity`, when present, is what the matcher answers for this selfie, for boundary tests;
 *   `faceProblem`, on a selfie or a document, makes the matcher call that image unusable)
 * A document image without a marker is unreadable (refused). A frame without a marker is a
 * live capture (0.90) of an unknown face, which matches only a document whose face is `*`.
 */
import { Effect, Layer } from "effect"
import { mergeAdapters, sandboxAdapter } from "../ports/adapters.ts"
import { DocumentReader, FaceMatcher, LivenessProvider } from "./ports.ts"
import type { DocumentReading, FaceComparison, FaceProblem, KycDocument } from "./model.ts"

// Where an operator chooses another adapter for a KYC port (docs/configuration.md).
const KYC_SETTING = (variable: string) => `${variable}=local, or leave every SIGNET_KYC_* unset to run production without KYC`

/** The text that starts a sandbox marker. */
export const SANDBOX_MARKER = "SIGNET-SANDBOX "

/** What a sandbox marker may say. */
export interface SandboxMarker {
  readonly kind?: "document" | "selfie"
  readonly mrz?: ReadonlyArray<string>
  readonly visual?: Partial<KycDocument>
  readonly authentic?: boolean
  readonly accepted?: boolean
  readonly face?: string
  readonly liveness?: number
  readonly similarity?: number
  readonly faceProblem?: FaceProblem
}

/** The sandbox marker of a JPEG, if it has one (scans the segments before the image data). */
export const readSandboxMarker = (jpeg: Uint8Array): SandboxMarker | null => {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return null
  let i = 2
  while (i + 4 <= jpeg.length && jpeg[i] === 0xff) {
    const type = jpeg[i + 1]!
    const length = (jpeg[i + 2]! << 8) | jpeg[i + 3]!
    if (type === 0xda) break // start of scan: no more header segments
    if (type === 0xfe) {
      const text = new TextDecoder().decode(jpeg.subarray(i + 4, i + 2 + length))
      if (text.startsWith(SANDBOX_MARKER)) {
        try {
          return JSON.parse(text.slice(SANDBOX_MARKER.length)) as SandboxMarker
        } catch {
          return null
        }
      }
    }
    i += 2 + length
  }
  return null
}

/** Writes `marker` into a JPEG as a comment segment right after SOI. */
export const withSandboxMarker = (jpeg: Uint8Array, marker: SandboxMarker): Uint8Array => {
  const text = new TextEncoder().encode(SANDBOX_MARKER + JSON.stringify(marker))
  const length = text.length + 2
  const out = new Uint8Array(jpeg.length + 2 + length)
  out.set(jpeg.subarray(0, 2), 0)
  out.set([0xff, 0xfe, length >> 8, length & 0xff], 2)
  out.set(text, 6)
  out.set(jpeg.subarray(2), 6 + text.length)
  return out
}

/** Sandbox reader: the first image's marker (passport photo page or ID front) tells the reading. */
export const DocumentReaderSandbox = sandboxAdapter(
  { port: "KYC document reader", setting: KYC_SETTING("SIGNET_KYC_DOCUMENT_READER") },
  Layer.succeed(
    DocumentReader,
    DocumentReader.of({
      read: (images) =>
        Effect.sync((): DocumentReading => {
          const marker = images.map(readSandboxMarker).find((m) => m !== null && m.kind === "document") ?? null
          if (marker === null) return { mrz: null, visual: null, authentic: false, accepted: false }
          return { mrz: marker.mrz ?? null, visual: marker.visual ?? null, authentic: marker.authentic ?? true, accepted: marker.accepted ?? true }
        }),
    }),
  ),
)

/** Sandbox liveness: a marked frame gives its `liveness` (default 0.95); an unmarked JPEG 0.90; anything else asks to retry. */
export const LivenessProviderSandbox = sandboxAdapter(
  { port: "KYC liveness", setting: KYC_SETTING("SIGNET_KYC_LIVENESS") },
  Layer.succeed(
    LivenessProvider,
    LivenessProvider.of({
      assess: (frames) =>
        Effect.sync(() => {
          const jpegs = frames.filter((f) => f[0] === 0xff && f[1] === 0xd8)
          const best = jpegs.find((f) => readSandboxMarker(f) !== null) ?? jpegs[0]
          if (best === undefined) return { _tag: "Retry" as const, reason: "no_face_frame" }
          const marker = readSandboxMarker(best)
          return { _tag: "Confirmed" as const, score: marker === null ? 0.9 : (marker.liveness ?? 0.95), selfie: best }
        }),
    }),
  ),
)

/** Sandbox matcher: a `faceProblem` marks its image unusable; a selfie's explicit `similarity` wins; same face 0.95; a `*` document face 0.95; otherwise 0.10. */
export const FaceMatcherSandbox = sandboxAdapter(
  { port: "KYC face matcher", setting: KYC_SETTING("SIGNET_KYC_FACE_MATCHER") },
  Layer.succeed(
    FaceMatcher,
    FaceMatcher.of({
      compare: (reference, probe) =>
        Effect.sync((): FaceComparison => {
          const ref = readSandboxMarker(reference)
          const selfie = readSandboxMarker(probe)
          if (ref?.faceProblem !== undefined) return { _tag: "Unusable", side: "reference", reason: ref.faceProblem }
          if (selfie?.faceProblem !== undefined) return { _tag: "Unusable", side: "probe", reason: selfie.faceProblem }
          const compared = (similarity: number): FaceComparison => ({ _tag: "Compared", similarity })
          if (selfie?.similarity !== undefined) return compared(selfie.similarity)
          if (ref?.face === "*" || (ref?.face !== undefined && ref.face === selfie?.face)) return compared(0.95)
          return compared(0.1)
        }),
    }),
  ),
)

/** The three sandbox adapters. */
export const KycProvidersSandbox = mergeAdapters(DocumentReaderSandbox, LivenessProviderSandbox, FaceMatcherSandbox)
