import { describe, it, expect } from "vitest"
import fc from "fast-check"
import { isoCBOR } from "@simplewebauthn/server/helpers"
import { encodeCbor, type CborValue } from "./cbor.ts"

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

describe("encodeCbor", () => {
  // Vectors from RFC 8949 Appendix A, so the encoding is checked against the spec, not just a decoder.
  it.each<[CborValue, string]>([
    [0, "00"],
    [23, "17"],
    [24, "1818"],
    [100, "1864"],
    [1000, "1903e8"],
    [1000000, "1a000f4240"],
    [-1, "20"],
    [-10, "29"],
    [-100, "3863"],
    [-1000, "3903e7"],
    ["", "60"],
    ["a", "6161"],
    ["IETF", "6449455446"],
    ["\u00fc", "62c3bc"],
    [Uint8Array.of(1, 2, 3, 4), "4401020304"],
    [[1, 2, 3], "83010203"],
    [[1, [2, 3], [4, 5]], "8301820203820405"],
    [
      new Map([
        [1, 2],
        [3, 4],
      ]),
      "a201020304",
    ],
  ])("encodes %o as %s", (value, expected) => {
    expect(hex(encodeCbor(value))).toBe(expected)
  })

  it("rejects values it cannot encode faithfully", () => {
    expect(() => encodeCbor(1.5)).toThrow(/only handles integers/)
    expect(() => encodeCbor(2 ** 32)).toThrow(/too large/)
  })

  it("round-trips through the verifier's CBOR decoder", () => {
    const int = fc.integer({ min: -(2 ** 32), max: 2 ** 32 - 1 })
    const bytes = fc.uint8Array({ maxLength: 300 })
    const text = fc.string({ maxLength: 40 })
    const { value } = fc.letrec<{ value: CborValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        int,
        text,
        bytes,
        fc.array(tie("value"), { maxLength: 5 }),
        fc
          .uniqueArray(fc.tuple(fc.oneof(int, text), tie("value")), { maxLength: 5, selector: ([k]) => k })
          .map((entries) => new Map<CborValue, CborValue>(entries)),
      ),
    }))
    fc.assert(
      fc.property(value, (v) => {
        expect(isoCBOR.decodeFirst(encodeCbor(v))).toEqual(v)
      }),
    )
  })
})
