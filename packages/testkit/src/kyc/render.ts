/**
 * Renders the fixture documents as images: a passport data page (TD3, 1600×1120) and an ID
 * card (TD1, 1600×1010) on a light background, with a grey face placeholder, a few fields of
 * the visual zone in the OCR-B-like font of `font.ts` and the MRZ at the bottom in OCR-B itself
 * (`ocrb.ts`, glyphs rasterised from the font); encoded as
 * a baseline JPEG (quality 85) by jpeg-js.
 */
import { Either } from "effect"
import jpeg from "jpeg-js"
import { mrzDate, parseMrz, type KycDocument, type Mrz } from "@signet/core"
import { GLYPH_COLS, GLYPH_ROWS, glyphMask } from "./font.ts"
import { drawOcrb, ocrbPitch } from "./ocrb.ts"

/** A greyscale image: one luminance byte per pixel, row by row. */
export interface GreyImage {
  readonly width: number
  readonly height: number
  readonly pixels: Uint8Array
}

/** The document layouts the renderer knows. */
export type DocumentLayout = "passport" | "id-card"

/** What a rendered document shows. */
export interface DocumentContent {
  readonly mrz: ReadonlyArray<string>
  readonly visual?: Partial<KycDocument> | undefined
  /** the holder's photo (scaled into the face box); a grey silhouette when absent */
  readonly photo?: GreyImage | undefined
}

const blank = (width: number, height: number, shade: number): GreyImage => ({ width, height, pixels: new Uint8Array(width * height).fill(shade) })

const fillRect = (img: GreyImage, x: number, y: number, w: number, h: number, shade: number): void => {
  for (let j = Math.max(0, y); j < Math.min(img.height, y + h); j++)
    img.pixels.fill(shade, j * img.width + Math.max(0, x), j * img.width + Math.min(img.width, x + w))
}

/** Draws `text` with cells of `cell` px from (x, y), one character every `GLYPH_COLS + 2` cells; returns the x after it. */
export const drawText = (img: GreyImage, text: string, x: number, y: number, cell: number, ink: number, weight?: number): number => {
  const pitch = (GLYPH_COLS + 2) * cell
  for (let k = 0; k < text.length; k++) {
    const mask = glyphMask(text[k]!, cell, weight)
    if (mask === null) continue
    const ox = Math.round(x + k * pitch) - mask.pad
    const oy = Math.round(y) - mask.pad
    for (let j = 0; j < mask.height; j++) {
      const row = oy + j
      if (row < 0 || row >= img.height) continue
      for (let i = 0; i < mask.width; i++) {
        const a = mask.alpha[j * mask.width + i]!
        const col = ox + i
        if (a === 0 || col < 0 || col >= img.width) continue
        const at = row * img.width + col
        img.pixels[at] = Math.round((img.pixels[at]! * (255 - a) + ink * a) / 255)
      }
    }
  }
  return x + text.length * pitch
}

/** A grey photo placeholder: a box with a lighter head-and-shoulders silhouette. */
const drawFace = (img: GreyImage, x: number, y: number, w: number, h: number): void => {
  fillRect(img, x, y, w, h, 168)
  const cx = x + w / 2
  const headY = y + h * 0.38
  const rx = w * 0.22
  const ry = h * 0.22
  for (let j = y; j < y + h; j++) {
    for (let i = x; i < x + w; i++) {
      const head = ((i - cx) / rx) ** 2 + ((j - headY) / ry) ** 2 <= 1
      const shoulders = j > y + h * 0.66 && ((i - cx) / (w * 0.42)) ** 2 + ((j - (y + h * 1.02)) / (h * 0.36)) ** 2 <= 1
      if (head || shoulders) img.pixels[j * img.width + i] = 206
    }
  }
  fillRect(img, x, y, w, 3, 120)
  fillRect(img, x, y + h - 3, w, 3, 120)
  fillRect(img, x, y, 3, h, 120)
  fillRect(img, x + w - 3, y, 3, h, 120)
}

