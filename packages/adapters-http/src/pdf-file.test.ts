import { mkdtemp, readdir, readFile, rm, writeFile, appendFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { fileSource, signedFileWriter, writeSignedFile } from "./pdf-file.ts"

let dir = ""
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "signet-pdf-file-"))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const original = Buffer.from("%PDF-1.7\n".padEnd(200_000, "x"), "latin1")
const update = new TextEncoder().encode("\n% the signed revision\n%%EOF\n")

describe("signedFileWriter", () => {
  it("writes the original followed by the update, and leaves nothing else beside it", async () => {
    await writeFile(join(dir, "in.pdf"), original)
    const writer = signedFileWriter(join(dir, "in.pdf"), original.length, join(dir, "out.pdf"))
    await writer.finish(update)
    expect(await readFile(join(dir, "out.pdf"))).toEqual(Buffer.concat([original, update]))
    expect((await readdir(dir)).sort()).toEqual(["in.pdf", "out.pdf"])
  })

  it("leaves no file when abandoned (a signature that failed)", async () => {
    await writeFile(join(dir, "in.pdf"), original)
    await signedFileWriter(join(dir, "in.pdf"), original.length, join(dir, "out.pdf")).abandon()
    expect(await readdir(dir)).toEqual(["in.pdf"])
  })

  it("refuses to finish when the original is not the length the update was made for, and writes nothing", async () => {
    await writeFile(join(dir, "in.pdf"), original)
    await appendFile(join(dir, "in.pdf"), "appended by someone else")
    await expect(signedFileWriter(join(dir, "in.pdf"), original.length, join(dir, "out.pdf")).finish(update)).rejects.toThrow(
      /changed while it was being signed/,
    )
    expect(await readdir(dir)).toEqual(["in.pdf"])
  })

  it("keeps writeSignedFile's contract: original + update at the target", async () => {
    await writeFile(join(dir, "in.pdf"), original)
    await writeSignedFile(join(dir, "in.pdf"), update, join(dir, "out.pdf"))
    expect((await readFile(join(dir, "out.pdf"))).length).toBe(original.length + update.length)
  })
})

describe("fileSource", () => {
  /** `size` bytes that differ from offset to offset and from file to file. */
  const pattern = (size: number, seed: number) => Uint8Array.from({ length: size }, (_, i) => (i * 31 + seed * 7 + (i >> 12)) & 0xff)
  const WINDOW = 4 * 1024 * 1024

  it("gives each open file its own window, also when windows of closed files are reused", async () => {
    const a = pattern(WINDOW + 5_000, 1)
    const b = pattern(300_000, 2)
    await writeFile(join(dir, "a.pdf"), a)
    await writeFile(join(dir, "b.pdf"), b)
    for (let round = 0; round < 3; round++) {
      const [sa, sb] = [await fileSource(join(dir, "a.pdf")), await fileSource(join(dir, "b.pdf"))]
      // Interleaved transient reads: each view is checked before the same source is read again.
      const first = await Effect.runPromise(sa.readTransient!(0, WINDOW))
      const other = await Effect.runPromise(sb.readTransient!(1_000, 200_000))
      expect(Buffer.from(first).equals(Buffer.from(a.subarray(0, WINDOW)))).toBe(true)
      expect(Buffer.from(other).equals(Buffer.from(b.subarray(1_000, 201_000)))).toBe(true)
      const tail = await Effect.runPromise(sa.readTransient!(WINDOW, WINDOW))
      expect(Buffer.from(tail).equals(Buffer.from(a.subarray(WINDOW)))).toBe(true)
      // A kept (non-transient) read is the caller's own, untouched by later reads or by closing.
      const kept = await Effect.runPromise(sb.read(0, 4_096))
      await sb.close()
      await sa.close()
      const next = await fileSource(join(dir, "a.pdf"))
      await Effect.runPromise(next.readTransient!(0, WINDOW))
      await next.close()
      expect(Buffer.from(kept).equals(Buffer.from(b.subarray(0, 4_096)))).toBe(true)
    }
  })
})
