/** Byte-level mutations of valid inputs, the one loop the fuzz suites (DER/CMS, JSON bodies) share. */
import fc from "fast-check"

/** What one edit does at its position: overwrite the byte, flip one bit, insert a byte, delete one, or cut the rest off. */
export type ByteEditKind = "flip" | "bit" | "insert" | "delete" | "truncate"

/** One edit: a position (taken modulo the length at that moment), a byte value, and what to do there. */
export type ByteEdit = readonly [at: number, byte: number, kind: ByteEditKind]

/** Between `minLength` (default 1) and `maxLength` (default 6) edits of the given kinds (default all). */
export const byteEdits = (
  options: { readonly kinds?: ReadonlyArray<ByteEditKind>; readonly minLength?: number; readonly maxLength?: number } = {},
): fc.Arbitrary<ReadonlyArray<ByteEdit>> =>
  fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom(...(options.kinds ?? ["flip", "bit", "insert", "delete", "truncate"]))), {
    minLength: options.minLength ?? 1,
    maxLength: options.maxLength ?? 6,
  })

/** `bytes` with the edits applied in order (the input is not changed). */
export const applyByteEdits = (bytes: Uint8Array, edits: ReadonlyArray<ByteEdit>): Uint8Array => {
  const out = [...bytes]
  for (const [at, b, kind] of edits) {
    const i = out.length === 0 ? 0 : at % out.length
    if (kind === "flip") out[i] = b
    else if (kind === "bit") out[i] = (out[i] ?? 0) ^ (1 << (b & 7))
    else if (kind === "insert") out.splice(i, 0, b)
    else if (kind === "delete") out.splice(i, 1)
    else out.length = i
  }
  return new Uint8Array(out)
}
