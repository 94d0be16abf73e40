/**
 * PDF test support: sample PDFs made by pdf-lib (xref stream or classic table), PNGs, and the
 * Debian verifiers pdfsig, qpdf and pdftoppm (run asynchronously: they may call back into a
 * server in the same process).
 */
import { execFile } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { PDFDocument, StandardFonts, rgb } from "pdf-lib"
import { pngFile } from "../png.ts"
import { runTool, scratchFile, scratchPath } from "../tools.ts"

const run = promisify(execFile)

/** A PDF of `pages` pages with text, made by pdf-lib; `xrefStream` false writes a classic table. */
export const samplePdf = async (options: { readonly pages?: number; readonly xrefStream: boolean }): Promise<Uint8Array> => {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  for (let i = 0; i < (options.pages ?? 2); i++) {
    const page = pdf.addPage([595, 842])
    page.drawText(`Contract page ${i + 1}: the parties agree.`, { x: 50, y: 780, size: 16, font, color: rgb(0, 0, 0) })
  }
  return pdf.save({ useObjectStreams: options.xrefStream })
}

/** An RGBA PNG of `width`×`height`, each pixel from `pixel(x, y)`. */
export const rgbaPng = (width: number, height: number, pixel: (x: number, y: number) => readonly [number, number, number, number]): Uint8Array => {
  const raw = Buffer.alloc(height * (1 + width * 4))
  for (let y = 0; y < height; y++) {
    raw[y * (1 + width * 4)] = 0
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), y * (1 + width * 4) + 1 + x * 4)
  }
  return pngFile({ width, height, depth: 8, colour: 6 }, raw)
}

/** Writes bytes to a fresh temporary file and answers its path. */
export const tempFile = (name: string, bytes: Uint8Array): string => scratchFile(name, bytes)

/** What pdfsig says of each signature (it exits 0 even for invalid ones, so its text is parsed). */
export const pdfsig = async (path: string) => {
  const { stdout } = await run("pdfsig", [path]).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: `${e.stdout ?? ""}${e.stderr ?? ""}` }))
  const blocks = stdout.split(/^Signature #\d+:$/m).slice(1)
  return {
    text: stdout,
    signatures: blocks.map((b) => ({
      field: /Signature Field Name: (.*)/.exec(b)?.[1] ?? null,
      signed: !b.includes("The signature form field is not signed."),
      valid: b.includes("Signature Validation: Signature is Valid."),
      wholeDocument: b.includes("Total document signed"),
      signer: /Signer Certificate Common Name: (.*)/.exec(b)?.[1] ?? null,
      subFilter: /Signature Type: (.*)/.exec(b)?.[1] ?? null,
    })),
  }
}

/** `qpdf --check`: exit code and output. */
export const qpdfCheck = async (path: string) => runTool("qpdf", ["--check", path]).then((r) => ({ ok: r.ok, text: r.out }))

/** Renders one page to RGB pixels with pdftoppm (PPM at `dpi`). */
export const renderPage = async (path: string, page: number, dpi = 72) => {
  const prefix = scratchPath("render")
  const dir = dirname(prefix)
  await run("pdftoppm", ["-r", String(dpi), "-f", String(page), "-l", String(page), path, prefix])
  const file = readdirSync(dir).find((f) => join(dir, f).startsWith(prefix))!
  const ppm = readFileSync(join(dir, file))
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 40).toString("latin1"))!
  const width = Number(header[1]),
    height = Number(header[2])
  const pixels = ppm.subarray(header[0].length)
  return {
    width,
    height,
    at: (x: number, y: number) => [pixels[(y * width + x) * 3]!, pixels[(y * width + x) * 3 + 1]!, pixels[(y * width + x) * 3 + 2]!] as const,
  }
}
