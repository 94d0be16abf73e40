/**
 * Documents at core level, over the in-memory storage with the TestClock: files encrypted for
 * their owner and recipients and opened again after a fresh passkey approval, and the signer's
 * own signature image, sealed at rest and drawn on the card of a completed signature.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { createHash } from "node:crypto"
import { atTestStart, bearer, coreTestLayer, enrolTestSigner, testRelyingParty } from "@signet/testkit/core"
import {
  completeSigningRequest,
  createSigningRequest,
  decodePng,
  decryptFile,
  deleteFile,
  deleteSignatureImage,
  encodePng,
  getFile,
  getSignatureImage,
  listFiles,
  renderSignatureImage,
  requestStepUp,
  setSignatureImage,
  signatureImageOf,
  SignatureImages,
  STEP_UP_PROOF_TTL_SECONDS,
  storeFile,
  verifyStepUp,
  type Assertion,
  type BearerUser,
} from "../index.ts"

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64")
const text = (base64: string) => Buffer.from(base64, "base64").toString("utf8")

/** Two enrolled users at one RP, and a third who is not a recipient. */
const world = Effect.gen(function* () {
  yield* atTestStart()
  const { rp } = yield* testRelyingParty()
  const ann = yield* enrolTestSigner("ann@example.com")
  const ben = yield* enrolTestSigner("ben@example.com")
  const cy = yield* enrolTestSigner("cy@example.com")
  return {
    rp,
    ann: { ...ann, user: bearer(ann.userId, rp.clientId) },
    ben: { ...ben, user: bearer(ben.userId, rp.clientId) },
    cy: { ...cy, user: bearer(cy.userId, rp.clientId) },
  }
})

/** A fresh passkey approval of `decrypt` by the user: the one-time proof. */
const approveDecrypt = (who: { readonly user: BearerUser; readonly passkey: { assert: (o: { challenge: string }) => unknown } }) =>
  Effect.gen(function* () {
    const started = yield* requestStepUp(who.user, "decrypt")
    const proof = yield* verifyStepUp(who.user, { stepUpId: started.stepUpId, assertion: who.passkey.assert(started.options) as Assertion })
    return proof.stepUpToken
  })

const notFound = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) => Effect.map(Effect.flip(effect), (e) => e.message)

