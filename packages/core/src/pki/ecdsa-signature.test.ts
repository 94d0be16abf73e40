import { createSign, createVerify, generateKeyPairSync } from "node:crypto"
import * as asn1js from "asn1js"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { p1363ToDer } from "./ecdsa-signature.ts"

const big = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`)

describe("p1363ToDer", () => {
  it("gives the DER SEQUENCE of r and s as minimal positive INTEGERs", () => {
    fc.assert(
      fc.property(fc.constantFrom(32, 48, 66), fc.uint8Array({ minLength: 132, maxLength: 132 }), fc.boolean(), (size, raw, zeroed) => {
        const signature = raw.slice(0, 2 * size)
        if (zeroed) signature.fill(0, 0, 3) // leading zeros in r
        const der = p1363ToDer(signature)!
        const parsed = asn1js.fromBER(new Uint8Array(der))
        expect(parsed.offset).toBe(der.length)
        const seq = parsed.result as asn1js.Sequence
        const [r, s] = seq.valueBlock.value as [asn1js.Integer, asn1js.Integer]
        expect(
          new asn1js.Sequence({
            value: [new asn1js.Integer({ valueHex: r.valueBlock.valueHexView }), new asn1js.Integer({ valueHex: s.valueBlock.valueHexView })],
          }).toBER(),
        ).toEqual(new Uint8Array(der).buffer)
        for (const [int, half] of [
          [r, signature.subarray(0, size)],
          [s, signature.subarray(size)],
        ] as const) {
          const bytes = int.valueBlock.valueHexView
          expect(bytes[0]! & 0x80).toBe(0) // positive
          if (bytes.length > 1) expect(bytes[0] === 0 && (bytes[1]! & 0x80) === 0).toBe(false) // minimal
          expect(big(bytes)).toBe(big(half))
        }
      }),
    )
  })

  it("turns a WebCrypto-style signature into one OpenSSL (node:crypto, DER) verifies", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
    for (let i = 0; i < 50; i++) {
      const data = Buffer.from(`message ${i}`)
      const p1363 = createSign("sha256").update(data).sign({ key: privateKey, dsaEncoding: "ieee-p1363" })
      const der = p1363ToDer(new Uint8Array(p1363))!
      expect(createVerify("sha256").update(data).verify({ key: publicKey, dsaEncoding: "der" }, der)).toBe(true)
    }
  })

  it("refuses odd and empty inputs", () => {
    expect(p1363ToDer(new Uint8Array(0))).toBeUndefined()
    expect(p1363ToDer(new Uint8Array(63))).toBeUndefined()
  })
})
