/**
 * A tiny CBOR (RFC 8949) encoder covering only what WebAuthn needs: integers,
 * byte strings, text strings, arrays and maps. Written here rather than using
 * the server library's encoder so the authenticator side shares no code with the
 * verifier it is meant to test, and so map key order is exactly what we give
 * (callers pass keys in CTAP2 canonical order).
 */

/** A value this encoder can write; maps keep insertion order. */
export type CborValue = number | string | Uint8Array | ReadonlyArray<CborValue> | ReadonlyMap<CborValue, CborValue>

const MAJOR_UNSIGNED = 0
const MAJOR_NEGATIVE = 1
const MAJOR_BYTES = 2
const MAJOR_TEXT = 3
const MAJOR_ARRAY = 4
const MAJOR_MAP = 5

/** Writes a major type with its argument in the shortest form, as canonical CBOR requires. */
const head = (major: number, argument: number): Uint8Array<ArrayBuffer> => {
  const m = major << 5
  if (argument < 24) return Uint8Array.of(m | argument)
  if (argument < 0x100) return Uint8Array.of(m | 24, argument)
  if (argument < 0x10000) return Uint8Array.of(m | 25, argument >> 8, argument & 0xff)
  if (argument < 0x100000000) {
    const out = new Uint8Array(5)
    out[0] = m | 26
    new DataView(out.buffer).setUint32(1, argument)
    return out
  }
  // Beyond 32 bits is never needed for WebAuthn structures; refuse rather than lose precision.
  throw new RangeError(`CBOR argument too large: ${argument}`)
}

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const isArray = (value: CborValue): value is ReadonlyArray<CborValue> => Array.isArray(value)

/** Encodes one value as CBOR bytes. */
export const encodeCbor = (value: CborValue): Uint8Array<ArrayBuffer> => {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new RangeError(`CBOR encoder only handles integers, got ${value}`)
    return value >= 0 ? head(MAJOR_UNSIGNED, value) : head(MAJOR_NEGATIVE, -1 - value)
  }
  if (typeof value === "string") {
    const bytes = new TextEncoder().encode(value)
    return concat([head(MAJOR_TEXT, bytes.length), bytes])
  }
  if (value instanceof Uint8Array) return concat([head(MAJOR_BYTES, value.length), value])
  if (isArray(value)) return concat([head(MAJOR_ARRAY, value.length), ...value.map(encodeCbor)])
  const parts: Array<Uint8Array<ArrayBuffer>> = [head(MAJOR_MAP, value.size)]
  for (const [k, v] of value) parts.push(encodeCbor(k), encodeCbor(v))
  return concat(parts)
}
