/** ECDSA signature encodings: WebCrypto and JOSE give IEEE P1363 (r||s); X.509 and CMS want DER. */

const derLength = (n: number): Array<number> =>
  n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff]

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
