/** Storage conformance of the pades module: prepared PDFs. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { PreparedPdfs } from "@signet/core"
import { conformanceSuite } from "./suite.ts"

/** The pades module's repositories against the storage contract. */
export const padesConformance = conformanceSuite<PreparedPdfs>()("pades", ({ test, uniqueViolation }) => {
  describe("PreparedPdfs", () => {
    test("sealed bytes (every byte value, several MiB) and offsets round-trip; purge removes the old ones only", () =>
      Effect.gen(function* () {
        const { PreparedPdfs } = yield* Effect.promise(() => import("@signet/core"))
        const pdfs = yield* PreparedPdfs
        const sealed = new Uint8Array(3 * 1024 * 1024 + 7).map((_, i) => (i * 31 + (i >> 8)) & 0xff)
        const pdf = {
          requestId: "r1",
          clientId: "c1",
          userId: "u1",
          sealed,
          contentsOffset: 5_000_000_123,
          contentsBytes: 32768,
          fieldName: "Signature2",
          level: "PAdES-BASELINE-LT" as const,
          createdAt: 1_700_000_000_000,
        }
        yield* pdfs.insert(pdf)
        yield* pdfs.insert({ ...pdf, requestId: "r2", sealed: new Uint8Array([0, 255]), createdAt: 1_800_000_000_000 })
        const found = yield* pdfs.findByRequestId("r1")
        expect(Option.map(found, (p) => ({ ...p, sealed: null }))).toEqual(Option.some({ ...pdf, sealed: null }))
        const back = Option.getOrThrow(found).sealed
        expect(back.length === sealed.length && back.every((b, i) => b === sealed[i])).toBe(true)
        expect(yield* pdfs.findByRequestId("nope")).toEqual(Option.none())
        yield* uniqueViolation(pdfs.insert(pdf))
        expect(yield* pdfs.purgeBefore(1_750_000_000_000)).toBe(1)
        expect(yield* pdfs.findByRequestId("r1")).toEqual(Option.none())
        expect(Option.map(yield* pdfs.findByRequestId("r2"), (p) => [...p.sealed])).toEqual(Option.some([0, 255]))
      }))
  })
})
