/**
 * Writes `src/kyc/ocrb-atlas.ts`: the glyphs of the MRZ alphabet (A-Z, 0-9, `<`) rasterised once
 * from the OCR-B font of Debian's fonts-ocr-b by ImageMagick, 4-bit coverage, so the fixture
 * documents print their MRZ in the real font. Independent of kyc-local's classifier and its
 * training (a different rasterisation, at a different size, written to a different file).
 *
 *   npx tsx packages/testkit/scripts/ocrb-atlas.ts [--font /usr/share/fonts/opentype/ocr-b/OCRB.otf]
 */
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { parseArgs } from "node:util"

const { values } = parseArgs({ options: { font: { type: "string", default: "/usr/share/fonts/opentype/ocr-b/OCRB.otf" } } })
const SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
/** Cap height of the atlas, px: the fixtures print MRZ text 32-47 px high. */
const CAP = 40

const render = (pointsize: number) => {
  const args = ["-font", values.font, "-pointsize", String(pointsize), "-background", "white", "-fill", "black", `label:${SYMBOLS}`]
  const [width, height] = execFileSync("convert", [...args, "-format", "%w %h", "info:"], { encoding: "utf8" })
    .trim()
    .split(" ")
    .map(Number) as [number, number]
  const raw = execFileSync("convert", [...args, "-depth", "8", "gray:-"], { maxBuffer: 1 << 26 })
  return { width, height, raw }
}
// the cap height at 100 pt (rows of the H with ink), then the point size that gives CAP
const capRows = (img: { width: number; height: number; raw: Buffer }) => {
  const advance = img.width / SYMBOLS.length
  const k = SYMBOLS.indexOf("H")
  let top = img.height
  let bottom = 0
  for (let y = 0; y < img.height; y++)
    for (let x = Math.ceil(k * advance); x < Math.floor((k + 1) * advance); x++)
      if (img.raw[y * img.width + x]! < 128) {
        top = Math.min(top, y)
        bottom = Math.max(bottom, y + 1)
      }
  return { top, bottom }
}
const probe = capRows(render(100))
const pointsize = (100 * CAP) / (probe.bottom - probe.top)
const img = render(pointsize)
const cap = capRows(img)
const advance = img.width / SYMBOLS.length
const cellWidth = Math.ceil(advance)
// rows from a fifth of the cap above the capitals to a fifth below (Q's tail, J)
const margin = Math.ceil(CAP / 5)
const top = cap.top - margin
const rows = cap.bottom - cap.top + 2 * margin
const nibbles: Array<number> = []
for (let k = 0; k < SYMBOLS.length; k++)
  for (let y = top; y < top + rows; y++)
    for (let i = 0; i < cellWidth; i++) {
      const x = Math.round(k * advance) + i
      const v = x < img.width && y >= 0 && y < img.height ? img.raw[y * img.width + x]! : 255
      nibbles.push(Math.round((15 * (255 - v)) / 255))
    }
const bytes = Buffer.alloc(Math.ceil(nibbles.length / 2))
for (let i = 0; i < nibbles.length; i++) bytes[i >> 1]! |= nibbles[i]! << (i % 2 === 0 ? 4 : 0)
const base64 = bytes.toString("base64")
const out = path.join(import.meta.dirname, "../src/kyc/ocrb-atlas.ts")
writeFileSync(
  out,
  `/**
 * The MRZ alphabet in OCR-B (written by \`scripts/ocrb-atlas.ts\`; do not edit): per symbol a cell of
 * \`cellWidth\` × \`rows\` px, 4-bit ink coverage (high nibble first), row by row; the capitals span rows
 * \`capTop\` to \`capTop + cap\`; one symbol every \`advance\` px. Rasterised by ImageMagick from OCR B of
 * Debian's fonts-ocr-b: outlines © 1995, 2010 Norbert Schwarz ("You may freely use, modify and/or
 * distribute this file, without limitation"), packaging © 2012 Matthew Skala (public domain).
 */
/** The atlas's geometry and its packed coverage. */
export const OCRB_ATLAS = {
  symbols: "${SYMBOLS}",
  cellWidth: ${cellWidth},
  rows: ${rows},
  capTop: ${margin},
  cap: ${cap.bottom - cap.top},
  advance: ${Number(advance.toFixed(4))},
  data: [
${(base64.match(/.{1,140}/g) ?? []).map((c) => `    "${c}",`).join("\n")}
  ],
} as const
`,
)
process.stderr.write(`wrote ${out}: ${SYMBOLS.length} glyphs of ${cellWidth}×${rows} px, cap ${cap.bottom - cap.top} px, advance ${advance.toFixed(2)} px\n`)
