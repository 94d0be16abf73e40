/**
 * Hostile PDFs, built byte by byte: the files of issue 13 that stopped the server (a zero-width
 * xref stream, an object stream inside itself, a `/Length` that is its own stream, a `/Kids`
 * array naming its own field eight times, a flate bomb), deep nesting and a large xref table, and
 * the small assembler they share. Each is a few hundred bytes (the bomb 1 MiB).
 */
import { concatBytes as concat, PdfObjects } from "@signet/core"
import { deflateRawSync, constants } from "node:zlib"

const { latin1 } = PdfObjects

/** One indirect object: its text, and optionally stream data after its dictionary. */
export interface RawObject {
  readonly num: number
  readonly body: string
  readonly stream?: Uint8Array
}

const objectBytes = (o: RawObject): Uint8Array =>
  o.stream === undefined
    ? latin1(`${o.num} 0 obj\n${o.body}\nendobj\n`)
    : concat([latin1(`${o.num} 0 obj\n${o.body}\nstream\n`), o.stream, latin1("\nendstream\nendobj\n")])

/** The header and `objects` one after another: the parts, where each object starts, and the length so far. */
const body = (objects: ReadonlyArray<RawObject>) => {
  const parts: Array<Uint8Array> = [latin1("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")]
  let length = parts[0]!.length
  const offsets = new Map<number, number>()
  for (const o of objects) {
    offsets.set(o.num, length)
    const bytes = objectBytes(o)
    parts.push(bytes)
    length += bytes.length
  }
  return { parts, offsets, length }
}

/**
 * A PDF of `objects` with a classic xref table (entries 0..size-1, the listed ones in use) and
 * `trailer` entries; the `/Size` is written unless the trailer names one.
 */
export const pdfWithTable = (objects: ReadonlyArray<RawObject>, trailer: string): Uint8Array => {
  const { parts, offsets, length } = body(objects)
  const size = Math.max(0, ...objects.map((o) => o.num)) + 1
  let table = `xref\n0 ${size}\n`
  for (let n = 0; n < size; n++) {
    const at = offsets.get(n)
    table += at === undefined ? "0000000000 65535 f\r\n" : `${String(at).padStart(10, "0")} 00000 n\r\n`
  }
  const sizeEntry = /\/Size\b/.test(trailer) ? "" : `/Size ${size}`
  parts.push(latin1(`${table}trailer\n<<${sizeEntry}${trailer}>>\nstartxref\n${length}\n%%EOF\n`))
  return concat(parts)
}

/** A PDF of `objects` whose cross-reference section is the xref stream object `xref` (its offset goes after `startxref`). */
export const pdfWithXrefStream = (objects: ReadonlyArray<RawObject>, xref: (offsets: ReadonlyMap<number, number>, at: number) => RawObject): Uint8Array => {
  const { parts, offsets, length } = body(objects)
  parts.push(objectBytes(xref(offsets, length)), latin1(`startxref\n${length}\n%%EOF\n`))
  return concat(parts)
}

/** Rows of an xref stream with `/W [1 2 1]`: `[type, field2, field3]` each. */
export const xrefRows = (rows: ReadonlyArray<readonly [number, number, number]>): Uint8Array =>
  Uint8Array.from(rows.flatMap(([t, a, b]) => [t, (a >> 8) & 0xff, a & 0xff, b & 0xff]))

const catalogAndPage: ReadonlyArray<RawObject> = [
  { num: 1, body: "<</Type/Catalog/Pages 2 0 R>>" },
  { num: 2, body: "<</Type/Pages/Kids[3 0 R]/Count 1>>" },
  { num: 3, body: "<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>" },
]

/** Issue 13, item 1: an xref stream whose rows are zero bytes wide, with 400,000,000 of them. */
export const zeroWidthXrefPdf = (): Uint8Array =>
  pdfWithXrefStream(catalogAndPage, (_, at) => ({
    num: 4,
    body: `<</Type/XRef/W[0 0 0]/Index[0 400000000]/Size 400000000/Root 1 0 R/Length 0>>`,
    stream: new Uint8Array(0),
  }))

