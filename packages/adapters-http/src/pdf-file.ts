/**
 * PAdES signing of PDF files of any size through the library API: a `ByteSource` over a file
 * (read by offset, never whole), and writing the signed file as the original plus the update.
 */
import { appendFile, copyFile, open } from "node:fs/promises"
import { PdfUnreadable, type ByteSource } from "@signet/core"
import { Effect } from "effect"

/** A file opened as a `ByteSource`; close it with `close()` when done. */
export const fileSource = async (path: string): Promise<ByteSource & { readonly close: () => Promise<void> }> => {
  const handle = await open(path, "r")
  const { size } = await handle.stat()
  let reused = new Uint8Array(0)
  const readInto = (offset: number, length: number, transient: boolean) =>
    Effect.tryPromise({
      try: async () => {
        const wanted = Math.max(0, Math.min(length, size - offset))
        if (transient && reused.length < wanted) reused = new Uint8Array(wanted)
        const buffer = transient ? reused.subarray(0, wanted) : new Uint8Array(wanted)
        let done = 0
        while (done < wanted) {
          const { bytesRead } = await handle.read(buffer, done, wanted - done, offset + done)
          if (bytesRead === 0) break
          done += bytesRead
        }
        return done === wanted ? buffer : buffer.subarray(0, done)
      },
      catch: (e) => new PdfUnreadable({ detail: `cannot read the file: ${e instanceof Error ? e.message : String(e)}` }),
    })
  return {
    size,
    read: (offset, length) => readInto(offset, length, false),
    readTransient: (offset, length) => readInto(offset, length, true),
    close: () => handle.close(),
  }
}

/** Writes the signed file: a copy of the original (a kernel copy, no buffering here) with the update appended. */
export const writeSignedFile = async (original: string, update: Uint8Array, target: string): Promise<void> => {
  await copyFile(original, target)
  await appendFile(target, update)
}
