/** Random-access bytes: how the PAdES code reads a document without holding it whole. */
import { Effect } from "effect"
import type { PdfUnreadable } from "./errors.ts"

/** A document's bytes, read by offset; a 1 GB file behind it is read in windows, never whole. */
export interface ByteSource {
  readonly size: number
  /** `length` bytes from `offset` (fewer only at the end of the source). */
  readonly read: (offset: number, length: number) => Effect.Effect<Uint8Array, PdfUnreadable>
  /**
   * Optional: the same bytes in a view that is only valid until the next call (a reused
   * buffer), for readers that consume at once, such as hashing: no garbage per window.
   */
  readonly readTransient?: (offset: number, length: number) => Effect.Effect<Uint8Array, PdfUnreadable>
}

/** A source over bytes in memory. */
export const bytesSource = (bytes: Uint8Array): ByteSource => ({
  size: bytes.length,
  read: (offset, length) => Effect.succeed(bytes.subarray(Math.max(0, offset), Math.min(bytes.length, offset + length))),
})

/** `head` followed by `tail`, as one source (a document and its appended update). */
export const concatSource = (head: ByteSource, tail: Uint8Array): ByteSource => ({
  size: head.size + tail.length,
  ...(head.readTransient === undefined
    ? {}
    : {
        readTransient: (offset: number, length: number) =>
          offset + length <= head.size ? head.readTransient!(offset, length) : concatSource(head, tail).read(offset, length),
      }),
  read: (offset, length) => {
    const end = Math.min(head.size + tail.length, offset + length)
    if (offset >= head.size) return Effect.succeed(tail.subarray(offset - head.size, end - head.size))
    if (end <= head.size) return head.read(offset, end - offset)
    return Effect.map(head.read(offset, head.size - offset), (first) => {
      const out = new Uint8Array(end - offset)
      out.set(first, 0)
      out.set(tail.subarray(0, end - head.size), first.length)
      return out
    })
  },
})
