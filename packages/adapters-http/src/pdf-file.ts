/**
 * PAdES signing of PDF files of any size through the library API: a `ByteSource` over a file
 * (read by offset, never whole), and writing the signed file as the original plus the update.
 */
import { randomUUID } from "node:crypto"
import { appendFile, copyFile, open, rename, rm, stat } from "node:fs/promises"
import { PdfUnreadable, type ByteSource } from "@signet/core"
import { Effect } from "effect"

/**
 * Hashing windows kept between files: a fresh 4 MiB buffer per file costs about a thousand page
 * faults before the first byte is hashed, more than hashing a 1 MB file. A source takes one on its
 * first transient read and gives it back on close; a few are kept for concurrent signings.
 */
const spareWindows: Array<Uint8Array<ArrayBuffer>> = []
const SPARE_WINDOWS = 4
/** The window the PAdES hashing reads at most at once (4 MiB). */
const WINDOW = 4 * 1024 * 1024

/** A file opened as a `ByteSource`; close it with `close()` when done. */
export const fileSource = async (path: string): Promise<ByteSource & { readonly close: () => Promise<void> }> => {
  const handle = await open(path, "r")
  const { size } = await handle.stat()
  let reused = new Uint8Array(0)
  let closed = false
  const readInto = (offset: number, length: number, transient: boolean) =>
    Effect.tryPromise({
      try: async () => {
        const wanted = Math.max(0, Math.min(length, size - offset))
        if (transient && reused.length < wanted) {
          const spare = spareWindows.findIndex((w) => w.length >= wanted)
          reused = spare >= 0 ? spareWindows.splice(spare, 1)[0]! : new Uint8Array(Math.max(wanted, WINDOW))
        }
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
    close: async () => {
      if (closed) return
      closed = true
      if (reused.length > 0 && spareWindows.length < SPARE_WINDOWS) spareWindows.push(reused)
      reused = new Uint8Array(0)
      await handle.close()
    },
  }
}

/** A signed file being written: the original's copy is under way; the update completes it. */
export interface SignedFileWriter {
  /** Appends the update to the copy and moves the finished file to the target (never a half-written target). */
  readonly finish: (update: Uint8Array) => Promise<void>
  /** Removes the unfinished copy (the target is untouched). */
  readonly abandon: () => Promise<void>
}

/**
 * Starts copying `original` (of `size` bytes, the length the update was made for) beside `target` at
 * once, a kernel copy with no buffering here, so the copy runs while the caller hashes and signs: a
 * large file costs about one read, not a read and then a copy.
 */
export const signedFileWriter = (original: string, size: number, target: string): SignedFileWriter => {
  const partial = `${target}.${randomUUID()}.partial`
  const copying = copyFile(original, partial)
  // Observed by finish or abandon; an unobserved rejection must not end the process meanwhile.
  copying.catch(() => undefined)
  const abandon = async () => {
    await copying.catch(() => undefined)
    await rm(partial, { force: true })
  }
  return {
    finish: async (update) => {
      try {
        await copying
        // The update's byte ranges and xref offsets name the original's length: another length would not verify.
        const copied = (await stat(partial)).size
        if (copied !== size) throw new Error(`${original} changed while it was being signed (${size} bytes, now ${copied})`)
        await appendFile(partial, update)
        await rename(partial, target)
      } catch (e) {
        await abandon()
        throw e
      }
    },
    abandon,
  }
}

/** Writes the signed file: a copy of the original (`size` bytes, as the update was made for) with the update appended. */
export const writeSignedFile = async (original: string, update: Uint8Array, target: string): Promise<void> =>
  signedFileWriter(original, (await stat(original)).size, target).finish(update)
