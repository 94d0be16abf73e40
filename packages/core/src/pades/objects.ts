/** The PDF object model (ISO 32000-1 §7.3) the incremental writer reads and writes, and its serialisation. */

/** A name (`/Type`), held decoded (without `#xx` escapes). */
export class PdfName {
  constructor(readonly name: string) {}
}

/** A string, as its bytes; `hex` remembers the form it was read in. */
export class PdfString {
  constructor(
    readonly bytes: Uint8Array,
    readonly hex = false,
  ) {}
}

/** An indirect reference `num gen R`. */
export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/** A dictionary; keys are names without the slash, in the order read. */
export class PdfDict {
  constructor(readonly entries: Map<string, PdfValue> = new Map()) {}
  get(key: string): PdfValue | undefined {
    return this.entries.get(key)
  }
  /** A copy with `key` set (dictionaries are treated as values). */
  with(key: string, value: PdfValue): PdfDict {
    const next = new Map(this.entries)
    next.set(key, value)
    return new PdfDict(next)
  }
}

/** Bytes written verbatim (placeholders that are patched after layout). */
export class PdfRaw {
  constructor(readonly text: string) {}
}

/** Any direct object. */
export type PdfValue = null | boolean | number | PdfName | PdfString | PdfRef | PdfDict | PdfRaw | ReadonlyArray<PdfValue>

/** A stream object: its dictionary and its (still encoded) data. */
export class PdfStream {
  constructor(
    readonly dict: PdfDict,
    readonly data: Uint8Array,
  ) {}
}

/** Shorthands for building objects. */
export const name = (n: string) => new PdfName(n)
export const ref = (num: number, gen = 0) => new PdfRef(num, gen)
export const dict = (entries: Record<string, PdfValue>) => new PdfDict(new Map(Object.entries(entries)))
/** A text string: PDFDocEncoding when Latin-1 suffices, UTF-16BE with a BOM otherwise. */
export const textString = (text: string): PdfString => {
  if (/^[\x20-\x7e\xa0-\xff]*$/.test(text)) return new PdfString(Uint8Array.from(text, (c) => c.charCodeAt(0)))
  const out = [0xfe, 0xff]
  for (let i = 0; i < text.length; i++) out.push(text.charCodeAt(i) >> 8, text.charCodeAt(i) & 0xff)
  return new PdfString(Uint8Array.from(out))
}

const NAME_REGULAR = /^[!-~]$/
const NAME_ESCAPE = new Set(["#", "/", "(", ")", "<", ">", "[", "]", "{", "}", "%"])

const serialiseName = (n: string): string => {
  let out = "/"
  for (const ch of n) {
    const code = ch.charCodeAt(0)
    out += NAME_REGULAR.test(ch) && !NAME_ESCAPE.has(ch) && code < 0x80 ? ch : `#${code.toString(16).padStart(2, "0")}`
  }
  return out
}

const hexOf = (bytes: Uint8Array): string => {
  let out = ""
  for (const b of bytes) out += b.toString(16).padStart(2, "0")
  return out
}

// PDF numbers have no exponent; reals keep up to 6 decimals.
const serialiseNumber = (n: number): string => {
  if (Number.isInteger(n)) return String(n)
  return n.toFixed(6).replace(/0+$/, "").replace(/\.$/, "")
}

/** The text form of a value (Latin-1: every char code below 256 is one byte). */
export const serialise = (value: PdfValue): string => {
  if (value === null) return "null"
  if (typeof value === "boolean") return value ? "true" : "false"
  if (typeof value === "number") return serialiseNumber(value)
  if (value instanceof PdfName) return serialiseName(value.name)
  if (value instanceof PdfString) return `<${hexOf(value.bytes)}>`
  if (value instanceof PdfRef) return `${value.num} ${value.gen} R`
  if (value instanceof PdfRaw) return value.text
  if (value instanceof PdfDict) {
    let out = "<<"
    for (const [k, v] of value.entries) out += `${serialiseName(k)} ${serialise(v)}`
    return `${out}>>`
  }
  return `[${value.map(serialise).join(" ")}]`
}

/** Latin-1 bytes of a serialised text. */
export const latin1 = (text: string): Uint8Array => {
  const out = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff
  return out
}

/** Text of Latin-1 bytes. */
export const fromLatin1 = (bytes: Uint8Array): string => {
  let out = ""
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192))
  return out
}

/** A dictionary value as a number, or undefined. */
export const numberOf = (v: PdfValue | undefined): number | undefined => (typeof v === "number" ? v : undefined)
/** A dictionary value as a name, or undefined. */
export const nameOf = (v: PdfValue | undefined): string | undefined => (v instanceof PdfName ? v.name : undefined)
/** A dictionary value as an array, or undefined. */
export const arrayOf = (v: PdfValue | PdfStream | undefined): ReadonlyArray<PdfValue> | undefined => (Array.isArray(v) ? v : undefined)
