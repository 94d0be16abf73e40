/**
 * The rendered image of a completed signature (`GET /v2/sign/{requestId}/image`): a PNG card
 * with the signer's own image (when set) and the facts that let anyone check the signature —
 * signer name, signing time, certificate serial, request id, document hash and where to verify.
 */
import { isConsoleToken } from "../authorization/principals.ts"
import { ResourceNotFound } from "../kernel/errors.ts"
import { SigningRequestNotCompleted } from "./errors.ts"
import { RelyingParties } from "../rp/ports.ts"
import { SigningRequests } from "../signing/ports.ts"
import { Users } from "../identity/ports.ts"
import { Effect, Option } from "effect"
import type { BearerUser } from "../identity/access-token.ts"
import { EngineConfig, issuerOf } from "../ports/engine-config.ts"
import { FONT_COLS, FONT_ROWS, glyphRows } from "./font.ts"
import { encodePng, type Bitmap } from "../kernel/png.ts"
import { signatureImageOf } from "./signature-image.ts"

type Rgb = readonly [number, number, number]

/** A white RGBA canvas with the few drawing operations the card needs. */
class Canvas {
  readonly rgba: Uint8Array
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.rgba = new Uint8Array(width * height * 4).fill(255)
  }
  fill(x: number, y: number, w: number, h: number, [r, g, b]: Rgb) {
    for (let j = Math.max(0, y); j < Math.min(this.height, y + h); j++) {
      for (let i = Math.max(0, x); i < Math.min(this.width, x + w); i++) {
        const o = (j * this.width + i) * 4
        this.rgba[o] = r
        this.rgba[o + 1] = g
        this.rgba[o + 2] = b
        this.rgba[o + 3] = 255
      }
    }
  }
  /** Draws `text` with cells of `cell` px; answers the x after the last glyph. */
  text(x: number, y: number, text: string, cell: number, colour: Rgb): number {
    let at = x
    for (const char of text) {
      const rows = glyphRows(char)
      if (rows !== null) {
        rows.forEach((row, j) => {
          for (let i = 0; i < FONT_COLS; i++) if (row[i] === "#") this.fill(at + i * cell, y + j * cell, cell, cell, colour)
        })
      }
      at += (FONT_COLS + 1) * cell
    }
    return at
  }
  /** Draws `image` scaled (box-averaged, alpha over white) to fit `w`×`h` at (`x`, `y`), centred. */
  image(x: number, y: number, w: number, h: number, image: Bitmap) {
    const scale = Math.min(w / image.width, h / image.height, 1)
    const dw = Math.max(1, Math.round(image.width * scale))
    const dh = Math.max(1, Math.round(image.height * scale))
    const ox = x + Math.floor((w - dw) / 2)
    const oy = y + Math.floor((h - dh) / 2)
    for (let j = 0; j < dh; j++) {
      for (let i = 0; i < dw; i++) {
        const sx0 = Math.floor((i * image.width) / dw),
          sx1 = Math.max(sx0 + 1, Math.floor(((i + 1) * image.width) / dw))
        const sy0 = Math.floor((j * image.height) / dh),
          sy1 = Math.max(sy0 + 1, Math.floor(((j + 1) * image.height) / dh))
        let r = 0,
          g = 0,
          b = 0,
          n = 0
        for (let sy = sy0; sy < sy1; sy++) {
          for (let sx = sx0; sx < sx1; sx++) {
            const s = (sy * image.width + sx) * 4
            const a = image.rgba[s + 3]! / 255
            r += image.rgba[s]! * a + 255 * (1 - a)
            g += image.rgba[s + 1]! * a + 255 * (1 - a)
            b += image.rgba[s + 2]! * a + 255 * (1 - a)
            n++
          }
        }
        this.fill(ox + i, oy + j, 1, 1, [Math.round(r / n), Math.round(g / n), Math.round(b / n)])
      }
    }
  }
}

const INK: Rgb = [16, 42, 92]
const MUTED: Rgb = [90, 100, 120]
const RULE: Rgb = [16, 42, 92]
const MARGIN = 20
const IMAGE_BOX = { width: 260, height: 130 }
const BODY_CELL = 2
const NAME_CELL = 3
/** Characters per text line at the body size before it wraps. */
const LINE_CHARS = 40

const wrap = (text: string, width: number): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += width) out.push(text.slice(i, i + width))
  return out.length === 0 ? [""] : out
}

