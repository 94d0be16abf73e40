/** ECDSA signature encodings: WebCrypto and JOSE give IEEE P1363 (r||s); X.509 and CMS want DER. */
import * as asn1js from "asn1js"

const derLength = (n: number): Array<number> => (n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff])

const derInteger = (unsigned: Uint8Array): Array<number> => {
  let start = 0
  while (start < unsigned.length - 1 && unsigned[start] === 0) start++
  const body = Array.from(unsigned.subarray(start))
  if (body.length === 0) body.push(0)
  if (body[0]! >= 0x80) body.unshift(0)
  return [0x02, ...derLength(body.length), ...body]
}

/** DER `ECDSA-Sig-Value` (SEQUENCE of the INTEGERs r and s) of a P1363 `r||s` signature; undefined for an odd or empty input. */
export const p1363ToDer = (signature: Uint8Array): Uint8Array | undefined => {
  if (signature.length === 0 || signature.length % 2 !== 0) return undefined
  const half = signature.length / 2
  const body = [...derInteger(signature.subarray(0, half)), ...derInteger(signature.subarray(half))]
  return new Uint8Array([0x30, ...derLength(body.length), ...body])
}

/** The fixed `r||s` form (each `size` bytes) WebCrypto verifies, of a DER `ECDSA-Sig-Value`; undefined when it is not one. */
export const derToP1363 = (der: Uint8Array, size: number): Uint8Array | undefined => {
  const parsed = asn1js.fromBER(new Uint8Array(der))
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Sequence)) return undefined
  const ints = parsed.result.valueBlock.value
  if (ints.length !== 2 || !ints.every((i) => i instanceof asn1js.Integer)) return undefined
  const out = new Uint8Array(size * 2)
  ints.forEach((i, n) => {
    const v = new Uint8Array((i as asn1js.Integer).valueBlock.valueHexView).filter((_b, k, all) => !(k === 0 && all.length > size && all[0] === 0))
    out.set(v.slice(-size), n * size + Math.max(0, size - v.length))
  })
  return out
}
