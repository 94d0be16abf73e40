/**
 * A signer's own signature image (`/v2/signature-image`): a PNG checked by decoding it whole,
 * kept sealed in the Vault (it is personal data) and bound to its user, so a sealed image
 * moved to another user's row does not open.
 */
import { Clock, Effect, Option } from "effect"
import { InvalidRequest, ResourceNotFound } from "../kernel/errors.ts"
import { SignatureImageInvalid } from "./errors.ts"
import { fromBase64, toBase64 } from "../kernel/encoding.ts"
import { SignatureImages } from "./ports.ts"
import { Vault } from "../ports/vault.ts"
import { decodePng, type Bitmap, type PngLimits } from "../kernel/png.ts"
import type { SignatureImage } from "./model.ts"

/** What a signature image may be: a PNG of at most 256 KiB and 1200×600 pixels. */
export const SIGNATURE_IMAGE_LIMITS: PngLimits = { maxWidth: 1200, maxHeight: 600, maxBytes: 256 * 1024 }

const PURPOSE = "signature-images"
const binding = (userId: string) => `signature-image ${userId}`

const view = (image: SignatureImage) => ({
  width: image.width,
  height: image.height,
  size: image.size,
  updatedAt: new Date(image.updatedAt).toISOString(),
})

/** `PUT /v2/signature-image`: sets (or replaces) the user's image from base64 PNG bytes; 422 `SignatureImageInvalid` for anything that is not a usable PNG. */
export const setSignatureImage = (userId: string, imageBase64: string) =>
  Effect.gen(function* () {
    const png = fromBase64(imageBase64.replace(/^data:image\/png;base64,/, "").replace(/\s+/g, ""))
    if (png === undefined || png.length === 0) return yield* new InvalidRequest({ detail: "image must be base64 of a PNG file" })
    const bitmap = yield* decodePng(png, SIGNATURE_IMAGE_LIMITS).pipe(Effect.mapError((problem) => new SignatureImageInvalid({ detail: problem.message })))
    const sealed = yield* Effect.flatMap(Vault, (v) => v.seal(png, PURPOSE, binding(userId)))
    const image: SignatureImage = {
      userId,
      sealed: toBase64(sealed),
      width: bitmap.width,
      height: bitmap.height,
      size: png.length,
      updatedAt: yield* Clock.currentTimeMillis,
    }
    yield* Effect.flatMap(SignatureImages, (s) => s.save(image))
    return view(image)
  })

/**
 * The user's signature image, PNG bytes and decoded pixels, or None when they set none.
 * For whatever draws it: the rendered signature image here, a visible PDF signature elsewhere.
 */
export const signatureImageOf = (
  userId: string,
): Effect.Effect<Option.Option<{ readonly png: Uint8Array; readonly bitmap: Bitmap }>, never, SignatureImages | Vault> =>
  Effect.gen(function* () {
    const found = yield* Effect.flatMap(SignatureImages, (s) => s.findByUser(userId))
    if (Option.isNone(found)) return Option.none()
    const png = yield* Effect.flatMap(Vault, (v) => v.open(fromBase64(found.value.sealed)!, PURPOSE, binding(userId)))
    // It was decoded when it was set; a failure now means the stored bytes were tampered with.
    const bitmap = yield* decodePng(png, SIGNATURE_IMAGE_LIMITS).pipe(Effect.orDie)
    return Option.some({ png, bitmap })
  })

/** `GET /v2/signature-image`: the PNG bytes; 404 `Signature image not found` when none is set. */
export const getSignatureImage = (userId: string) =>
  Effect.flatMap(
    signatureImageOf(userId),
    Option.match({
      onNone: () => Effect.fail(new ResourceNotFound({ what: "Signature image" })),
      onSome: (image) => Effect.succeed(image.png),
    }),
  )

/** `DELETE /v2/signature-image`. */
export const deleteSignatureImage = (userId: string) =>
  Effect.flatMap(SignatureImages, (s) => s.remove(userId)).pipe(
    Effect.flatMap((removed) => (removed ? Effect.succeed({ deleted: true as const }) : Effect.fail(new ResourceNotFound({ what: "Signature image" })))),
  )
