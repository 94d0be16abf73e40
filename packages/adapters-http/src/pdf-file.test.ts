import { mkdtemp, readdir, readFile, rm, writeFile, appendFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { signedFileWriter, writeSignedFile } from "./pdf-file.ts"

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