/** The card for the given facts (exposed for tests and for other renderers). */
export const renderSignatureCard = (facts: {
  readonly signerName: string
  readonly signedAt: number
  readonly certificateSerial: string
  readonly requestId: string
  readonly documentHash: string
  readonly verifyUrl: string
  readonly signerImage: Bitmap | null
}): Effect.Effect<Uint8Array> => {
  const time = new Date(facts.signedAt)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC")
  const name = Array.from(facts.signerName).slice(0, 28).join("")
  const value = (text: string) => wrap(text, LINE_CHARS).map((l) => [l, INK] as const)
  const body: Array<readonly [string, Rgb]> = [
    [`ON ${time}`, INK],
    ["CERTIFICATE SERIAL", MUTED],
    ...value(facts.certificateSerial),
    ["SIGNING REQUEST", MUTED],
    ...value(facts.requestId),
    ["DOCUMENT SHA-256", MUTED],
    ...wrap(facts.documentHash, 32).map((l) => [l, INK] as const),
    ["VERIFY AT", MUTED],
    ...value(facts.verifyUrl),
  ]
  const bodyLine = (FONT_ROWS + 3) * BODY_CELL
  const textX = MARGIN + IMAGE_BOX.width + MARGIN
  const textWidth = LINE_CHARS * (FONT_COLS + 1) * BODY_CELL
  const width = textX + textWidth + MARGIN
  const textHeight = 2 * bodyLine + (FONT_ROWS + 3) * NAME_CELL + body.length * bodyLine
  const height = MARGIN * 2 + Math.max(IMAGE_BOX.height, textHeight)
  const canvas = new Canvas(width, height)
  canvas.fill(0, 0, width, 3, RULE)
  canvas.fill(0, height - 3, width, 3, RULE)
  canvas.fill(0, 0, 3, height, RULE)
  canvas.fill(width - 3, 0, 3, height, RULE)
  if (facts.signerImage !== null) canvas.image(MARGIN, MARGIN, IMAGE_BOX.width, IMAGE_BOX.height, facts.signerImage)
  else canvas.text(MARGIN + 10, MARGIN + IMAGE_BOX.height / 2 - 10, "SIGNED WITH PASSKEY", BODY_CELL, MUTED)
  let y = MARGIN
  canvas.text(textX, y, "DIGITALLY SIGNED BY", BODY_CELL, MUTED)
  y += 2 * bodyLine - BODY_CELL * 4
  canvas.text(textX, y, name, NAME_CELL, INK)
  y += (FONT_ROWS + 3) * NAME_CELL + BODY_CELL * 4
  for (const [line, colour] of body) {
    canvas.text(textX, y, line, BODY_CELL, colour)
    y += bodyLine
  }
  return encodePng({ width, height, rgba: canvas.rgba })
}

/**
 * `GET /v2/sign/{requestId}/image`: the card of a completed request, for its signer or the
 * contact account of the RP that asked for it; anyone else gets 404 (the id is not confirmed).
 */
export const renderSignatureImage = (user: BearerUser, requestId: string) =>
  Effect.gen(function* () {
    const notFound = new ResourceNotFound({ what: "Signing request" })
    const found = yield* Effect.flatMap(SigningRequests, (r) => r.findById(requestId))
    if (Option.isNone(found)) return yield* notFound
    const request = found.value
    // A signing request is its RP's record: only a token issued to that RP or to the console reaches it.
    if (request.clientId !== user.clientId && !isConsoleToken(user)) return yield* notFound
    if (request.userId !== user.userId) {
      const rp = yield* Effect.flatMap(RelyingParties, (r) => r.findByClientId(request.clientId))
      if (Option.isNone(rp) || rp.value.contactUserId !== user.userId) return yield* notFound
    }
    if (request.status !== "completed" || request.completedAt === null || request.certificateSerial === null) {
      return yield* new SigningRequestNotCompleted()
    }
    const signer = yield* Effect.flatMap(Users, (u) => u.findById(request.userId))
    const image = yield* signatureImageOf(request.userId)
    const settings = yield* EngineConfig
    return yield* renderSignatureCard({
      signerName: Option.match(signer, { onNone: () => "(deleted account)", onSome: (u) => u.displayName.trim() || u.email }),
      signedAt: request.completedAt,
      certificateSerial: request.certificateSerial,
      requestId: request.id,
      documentHash: request.documentHash,
      verifyUrl: `${issuerOf(settings)}/v2/validate`,
      signerImage: Option.match(image, { onNone: () => null, onSome: (i) => i.bitmap }),
    })
  })