/** Issue 13, item 1: the catalog lives in object stream 5, and object 5 itself is listed as inside object stream 5. */
export const selfContainingObjectStreamPdf = (): Uint8Array =>
  pdfWithXrefStream([], (_, at) => {
    const rows = xrefRows([
      [0, 0, 255],
      [2, 5, 0],
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
      [2, 5, 1],
      [1, at, 0],
    ])
    return { num: 6, body: `<</Type/XRef/W[1 2 1]/Size 7/Root 1 0 R/Length ${rows.length}>>`, stream: rows }
  })

/** Issue 13, item 1: the catalog is a stream whose `/Length` is a reference to itself. */
export const selfLengthPdf = (): Uint8Array => pdfWithTable([{ num: 1, body: "<</Type/Catalog/Length 1 0 R>>", stream: latin1("data") }], "/Root 1 0 R")

/**
 * Issue 13, item 6: a form field whose `/Kids` names the field itself eight times (and a page
 * tree whose root names itself eight times): 8^16 paths to a walk without a visited set.
 */
export const selfKidsPdf = (): Uint8Array => {
  const eight = (ref: string) => Array.from({ length: 8 }, () => ref).join(" ")
  return pdfWithTable(
    [
      { num: 1, body: "<</Type/Catalog/Pages 2 0 R/AcroForm<</Fields[3 0 R]>>>>" },
      { num: 2, body: `<</Type/Pages/Kids[${eight("2 0 R")}]/Count 8>>` },
      { num: 3, body: `<</FT/Sig/T(loop)/Kids[${eight("3 0 R")}]>>` },
    ],
    "/Root 1 0 R",
  )
}

/**
 * `size` bytes of zlib data that inflate to about 1,000 times as many zeros: one flushed deflate
 * block of zeros repeated (its back-references only ever see zeros), then an empty final block.
 */
let zeroBlock: Uint8Array | undefined

export const flateBomb = (size = 1024 * 1024): Uint8Array => {
  zeroBlock ??= new Uint8Array(deflateRawSync(new Uint8Array(4 * 1024 * 1024), { level: 9, finishFlush: constants.Z_SYNC_FLUSH }))
  const block = zeroBlock
  const parts: Array<Uint8Array> = [Uint8Array.of(0x78, 0xda)]
  for (let n = 2; n + block.length + 6 <= size; n += block.length) parts.push(block)
  // Final empty fixed-Huffman block, then an Adler-32 no reader reaches (it stops at its limit first).
  parts.push(Uint8Array.of(0x03, 0x00, 0, 0, 0, 1))
  return concat(parts)
}

/** Issue 13, item 7: the xref stream is a 1 MiB flate bomb (about 1 GB of zeros). */
export const flateBombPdf = (): Uint8Array =>
  pdfWithXrefStream(catalogAndPage, () => {
    const bomb = flateBomb()
    return { num: 4, body: `<</Type/XRef/W[1 2 1]/Size 5/Root 1 0 R/Filter/FlateDecode/Length ${bomb.length}>>`, stream: bomb }
  })

/** Issue 13, item 14: the catalog holds arrays nested `depth` deep (a recursive reader overflows its stack). */
export const deepNestingPdf = (depth = 100_000): Uint8Array =>
  pdfWithTable([{ num: 1, body: `<</Type/Catalog/Pages 2 0 R/Deep ${"[".repeat(depth)}${"]".repeat(depth)}>>` }, ...catalogAndPage.slice(1)], "/Root 1 0 R")

/**
 * Issue 13, item 14: a well-formed PDF whose xref table lists `entries` objects (all but three
 * free): once spread into `Math.max(...)`, which overflows the stack.
 */
export const largeXrefTablePdf = (entries = 300_000): Uint8Array => pdfWithTable([...catalogAndPage, { num: entries - 1, body: "null" }], "/Root 1 0 R")

/** The poison PDFs of the acceptance test, by name. */
export const poisonPdfs = (): ReadonlyArray<{ readonly name: string; readonly pdf: Uint8Array }> => [
  { name: "zero-width xref rows", pdf: zeroWidthXrefPdf() },
  { name: "self-containing object stream", pdf: selfContainingObjectStreamPdf() },
  { name: "self-referencing /Length", pdf: selfLengthPdf() },
  { name: "8-way self-referencing /Kids", pdf: selfKidsPdf() },
  { name: "1 MiB flate bomb", pdf: flateBombPdf() },
]
