import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { constantTimeEqual, fromBase64, fromHex, toBase64, toBase64Url, toHex } from "./encoding.ts"

describe("encoding", () => {
  it("base64 and base64url round-trip and agree with Node's Buffer", () => {
    fc.assert(
      // Both ways of writing: by table up to 64 bytes, by btoa past that.
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"))
        expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString("base64url"))
        expect(fromBase64(toBase64(bytes))).toEqual(bytes)
        expect(fromBase64(toBase64Url(bytes))).toEqual(bytes)
        expect(fromHex(toHex(bytes))).toEqual(bytes)
      }),
    )
  })
  it("encodes long input across btoa's chunks, from a view into a larger buffer", () => {
    const whole = Uint8Array.from({ length: 100_003 }, (_, i) => (i * 7919 + (i >> 8)) & 0xff)
    const view = whole.subarray(1, 100_002)
    expect(toBase64(view)).toBe(Buffer.from(view).toString("base64"))
    expect(toBase64Url(view)).toBe(Buffer.from(view).toString("base64url"))
    expect(fromBase64(toBase64Url(view))).toEqual(view)
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
