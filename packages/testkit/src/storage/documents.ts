/** Storage conformance of the documents module: encrypted files and signature images. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { type EncryptedFile, EncryptedFiles, SignatureImages, Storage } from "@signet/core"
import { FAR_FUTURE_MS } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

/** The documents module's repositories against the storage contract. */
export const documentsConformance = conformanceSuite<Storage | EncryptedFiles | SignatureImages>()("documents", ({ test, uniqueViolation }) => {
  describe("EncryptedFiles", () => {
    const file = (over: Partial<EncryptedFile> = {}): EncryptedFile => ({
      id: "f1",
      ownerUserId: "u1",
      name: "contract.pdf",
      size: 5_000_000,
      recipients: ["u1", "u3", "u2"],
      envelope: "MIAGCSqG",
      createdAt: 1_700_000_000_000,
      ...over,
    })
    test("round-trip with recipients in order; a user lists what they own or receive, newest first; remove deletes both", () =>
      Effect.gen(function* () {
        const files = yield* EncryptedFiles
        const storage = yield* Storage
        yield* storage.transaction(files.insert(file()))
        yield* storage.transaction(files.insert(file({ id: "f2", ownerUserId: "u2", recipients: ["u2"], createdAt: 1_800_000_000_000 })))
        yield* storage.transaction(files.insert(file({ id: "f3", ownerUserId: "u3", recipients: ["u3", "u1"], createdAt: 1_900_000_000_000 })))
        expect(yield* files.findById("f1")).toEqual(Option.some(file()))
        expect(yield* files.findById("nope")).toEqual(Option.none())
        expect((yield* files.listForUser("u1", 10)).map((f) => f.id)).toEqual(["f3", "f1"])
        expect((yield* files.listForUser("u2", 10)).map((f) => f.id)).toEqual(["f2", "f1"])
        expect((yield* files.listForUser("u1", 1)).map((f) => f.id)).toEqual(["f3"])
        expect(yield* files.listForUser("u9", 10)).toEqual([])
        yield* uniqueViolation(storage.transaction(files.insert(file())))
        yield* storage.transaction(files.remove("f1"))
        expect(yield* files.findById("f1")).toEqual(Option.none())
        expect((yield* files.listForUser("u2", 10)).map((f) => f.id)).toEqual(["f2"])
      }))
  })

  describe("SignatureImages", () => {
    test("save replaces, find round-trips, remove answers whether there was one", () =>
      Effect.gen(function* () {
        const images = yield* SignatureImages
        const image = { userId: "u1", sealed: "c2VhbGVk", width: 300, height: 100, size: 1234, updatedAt: 1_700_000_000_000 }
        expect(yield* images.findByUser("u1")).toEqual(Option.none())
        yield* images.save(image)
        yield* images.save({ ...image, sealed: "bmV3", width: 400, updatedAt: FAR_FUTURE_MS })
        expect(yield* images.findByUser("u1")).toEqual(Option.some({ ...image, sealed: "bmV3", width: 400, updatedAt: FAR_FUTURE_MS }))
        expect(yield* images.remove("u1")).toBe(true)
        expect(yield* images.remove("u1")).toBe(false)
        expect(yield* images.findByUser("u1")).toEqual(Option.none())
      }))
  })
})
