/** ECDSA signature encodings: WebCrypto and JOSE give IEEE P1363 (r||s); X.509 and CMS want DER. */
import * as asn1js from "asn1js"

/** Where the minimal unsigned INTEGER body of `n` starts, and whether it needs a leading zero. */
const integerBody = (n: Uint8Array): { readonly start: number; readonly pad: number; readonly length: number } => {
  let start = 0
  while (start < n.length - 1 && n[start] === 0) start++
  const pad = n[start]! >= 0x80 ? 1 : 0
  return { start, pad, length: n.length - start + pad }
}

/** DER `ECDSA-Sig-Value` (SEQUENCE of the INTEGERs r and s) of a P1363 `r||s` signature; undefined for an odd or empty input. */
export const p1363ToDer = (signature: Uint8Array): Uint8Array | undefined => {
  if (signature.length === 0 || signature.length % 2 !== 0) return undefined
  const half = signature.length / 2
  const r = signature.subarray(0, half)
  const s = signature.subarray(half)
  const ri = integerBody(r)
  const si = integerBody(s)
  const body = 2 + ri.length + 2 + si.length
  // r and s are at most 66 bytes (P-521), so every length fits one or two octets.
  const lengthOctets = body < 0x80 ? 1 : 2
  const out = new Uint8Array(1 + lengthOctets + body)
  let at = 0
  out[at++] = 0x30
  if (lengthOctets === 2) out[at++] = 0x81
  out[at++] = body
  at = writeInteger(out, at, r, ri)
  writeInteger(out, at, s, si)
  return out
}

/** Writes INTEGER `n` (its minimal body `i`) at `at`; the offset after it. */
const writeInteger = (out: Uint8Array, at: number, n: Uint8Array, i: { readonly start: number; readonly pad: number; readonly length: number }): number => {
  out[at] = 0x02
  out[at + 1] = i.length
  out.set(n.subarray(i.start), at + 2 + i.pad)
  return at + 2 + i.length
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