/** Scales `photo` to cover the box (centre crop), bilinear. */
const drawPhoto = (img: GreyImage, photo: GreyImage, x: number, y: number, w: number, h: number): void => {
  const scale = Math.max(w / photo.width, h / photo.height)
  const ox = (photo.width * scale - w) / 2
  const oy = (photo.height * scale - h) / 2
  for (let j = 0; j < h; j++) {
    const sy = Math.min(photo.height - 1.001, Math.max(0, (j + oy) / scale))
    const y0 = Math.floor(sy)
    const fy = sy - y0
    for (let i = 0; i < w; i++) {
      const sx = Math.min(photo.width - 1.001, Math.max(0, (i + ox) / scale))
      const x0 = Math.floor(sx)
      const fx = sx - x0
      const p = (yy: number, xx: number) => photo.pixels[yy * photo.width + xx]!
      img.pixels[(y + j) * img.width + x + i] =
        (p(y0, x0) * (1 - fx) + p(y0, x0 + 1) * fx) * (1 - fy) + (p(y0 + 1, x0) * (1 - fx) + p(y0 + 1, x0 + 1) * fx) * fy
    }
  }
}

/** How a photographed document differs from the clean render. */
export interface Distortion {
  /** rotation, counter-clockwise, about the centre */
  readonly degrees?: number
  /** standard deviation of added pixel noise (luminance levels) */
  readonly noise?: number
  /** seed of the noise (deterministic fixtures) */
  readonly seed?: number
}

/** A photographed look: rotated by a few degrees (uncovered corners dark, as a table under the page), with pixel noise. */
export const distort = (img: GreyImage, d: Distortion): GreyImage => {
  const { width, height } = img
  const out = new Uint8Array(width * height).fill(60)
  const a = ((d.degrees ?? 0) * Math.PI) / 180
  const cos = Math.cos(a)
  const sin = Math.sin(a)
  let state = (d.seed ?? 1) >>> 0 || 1
  const uniform = () => {
    // xorshift32: deterministic noise without Math.random
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return ((state >>> 0) % 1_000_000) / 1_000_000
  }
  const sigma = d.noise ?? 0
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dx = x - width / 2
      const dy = y - height / 2
      const sx = cos * dx - sin * dy + width / 2
      const sy = sin * dx + cos * dy + height / 2
      const x0 = Math.floor(sx)
      const y0 = Math.floor(sy)
      let v = 60
      if (x0 >= 0 && y0 >= 0 && x0 + 1 < width && y0 + 1 < height) {
        const fx = sx - x0
        const fy = sy - y0
        const i = y0 * width + x0
        v = (img.pixels[i]! * (1 - fx) + img.pixels[i + 1]! * fx) * (1 - fy) + (img.pixels[i + width]! * (1 - fx) + img.pixels[i + width + 1]! * fx) * fy
      }
      if (sigma > 0) v += (uniform() + uniform() + uniform() - 1.5) * 2 * sigma
      out[y * width + x] = Math.max(0, Math.min(255, Math.round(v)))
    }
  }
  return { width, height, pixels: out }
}

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]

/** `YYMMDD` as printed in a visual zone (`15 JAN 1990`), or the raw text when not a date. */
const printedDate = (yymmdd: string, kind: "birth" | "expiry"): string => {
  const iso = mrzDate(yymmdd, kind, new Date().getUTCFullYear())
  return iso === null ? yymmdd : `${iso.slice(8, 10)} ${MONTHS[Number(iso.slice(5, 7)) - 1]!} ${iso.slice(0, 4)}`
}

/** Only what the font draws: upper case letters, digits, `<` and spaces. */
const printable = (s: string): string =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .replace(/[^A-Z0-9< ]+/g, " ")

/** The visual-zone fields, from the marker's visual part where given, else from the MRZ. */
const fields = (content: DocumentContent, layout: DocumentLayout): Array<[string, string]> => {
  const parsed = parseMrz(content.mrz)
  const mrz: Mrz | null = Either.isRight(parsed) ? parsed.right : null
  const v = content.visual ?? {}
  return [
    [layout === "passport" ? "PASSPORT NO" : "DOCUMENT NO", v.docNumber ?? mrz?.documentNumber ?? ""],
    ["SURNAME", v.surname ?? mrz?.surname ?? ""],
    ["GIVEN NAMES", v.givenNames ?? mrz?.givenNames ?? ""],
    ["NATIONALITY", v.nationality ?? mrz?.nationality ?? ""],
    ["DATE OF BIRTH", mrz === null ? (v.dateOfBirth ?? "") : printedDate(mrz.dateOfBirth, "birth")],
    ["SEX", mrz?.sex ?? ""],
    ["DATE OF EXPIRY", mrz === null ? (v.docExpiry ?? "") : printedDate(mrz.expiryDate, "expiry")],
  ]
}

