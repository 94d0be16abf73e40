/**
 * A minimal DER writer for structures whose shape is fixed (CMS SignedData around one signature):
 * building them byte by byte costs microseconds where an object model costs milliseconds.
 */

/** How many octets the DER length of `n` takes. */
const lengthSize = (n: number): number => (n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : n < 0x1000000 ? 4 : 5)

/** Writes the tag and definite length of a TLV at `at`; the offset after them. */
const writeHeader = (out: Uint8Array, at: number, tag: number, length: number): number => {
  const size = lengthSize(length)
  out[at] = tag
  if (size === 1) out[at + 1] = length
  else {
    out[at + 1] = 0x80 | (size - 1)
    for (let i = size - 1, v = length; i >= 1; i--, v = Math.floor(v / 256)) out[at + 1 + i] = v & 0xff
  }
  return at + 1 + size
}

/** One TLV: `tag`, the definite length, then the parts one after another. */
export const tlv = (tag: number, ...parts: ReadonlyArray<Uint8Array>): Uint8Array<ArrayBuffer> => {
  let length = 0
  for (const p of parts) length += p.length
  const out = new Uint8Array(1 + lengthSize(length) + length)
  let at = writeHeader(out, 0, tag, length)
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/**
 * A TLV not written yet: nested ones are written together by `encode`, in one allocation, where
 * `tlv` inside `tlv` would allocate and copy every level (each a cost comparable to the writing).
 */
export interface Node {
  readonly tag: number
  readonly parts: ReadonlyArray<Uint8Array | Node>
  /** of the content */
  readonly length: number
  /** of the whole TLV */
  readonly size: number
}

/** A TLV of `tag` around `parts` (encoded bytes or other nodes), to be written by `encode`. */
export const node = (tag: number, ...parts: ReadonlyArray<Uint8Array | Node>): Node => {
  let length = 0
  for (const p of parts) length += p instanceof Uint8Array ? p.length : p.size
  return { tag, parts, length, size: 1 + lengthSize(length) + length }
}

const write = (out: Uint8Array, at: number, n: Node): number => {
  let next = writeHeader(out, at, n.tag, n.length)
  for (const p of n.parts) {
    if (p instanceof Uint8Array) {
      out.set(p, next)
      next += p.length
    } else next = write(out, next, p)
  }
  return next
}

/** The DER of a node and everything in it. */
export const encode = (n: Node): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(n.size)
  write(out, 0, n)
  return out
}

/** DER tags used by the writers here. */
export const Tag = {
  integer: 0x02,
  octetString: 0x04,
  oid: 0x06,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
  /** [0] constructed (EXPLICIT, or IMPLICIT of a constructed type) */
  context0: 0xa0,
  context1: 0xa1,
} as const

const oids = new Map<string, Uint8Array<ArrayBuffer>>()

/** The DER OBJECT IDENTIFIER of a dotted string (memoized: the same few are written again and again). */
export const oid = (dotted: string): Uint8Array<ArrayBuffer> => {
  const known = oids.get(dotted)
  if (known !== undefined) return known
  const arcs = dotted.split(".").map(Number)
  const body: Array<number> = []
  const push = (arc: number) => {
    const groups = [arc & 0x7f]
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) groups.unshift(0x80 | (v & 0x7f))
    body.push(...groups)
  }
  push(arcs[0]! * 40 + arcs[1]!)
  for (const arc of arcs.slice(2)) push(arc)
  const encoded = tlv(Tag.oid, Uint8Array.from(body))
  oids.set(dotted, encoded)
  return encoded
}

/** A small non-negative INTEGER. */
export const smallInteger = (n: number): Uint8Array => tlv(Tag.integer, Uint8Array.of(n))

const two = (n: number) => String(n).padStart(2, "0")

/** RFC 5652 §11.3 Time: UTCTime for 1950..2049, GeneralizedTime otherwise; whole seconds, `Z`. */
export const time = (at: Date): Uint8Array => {
  const year = at.getUTCFullYear()
  const rest = `${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}${two(at.getUTCHours())}${two(at.getUTCMinutes())}${two(at.getUTCSeconds())}Z`
  const utc = year >= 1950 && year < 2050
  const text = utc ? `${two(year % 100)}${rest}` : `${String(year).padStart(4, "0")}${rest}`
  const out = new Uint8Array(2 + text.length)
  out[0] = utc ? Tag.utcTime : Tag.generalizedTime
  out[1] = text.length
  for (let i = 0; i < text.length; i++) out[2 + i] = text.charCodeAt(i)
  return out
}