describe("encrypted files", () => {
  it.effect("a file is sealed for its owner and recipients; each opens it after a passkey approval; nobody else sees it", () =>
    Effect.gen(function* () {
      const { ann, ben, cy } = yield* world
      const stored = yield* storeFile(ann.user, { name: "payslip.txt", content: b64("net pay: 4200 EUR"), recipients: [ben.userId] })
      expect([stored.name, stored.size, stored.owner, stored.recipients]).toEqual(["payslip.txt", 17, ann.userId, [ann.userId, ben.userId]])
      // stored as an envelope, never as the plain text
      expect(text((yield* getFile(ann.user, stored.id)).envelopedData)).not.toContain("net pay")

      const opened = yield* decryptFile(ben.user, stored.id, yield* approveDecrypt(ben))
      expect(text(opened.content)).toBe("net pay: 4200 EUR")
      expect(text((yield* decryptFile(ann.user, stored.id, yield* approveDecrypt(ann))).content)).toBe("net pay: 4200 EUR")

      expect((yield* listFiles(ben.user)).map((f) => f.id)).toEqual([stored.id])
      expect(yield* listFiles(cy.user)).toEqual([])
      expect(yield* notFound(getFile(cy.user, stored.id))).toBe("File not found")
      expect(yield* notFound(decryptFile(cy.user, stored.id, yield* approveDecrypt(cy)))).toBe("File not found")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("decryption needs a fresh approval: none, a spent one or one older than two minutes is refused", () =>
    Effect.gen(function* () {
      const { ann } = yield* world
      const stored = yield* storeFile(ann.user, { name: "secret.txt", content: b64("s3cr3t") })
      expect(yield* notFound(decryptFile(ann.user, stored.id))).toBe("Fresh passkey approval required: decrypt")
      const proof = yield* approveDecrypt(ann)
      yield* decryptFile(ann.user, stored.id, proof)
      expect(yield* notFound(decryptFile(ann.user, stored.id, proof))).toBe("Fresh passkey approval required: decrypt")
      const stale = yield* approveDecrypt(ann)
      yield* TestClock.adjust(STEP_UP_PROOF_TTL_SECONDS * 1000)
      expect(yield* notFound(decryptFile(ann.user, stored.id, stale))).toBe("Fresh passkey approval required: decrypt")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("only the owner deletes a file; newest files list first", () =>
    Effect.gen(function* () {
      const { ann, ben } = yield* world
      const first = yield* storeFile(ann.user, { name: "a.txt", content: b64("a"), recipients: [ben.userId] })
      yield* TestClock.adjust("1 second")
      const second = yield* storeFile(ann.user, { name: "b.txt", content: b64("b") })
      expect((yield* listFiles(ann.user)).map((f) => f.name)).toEqual(["b.txt", "a.txt"])
      expect(yield* notFound(deleteFile(ben.user, first.id))).toBe("File not found")
      expect(yield* deleteFile(ann.user, first.id)).toEqual({ deleted: true })
      expect((yield* listFiles(ann.user)).map((f) => f.id)).toEqual([second.id])
      expect(yield* listFiles(ben.user)).toEqual([])
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("a recipient who is not a user is refused and nothing is stored", () =>
    Effect.gen(function* () {
      const { ann } = yield* world
      const refused = yield* Effect.flip(storeFile(ann.user, { name: "x.txt", content: b64("x"), recipients: ["usr_nobody"] }))
      expect(refused._tag).toBe("InvalidRequest")
      expect(yield* listFiles(ann.user)).toEqual([])
    }).pipe(Effect.provide(coreTestLayer())),
  )
})

describe("signature images", () => {
  /** A 40×20 PNG: a dark stroke on white. */
  const samplePng = (width = 40, height = 20) =>
    Effect.gen(function* () {
      const rgba = new Uint8Array(width * height * 4).fill(255)
      for (let x = 0; x < width; x++) rgba.set([20, 20, 80, 255], ((height >> 1) * width + x) * 4)
      return yield* encodePng({ width, height, rgba })
    })

  it.effect("an image is kept sealed, given back byte for byte, replaced and deleted", () =>
    Effect.gen(function* () {
      const { ann } = yield* world
      const png = yield* samplePng()
      const set = yield* setSignatureImage(ann.userId, Buffer.from(png).toString("base64"))
      expect(set).toEqual({ width: 40, height: 20, size: png.length, updatedAt: "2026-11-25T12:00:00.000Z" })
      expect(yield* getSignatureImage(ann.userId)).toEqual(png)
      // the stored row holds no PNG bytes: it is sealed in the Vault
      const row = Option.getOrThrow(yield* Effect.flatMap(SignatureImages, (s) => s.findByUser(ann.userId)))
      expect(Buffer.from(row.sealed, "base64").includes(Buffer.from(png.subarray(0, 8)))).toBe(false)

      const wider = yield* samplePng(60, 20)
      expect((yield* setSignatureImage(ann.userId, Buffer.from(wider).toString("base64"))).width).toBe(60)
      expect(yield* getSignatureImage(ann.userId)).toEqual(wider)
      expect(yield* deleteSignatureImage(ann.userId)).toEqual({ deleted: true })
      expect(yield* notFound(getSignatureImage(ann.userId))).toBe("Signature image not found")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("what is not a usable PNG, or is larger than 1200×600, is refused", () =>
    Effect.gen(function* () {
      const { ann } = yield* world
      expect((yield* Effect.flip(setSignatureImage(ann.userId, b64("GIF89a not a png"))))._tag).toBe("SignatureImageInvalid")
      const huge = yield* samplePng(1300, 10)
      expect((yield* Effect.flip(setSignatureImage(ann.userId, Buffer.from(huge).toString("base64"))))._tag).toBe("SignatureImageInvalid")
      expect(Option.isNone(yield* signatureImageOf(ann.userId))).toBe(true)
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("an image sealed for one user does not open as another's", () =>
    Effect.gen(function* () {
      const { ann, ben } = yield* world
      yield* setSignatureImage(ann.userId, Buffer.from(yield* samplePng()).toString("base64"))
      const images = yield* SignatureImages
      const row = Option.getOrThrow(yield* images.findByUser(ann.userId))
      yield* images.save({ ...row, userId: ben.userId })
      const moved = yield* Effect.exit(signatureImageOf(ben.userId))
      expect(moved._tag).toBe("Failure")
    }).pipe(Effect.provide(coreTestLayer())),
  )

  it.effect("the card of a completed signature carries the signer's image; before completion there is none", () =>
    Effect.gen(function* () {
      const { ann, ben } = yield* world
      const request = yield* createSigningRequest(ann.user, {
        documentHash: createHash("sha256").update("doc").digest("hex"),
        credentialId: ann.passkey.credentialId,
      })
      expect((yield* Effect.flip(renderSignatureImage(ann.user, request.requestId)))._tag).toBe("SigningRequestNotCompleted")
      yield* completeSigningRequest(request.requestId, ann.passkey.assert({ challenge: request.challenge }, { includeUserHandle: false }) as Assertion)
      const plain = yield* renderSignatureImage(ann.user, request.requestId)
      yield* setSignatureImage(ann.userId, Buffer.from(yield* samplePng()).toString("base64"))
      const withImage = yield* renderSignatureImage(ann.user, request.requestId)
      const limits = { maxWidth: 4000, maxHeight: 4000, maxBytes: 10_000_000 }
      const [a, b] = [yield* decodePng(plain, limits), yield* decodePng(withImage, limits)]
      expect([a.width, a.height]).toEqual([b.width, b.height])
      expect(Buffer.from(a.rgba).equals(Buffer.from(b.rgba))).toBe(false)
      // someone else's signature is not theirs to render
      expect(yield* notFound(renderSignatureImage(ben.user, request.requestId))).toBe("Signing request not found")
    }).pipe(Effect.provide(coreTestLayer())),
  )
})