/** The geometry of a layout: page size, face box, field column, MRZ cell size and line pitch. */
const LAYOUTS = {
  passport: {
    width: 1600,
    height: 1120,
    title: "PASSPORT",
    face: [80, 190, 400, 520],
    fieldsX: 540,
    fieldsY: 190,
    fieldStep: 92,
    labelCell: 2.4,
    valueCell: 3.8,
    mrzCell: 3.6,
    mrzLineStep: 72,
    mrzBottom: 60,
  },
  "id-card": {
    width: 1600,
    height: 1010,
    title: "IDENTITY CARD",
    face: [70, 160, 380, 480],
    fieldsX: 510,
    fieldsY: 150,
    fieldStep: 76,
    labelCell: 2.4,
    valueCell: 3.8,
    mrzCell: 5.2,
    mrzLineStep: 74,
    mrzBottom: 40,
  },
} as const

/** Renders a document page (greyscale): header, face, fields, and the MRZ lines at the bottom, centred. */
export const renderDocument = (layout: DocumentLayout, content: DocumentContent): GreyImage => {
  const L = LAYOUTS[layout]
  const img = blank(L.width, L.height, 238)
  // a faint tinted band behind the header, and a guilloche-like wave across the visual zone
  fillRect(img, 0, 0, L.width, 120, 222)
  for (let j = 120; j < L.height - 300; j += 2) {
    for (let i = 0; i < L.width; i++) {
      if (Math.abs(Math.sin(i / 37 + j / 53) * 18 + Math.cos(j / 29) * 9 - ((i + j) % 60) + 30) < 0.6) img.pixels[j * L.width + i] = 226
    }
  }
  const issuing = printable(content.mrz[0]?.slice(2, 5).replace(/</g, "") ?? "")
  drawText(img, `${L.title}  ${issuing}`, 60, 38, 4.4, 70, 1.25)
  const [fx, fy, fw, fh] = L.face
  if (content.photo === undefined) drawFace(img, fx, fy, fw, fh)
  else drawPhoto(img, content.photo, fx, fy, fw, fh)
  fields(content, layout).forEach(([label, value], k) => {
    const y = L.fieldsY + k * L.fieldStep
    drawText(img, label, L.fieldsX, y, L.labelCell, 110)
    drawText(img, printable(value), L.fieldsX, y + GLYPH_ROWS * L.labelCell + 12, L.valueCell, 28)
  })
  // MRZ: a clear band, lines bottom-up, fixed pitch, centred
  const lines = content.mrz.map(printable)
  const mrzTop = L.height - L.mrzBottom - (lines.length - 1) * L.mrzLineStep - GLYPH_ROWS * L.mrzCell
  fillRect(img, 0, mrzTop - 36, L.width, L.height - mrzTop + 36, 246)
  const cap = GLYPH_ROWS * L.mrzCell
  lines.forEach((line, k) => {
    const x = (L.width - line.length * ocrbPitch(cap)) / 2
    drawOcrb(img, line, x, mrzTop + k * L.mrzLineStep, cap, 18)
  })
  return img
}

/** The rows the MRZ text of a layout with `lines` lines covers (tests measure it). */
export const mrzBand = (layout: DocumentLayout, lines: number): { readonly top: number; readonly bottom: number } => {
  const L = LAYOUTS[layout]
  const top = L.height - L.mrzBottom - (lines - 1) * L.mrzLineStep - GLYPH_ROWS * L.mrzCell
  return { top: Math.floor(top), bottom: Math.ceil(L.height - L.mrzBottom) }
}

/** A baseline JPEG of a greyscale image (quality 85 by default). */
export const encodeJpeg = (img: GreyImage, quality = 85): Uint8Array => {
  const rgba = new Uint8Array(img.width * img.height * 4)
  for (let p = 0, q = 0; p < img.pixels.length; p++, q += 4) {
    const v = img.pixels[p]!
    rgba[q] = v
    rgba[q + 1] = v
    rgba[q + 2] = v
    rgba[q + 3] = 255
  }
  const out = jpeg.encode({ data: rgba, width: img.width, height: img.height }, quality).data
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
}
