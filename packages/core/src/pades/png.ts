/** A PNG signature image as PDF image XObjects (colour, and an SMask for its alpha), decoded by the kernel's PNG reader. */
import { Effect } from "effect"
import { SignatureImageInvalid } from "../documents/errors.ts"
import { decodePng, type Bitmap, type PngLimits } from "../kernel/png.ts"
import { deflate } from "./filters.ts"
import { dict, name, PdfStream, type PdfValue } from "./objects.ts"

/** A decoded image ready to write: the colour image, and its alpha as a soft mask. */
export interface PngImage {
  readonly width: number
  readonly height: number
  readonly image: (smask: PdfValue | undefined) => PdfStream
  readonly smask: PdfStream | undefined
}

/** What a visible-signature image may be: at most 4000×4000 pixels, and no larger than a PDF upload. */
export const PDF_IMAGE_LIMITS: PngLimits = { maxWidth: 4000, maxHeight: 4000, maxBytes: 10 * 1024 * 1024 }

/** The XObjects of a decoded bitmap: DeviceRGB colour, and a DeviceGray SMask unless every pixel is opaque. */
export const imageFromBitmap = (bitmap: Bitmap): Effect.Effect<PngImage> =>
  Effect.gen(function* () {
    const { width, height, rgba } = bitmap
    const count = width * height
    const colour = new Uint8Array(count * 3)
    const alpha = new Uint8Array(count)
    let opaque = true
    for (let p = 0; p < count; p++) {
      colour.set(rgba.subarray(p * 4, p * 4 + 3), p * 3)
      alpha[p] = rgba[p * 4 + 3]!
      if (alpha[p] !== 255) opaque = false
    }
    const base = { Type: name("XObject"), Subtype: name("Image"), Width: width, Height: height, BitsPerComponent: 8, Filter: name("FlateDecode") }
    const colourData = yield* deflate(colour)
    const smask = opaque ? undefined : new PdfStream(dict({ ...base, ColorSpace: name("DeviceGray") }), yield* deflate(alpha))
    return {
      width,
      height,
      smask,
      image: (mask) => new PdfStream(dict({ ...base, ColorSpace: name("DeviceRGB"), ...(mask === undefined ? {} : { SMask: mask }) }), colourData),
    }
  })

/** Decodes PNG bytes for a visible signature; 422 `SignatureImageInvalid` when they are not a usable PNG. */
export const imageFromPng = (png: Uint8Array): Effect.Effect<PngImage, SignatureImageInvalid> =>
  decodePng(png, PDF_IMAGE_LIMITS).pipe(
    Effect.mapError((problem) => new SignatureImageInvalid({ detail: problem.message })),
    Effect.flatMap(imageFromBitmap),
  )
