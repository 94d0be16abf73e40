import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { constantTimeEqual, fromBase64, fromHex, toBase64, toBase64Url, toHex } from "./encoding.ts"

describe("encoding", () => {
  it("base64 and base64url round-trip and agree with Node's Buffer", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"))
        expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString("base64url"))
        expect(fromBase64(toBase64(bytes))).toEqual(bytes)
        expect(fromBase64(toBase64Url(bytes))).toEqual(bytes)
        expect(fromHex(toHex(bytes))).toEqual(bytes)
      }),
    )
  })
  it("refuses text that is not base64 or hex", () => {
    expect(fromBase64("ab$c")).toBeUndefined()
    expect(fromHex("abc")).toBeUndefined()
    expect(fromHex("zz")).toBeUndefined()
  })
  it("constantTimeEqual is equality", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 }), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(Buffer.from(a).equals(Buffer.from(b)))
        expect(constantTimeEqual(a, a.slice())).toBe(true)
      }),
    )
  })
})
