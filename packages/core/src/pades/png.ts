/** A PNG signature image as PDF image XObjects (colour, and an SMask for its alpha). */
import { Effect } from "effect"
import { SignatureImageInvalid } from "../errors/catalogue.ts"
import { deflate, inflate, unpredictPng } from "./filters.ts"
import { dict, name, PdfString, PdfStream, type PdfValue } from "./objects.ts"

/** A decoded image ready to write: the colour image, and its alpha as a soft mask. */
export interface PngImage {
  readonly width: number
  readonly height: number
  readonly image: (smask: PdfValue | undefined) => PdfStream
  readonly smask: PdfStream | undefined
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }
const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10]

const invalid = (detail: string) => new SignatureImageInvalid({ detail })

/** Decodes a PNG (colour types 0, 2, 3, 4, 6 at 8 bits, not interlaced). */
export const decodePng = (png: Uint8Array): Effect.Effect<PngImage, SignatureImageInvalid> =>
  Effect.gen(function* () {
    if (png.length < 8 || SIGNATURE.some((b, i) => png[i] !== b)) return yield* invalid("not a PNG")
    const view = new DataView(png.buffer, png.byteOffset, png.byteLength)
    let at = 8
    let header: { width: number; height: number; depth: number; colour: number; interlace: number } | undefined
    let palette: Uint8Array | undefined
    const idat: Array<Uint8Array> = []
    while (at + 8 <= png.length) {
      const length = view.getUint32(at)
      const type = String.fromCharCode(...png.subarray(at + 4, at + 8))
      const data = png.subarray(at + 8, at + 8 + length)
      if (data.length !== length) return yield* invalid("truncated")
      if (type === "IHDR") header = { width: view.getUint32(at + 8), height: view.getUint32(at + 12), depth: data[8]!, colour: data[9]!, interlace: data[12]! }
      else if (type === "PLTE") palette = data
      else if (type === "IDAT") idat.push(data)
      else if (type === "IEND") break
      at += 12 + length
    }
    if (header === undefined || idat.length === 0) return yield* invalid("no IHDR or image data")
    const channels = CHANNELS[header.colour]
    if (header.depth !== 8 || header.interlace !== 0 || channels === undefined) return yield* invalid(`bit depth ${header.depth}, colour type ${header.colour}, interlace ${header.interlace}`)
    if (header.width === 0 || header.height === 0 || header.width * header.height > 16_000_000) return yield* invalid("dimensions")
    if (header.colour === 3 && palette === undefined) return yield* invalid("a palette image without PLTE")
    const joined = new Uint8Array(idat.reduce((n, d) => n + d.length, 0))
    idat.reduce((o, d) => (joined.set(d, o), o + d.length), 0)
    const raw = yield* inflate(joined).pipe(Effect.mapError(() => invalid("image data does not inflate")))
    const pixels = unpredictPng(raw, header.width * channels, channels)
    if (pixels === undefined || pixels.length < header.width * header.height * channels) return yield* invalid("bad filter rows")

    const count = header.width * header.height
    const colourChannels = header.colour === 4 ? 1 : header.colour === 6 ? 3 : channels
    const hasAlpha = header.colour === 4 || header.colour === 6
    let colour = pixels
    let alpha: Uint8Array | undefined
    if (hasAlpha) {
      colour = new Uint8Array(count * colourChannels)
      alpha = new Uint8Array(count)
      for (let p = 0; p < count; p++) {
        for (let c = 0; c < colourChannels; c++) colour[p * colourChannels + c] = pixels[p * channels + c]!
        alpha[p] = pixels[p * channels + colourChannels]!
      }
    }
    const colourSpace: PdfValue = header.colour === 3
      ? [name("Indexed"), name("DeviceRGB"), palette!.length / 3 - 1, new PdfString(palette!, true)]
      : name(colourChannels === 1 ? "DeviceGray" : "DeviceRGB")
    const base = { Type: name("XObject"), Subtype: name("Image"), Width: header.width, Height: header.height, BitsPerComponent: 8, Filter: name("FlateDecode") }
    const colourData = yield* deflate(colour.subarray(0, count * colourChannels))
    const smask = alpha === undefined ? undefined : new PdfStream(dict({ ...base, ColorSpace: name("DeviceGray") }), yield* deflate(alpha))
    return {
      width: header.width, height: header.height, smask,
      image: (mask) => new PdfStream(dict({ ...base, ColorSpace: colourSpace, ...(mask === undefined ? {} : { SMask: mask }) }), colourData),
    }
  })
