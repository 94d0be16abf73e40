/** The fast upload decoder accepts and answers exactly what the core's `fromBase64` does. */
import { fromBase64, toBase64 } from "@signet/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodeBase64Upload } from "./base64.ts"

describe("decodeBase64Upload", () => {
  it("decodes base64 and base64url, padded or not, as fromBase64 does", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.constantFrom("padded", "bare", "url"), (bytes, form) => {
        const padded = toBase64(bytes)
        const text = form === "padded" ? padded : form === "bare" ? padded.replace(/=+$/, "") : padded.replace(/\+/g, "-").replace(/\//g, "_")
        expect(decodeBase64Upload(text)).toEqual(bytes)
        expect(fromBase64(text)).toEqual(bytes)
      }),
      { numRuns: 2_000, seed: 13 },
    )
  })

  it("refuses what fromBase64 refuses (any text)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."AZaz09+/-_=! \né".split("")), maxLength: 24 }), (text) => {
        expect(decodeBase64Upload(text)).toEqual(fromBase64(text))
      }),
      { numRuns: 5_000, seed: 13 },
    )
  })
})
