/** KYC test kit: sandbox fixture JPEGs (documents, selfies, frames) the sandbox adapters recognise. */
import { composeTd3, type FaceProblem, fromBase64, toBase64, withSandboxMarker, type KycDocument, type SandboxMarker } from "@signet/core"
import { composeTd1 } from "./documents.ts"
import { encodeJpeg, renderDocument, type DocumentLayout } from "./render.ts"

/** A tiny baseline JPEG (1×1) the fixtures carry their marker in. */
const BASE_JPEG = fromBase64(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
)!

/** The layout a document marker is drawn with: two MRZ lines → passport page, three → ID card; else none. */
const layoutOf = (marker: SandboxMarker): DocumentLayout | null =>
  marker.kind !== "document" || marker.mrz === undefined ? null : marker.mrz.length === 3 ? "id-card" : marker.mrz.length === 2 ? "passport" : null

const rendered = new Map<string, string>()

// A document marker with an MRZ gets a rendered page (passport or ID card, cached per marker);
// anything else the 1×1 image. The marker is a comment segment right after SOI either way.
/** A JPEG carrying `marker`, as base64 (what the endpoints take). */
export const sandboxJpeg = (marker: SandboxMarker): string => {
  const layout = layoutOf(marker)
  if (layout === null || marker.mrz === undefined) return toBase64(withSandboxMarker(BASE_JPEG, marker))
  const key = JSON.stringify(marker)
  const cached = rendered.get(key)
  if (cached !== undefined) return cached
  const jpeg = encodeJpeg(renderDocument(layout, { mrz: marker.mrz, visual: marker.visual }))
  const out = Buffer.from(withSandboxMarker(jpeg, marker)).toString("base64")
  rendered.set(key, out)
  return out
}

/** A JPEG without a marker, as base64 (an unreadable document; a live capture of an unknown face). */
export const plainJpeg = (): string => toBase64(BASE_JPEG)

/** The person of the passing fixtures. */
export const ALICE = {
  surname: "Otieno",
  givenNames: "Grace Akinyi",
  documentNumber: "AK1234567",
  personalNumber: "12345678",
  nationality: "KEN",
  dateOfBirth: "900115",
  expiryDate: "340101",
  sex: "F",
} as const

/** A passport photo page whose MRZ passes, with the face `face`. */
export const passport = (face = "alice", over: Partial<{ expiryDate: string; visualSurname: string }> = {}): string => {
  const mrz = composeTd3({ issuingState: "KEN", ...ALICE, ...(over.expiryDate ? { expiryDate: over.expiryDate } : {}) })
  const visual: Partial<KycDocument> = { surname: over.visualSurname ?? ALICE.surname, givenNames: ALICE.givenNames }
  return sandboxJpeg({ kind: "document", mrz, visual, face })
}

/** A national ID card (TD1 MRZ that passes), with the face `face`. */
export const idCard = (face = "alice"): string => {
  const mrz = composeTd1({ issuingState: "KEN", ...ALICE, optionalData: ALICE.personalNumber })
  return sandboxJpeg({ kind: "document", mrz, visual: { surname: ALICE.surname, givenNames: ALICE.givenNames }, face })
}

/** A passport whose MRZ has a broken check digit (→ failed, `document_not_authentic`). */
export const passportBadMrz = (): string => {
  const [l1, l2] = composeTd3({ issuingState: "KEN", ...ALICE })
  const broken = l2.slice(0, 9) + String((Number(l2[9]) + 1) % 10) + l2.slice(10)
  return sandboxJpeg({ kind: "document", mrz: [l1, broken], face: "alice" })
}

/** A document the reader flags as not authentic. */
export const forgedId = (): string => sandboxJpeg({ kind: "document", mrz: composeTd3({ issuingState: "KEN", ...ALICE }), authentic: false, face: "alice" })

/** A selfie frame of `face` with a liveness score, and an optional forced similarity (boundary tests). */
export const selfie = (face = "alice", liveness = 0.95, similarity?: number): string =>
  sandboxJpeg({ kind: "selfie", face, liveness, ...(similarity === undefined ? {} : { similarity }) })

/** A live selfie frame the face matcher cannot use (`problem`: e.g. `face_turned`), for the retry path. */
export const unusableSelfie = (problem: FaceProblem, face = "alice"): string => sandboxJpeg({ kind: "selfie", face, liveness: 0.95, faceProblem: problem })

/**
 * A small 4:2:0 Y4M clip for Chromium's fake camera (`--use-file-for-fake-video-capture`): a
 * lit background with a darker oval (a "face") that drifts a little. Frames grabbed from it
 * carry no sandbox marker: the sandbox confirms them as a live capture (0.90) of an unknown
 * face, which matches only a document whose face is `*` (docs/kyc.md, "Fake camera in the sandbox").
 */
export const fakeCameraY4m = (width = 640, height = 480, frames = 12): Uint8Array => {
  const header = new TextEncoder().encode(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`)
  const frameTag = new TextEncoder().encode("FRAME\n")
  const chroma = (width / 2) * (height / 2)
  const frameBytes = frameTag.length + width * height + 2 * chroma
  const out = new Uint8Array(header.length + frames * frameBytes)
  out.set(header)
  for (let f = 0; f < frames; f++) {
    let at = header.length + f * frameBytes
    out.set(frameTag, at)
    at += frameTag.length
    const cx = width / 2 + (f % 4) * 2
    const cy = height / 2
    for (let j = 0; j < height; j++) {
      for (let i = 0; i < width; i++) {
        const inside = ((i - cx) / (width * 0.17)) ** 2 + ((j - cy) / (height * 0.32)) ** 2 <= 1
        out[at + j * width + i] = inside ? 150 : 200 - Math.floor((j / height) * 40)
      }
    }
    at += width * height
    out.fill(120, at, at + chroma) // U
    out.fill(140, at + chroma, at + 2 * chroma) // V
  }
  return out
}
export { composeTd1, documentCases, tamper, type DocumentCase } from "./documents.ts"
export { distort, encodeJpeg, renderDocument, mrzBand, type Distortion, type DocumentContent, type DocumentLayout, type GreyImage } from "./render.ts"
