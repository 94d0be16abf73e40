/**
 * fast-check arbitraries of hostile PDFs: structure-aware files (xref tables and streams with
 * hostile `/W`, `/Index`, `/Size`, `/Prev`; object streams; references to themselves and in
 * cycles; deep nesting; flate bombs) and byte-level mutations of valid PDFs; and the run count,
 * from `SIGNET_FUZZ_RUNS` (the `pnpm fuzz` script raises it).
 */
import { concatBytes, PdfObjects } from "@signet/core"
import fc from "fast-check"
import { deflateSync } from "node:zlib"
import { flateBomb, pdfWithTable, pdfWithXrefStream, type RawObject } from "./poison.ts"

/** Cases of a PDF fuzz property: `SIGNET_FUZZ_RUNS` when set (`pnpm fuzz`), else `normal`. */
export const pdfFuzzRuns = (normal: number): number => {
  const given = Number(process.env.SIGNET_FUZZ_RUNS)
  return Number.isInteger(given) && given > 0 ? given : normal
}

/** The seed of the fuzz properties: `SIGNET_FUZZ_SEED` when set, else the fixed one of the test run. */
export const pdfFuzzSeed = (fixed: number): number => {
  const given = Number(process.env.SIGNET_FUZZ_SEED)
  return Number.isInteger(given) ? given : fixed
}

const { latin1 } = PdfObjects

const KEYS = [
  "Type",
  "Pages",
  "Kids",
  "Count",
  "Parent",
  "Length",
  "Filter",
  "DecodeParms",
  "Predictor",
  "Columns",
  "Colors",
  "BitsPerComponent",
  "AcroForm",
  "Fields",
  "FT",
  "T",
  "V",
  "ByteRange",
  "Contents",
  "SubFilter",
  "M",
  "N",
  "First",
  "W",
  "Index",
  "Size",
  "Prev",
  "XRefStm",
  "Root",
  "Annots",
  "MediaBox",
  "DSS",
  "Encrypt",
]
const NAMES = ["Catalog", "Pages", "Page", "Sig", "XRef", "ObjStm", "FlateDecode", "ASCIIHexDecode", "ETSI.CAdES.detached", "Widget", "Annot"]

/** A number a reader may choke on: negative, fractional, huge, or ordinary. */
const hostileNumber = fc.oneof(
  fc.integer({ min: -2, max: 12 }),
  fc.constantFrom(0, 1, 255, 65_535, 400_000_000, 2 ** 31, 2 ** 53, -1, 8_388_608),
  fc.double({ min: -1e12, max: 1e12, noNaN: true }).map((d) => Number(d.toFixed(3))),
)

const numberText = hostileNumber.map((n) => (Number.isInteger(n) ? String(n) : n.toFixed(3)))
const refText = fc.integer({ min: 0, max: 9 }).map((n) => `${n} 0 R`)

/** A PDF value as text, nesting up to a few levels, or (sometimes) hundreds. */
const valueText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    numberText,
    refText,
    fc.constantFrom(...NAMES).map((n) => `/${n}`),
    fc.constantFrom("true", "null", "(Signature1)", "<3082>", "(D:20261126)", "()"),
    fc.array(tie("value"), { maxLength: 8 }).map((items) => `[${items.join(" ")}]`),
    fc.array(fc.tuple(fc.constantFrom(...KEYS), tie("value")), { maxLength: 6 }).map((entries) => `<<${entries.map(([k, v]) => `/${k} ${v}`).join(" ")}>>`),
    fc.integer({ min: 50, max: 400 }).map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`),
    fc.integer({ min: 2, max: 16 }).chain((n) => refText.map((r) => `[${Array.from({ length: n }, () => r).join(" ")}]`)),
  ),
})).value

/** A dictionary with some of the keys a reader follows, hostile values in them. */
const dictText = fc
  .array(fc.tuple(fc.constantFrom(...KEYS), valueText), { maxLength: 8 })
  .map((entries) => `<<${entries.map(([k, v]) => `/${k} ${v}`).join(" ")}>>`)

/** Stream data: raw bytes, a zlib stream of them, a truncated one, or a small flate bomb. */
const streamData = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 256 }).map((b) => new Uint8Array(deflateSync(b))) },
  { weight: 2, arbitrary: fc.uint8Array({ minLength: 4, maxLength: 256 }).map((b) => new Uint8Array(deflateSync(b)).subarray(0, 6)) },
  // Bombs of 4 to 64 MB inflated: some under the inflate budget, some over it.
  { weight: 1, arbitrary: fc.integer({ min: 4_000, max: 64_000 }).map((size) => flateBomb(size)) },
)

/** One indirect object: a plain dictionary or value, or a stream with a `/Length` that may lie or point anywhere. */
const rawObject: fc.Arbitrary<RawObject> = fc
  .record({
    num: fc.integer({ min: 1, max: 9 }),
    body: fc.oneof(dictText, valueText),
    stream: fc.option(fc.record({ data: streamData, length: fc.oneof(fc.constant("exact"), numberText, refText) }), { nil: undefined }),
  })
  .map(({ num, body, stream }) => {
    if (stream === undefined) return { num, body }
    const length = stream.length === "exact" ? String(stream.data.length) : stream.length
    const dict = body.startsWith("<<") ? body.slice(0, -2) : "<<"
    return { num, body: `${dict}/Length ${length}>>`, stream: stream.data }
  })

/** An object stream (`/ObjStm`) whose header and `/N`, `/First` may disagree with its data. */
const objectStream: fc.Arbitrary<RawObject> = fc
  .record({
    num: fc.integer({ min: 1, max: 9 }),
    values: fc.array(valueText, { maxLength: 5 }),
    n: fc.oneof(fc.constant(-1), hostileNumber),
    first: fc.oneof(fc.constant(-1), hostileNumber),
    compress: fc.boolean(),
  })
  .map(({ num, values, n, first, compress }) => {
    let header = ""
    let body = ""
    values.forEach((v, i) => {
      header += `${i + 1} ${body.length} `
      body += `${v}\n`
    })
    const plain = latin1(header + body)
    const data = compress ? new Uint8Array(deflateSync(plain)) : plain
    const nValue = n === -1 ? values.length : n
    const firstValue = first === -1 ? header.length : first
    return { num, body: `<</Type/ObjStm/N ${nValue}/First ${firstValue}${compress ? "/Filter/FlateDecode" : ""}/Length ${data.length}>>`, stream: data }
  })

/** xref stream rows: `[type, field2, field3]`, pointing at real offsets, object streams, or anywhere. */
const xrefRow = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 70_000 }), fc.integer({ min: 0, max: 300 }))

/** Any xref layout: hostile objects, trailer and cross-reference section, rarely a file that opens. */
const hostileLayout: fc.Arbitrary<Uint8Array> = fc
  .record({
    objects: fc.array(fc.oneof({ weight: 3, arbitrary: rawObject }, { weight: 1, arbitrary: objectStream }), { maxLength: 8 }),
    table: fc.boolean(),
    trailer: fc.array(fc.tuple(fc.constantFrom("Root", "Size", "Prev", "XRefStm", "Encrypt"), fc.oneof(refText, numberText)), { maxLength: 4 }),
    rootRef: fc.integer({ min: 0, max: 9 }),
    w: fc.oneof(fc.constant(null), fc.array(fc.integer({ min: -1, max: 9 }), { maxLength: 4 })),
    index: fc.oneof(fc.constant(null), fc.array(hostileNumber, { maxLength: 6 })),
    size: fc.oneof(fc.constant(null), hostileNumber),
    rows: fc.array(xrefRow, { maxLength: 12 }),
    realOffsets: fc.boolean(),
    compressRows: fc.boolean(),
  })
  .map((c) => {
    const trailer = `/Root ${c.rootRef} 0 R${c.trailer.map(([k, v]) => `/${k} ${v}`).join("")}`
    const unique = [...new Map(c.objects.map((o) => [o.num, o])).values()]
    if (c.table) return pdfWithTable(unique, trailer)
    return pdfWithXrefStream(unique, (offsets, at) => {
      const rows = c.realOffsets
        ? [
            [0, 0, 255] as const,
            ...Array.from({ length: 10 }, (_, n) => (offsets.has(n + 1) ? ([1, offsets.get(n + 1)!, 0] as const) : (c.rows[n] ?? [0, 0, 0]))),
          ]
        : c.rows
      // /W [1 2 1] unless hostile: fields of the row encoded at those widths.
      const widths = c.w ?? [1, 2, 1]
      const bytes: Array<number> = []
      for (const row of rows) {
        widths.slice(0, 3).forEach((w, i) => {
          for (let k = Math.max(0, w) - 1; k >= 0; k--) bytes.push(Math.floor((row[i] ?? 0) / 256 ** k) & 0xff)
        })
      }
      const plain = Uint8Array.from(bytes)
      const data = c.compressRows ? new Uint8Array(deflateSync(plain)) : plain
      const entries = [
        "/Type/XRef",
        `/W[${widths.join(" ")}]`,
        c.index === null ? "" : `/Index[${c.index.join(" ")}]`,
        `/Size ${c.size ?? rows.length}`,
        c.compressRows ? "/Filter/FlateDecode" : "",
        `/Length ${data.length}`,
        trailer,
      ]
      return { num: 10, body: `<<${entries.join("")}>>`, stream: data }
    })
  })

/** A signature field or page-tree node whose references may loop, repeat or point anywhere. */
const treeNode = fc
  .record({
    kids: fc.option(fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 8 }), { nil: undefined }),
    count: fc.option(hostileNumber, { nil: undefined }),
    sig: fc.boolean(),
    byteRange: fc.option(fc.array(hostileNumber, { maxLength: 5 }), { nil: undefined }),
    contents: fc.constantFrom("<3082000a>", "<>", "(x)", "7 0 R", "<30820100020101>"),
    extra: fc.array(fc.tuple(fc.constantFrom(...KEYS), valueText), { maxLength: 3 }),
  })
  .map((n) => {
    const kids = n.kids === undefined ? "" : `/Kids[${n.kids.map((k) => `${k} 0 R`).join(" ")}]`
    const v =
      n.byteRange === undefined
        ? ""
        : `/V<</Type/Sig/SubFilter/ETSI.CAdES.detached/ByteRange[${n.byteRange.join(" ")}]/Contents ${n.contents}/M(D:20261126060000Z)>>`
    return `<<${n.sig ? "/FT/Sig" : ""}/T(f)${kids}${n.count === undefined ? "" : `/Count ${n.count}`}${v}${n.extra.map(([k, x]) => `/${k} ${x}`).join("")}>>`
  })

/**
 * A file that opens (a sound xref, a catalog with `/Pages 2 0 R` and `/AcroForm` fields from
 * object 4) whose fields and page tree are hostile: the reader gets past the cross-reference
 * to the walks (`/Kids`, `/Parent`, `/Count`, `/V`, `/ByteRange`).
 */
const hostileTrees: fc.Arbitrary<Uint8Array> = fc
  .record({
    fields: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 4 }),
    pages: treeNode,
    nodes: fc.array(treeNode, { minLength: 6, maxLength: 6 }),
    table: fc.boolean(),
  })
  .map(({ fields, pages, nodes, table }) => {
    const objects: Array<RawObject> = [
      { num: 1, body: `<</Type/Catalog/Pages 2 0 R/AcroForm<</Fields[${fields.map((f) => `${f} 0 R`).join(" ")}]>>>>` },
      { num: 2, body: pages.replace("<<", "<</Type/Pages") },
      { num: 3, body: "<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>" },
      ...nodes.map((body, i) => ({ num: i + 4, body })),
    ]
    if (table) return pdfWithTable(objects, "/Root 1 0 R")
    return pdfWithXrefStream(objects, (offsets, at) => {
      const rows = [[0, 0, 255] as const, ...Array.from({ length: 9 }, (_, n) => [1, offsets.get(n + 1) ?? 0, 0] as const), [1, at, 0] as const]
      const data = Uint8Array.from(rows.flatMap(([t, a, b]) => [t, (a >> 8) & 0xff, a & 0xff, b]))
      return { num: 10, body: `<</Type/XRef/W[1 2 1]/Size 11/Root 1 0 R/Length ${data.length}>>`, stream: data }
    })
  })

/** A structure-aware hostile PDF: any layout (xref, object streams, trailer), or a sound layout with hostile trees. */
export const hostilePdf: fc.Arbitrary<Uint8Array> = fc.oneof(hostileLayout, hostileTrees)

/** One change to a file's bytes. */
type Mutation =
  | { readonly kind: "set"; readonly at: number; readonly byte: number }
  | { readonly kind: "delete"; readonly at: number; readonly length: number }
  | { readonly kind: "insert"; readonly at: number; readonly bytes: Uint8Array }
  | { readonly kind: "truncate"; readonly at: number }
  | { readonly kind: "duplicate"; readonly at: number; readonly length: number }

// Positions as fractions; half of them in the last 400 bytes, where the xref and trailer are.
const position = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }).map((f) => ({ tail: false, f })),
  fc.integer({ min: 1, max: 400 }).map((back) => ({ tail: true, f: back })),
)
const interesting = fc.constantFrom(...["0", "9", " ", "\n", "[", "]", "<", ">", "/", "(", ")", "R", "-", "%"].map((c) => c.charCodeAt(0)), 0, 255)

const mutation: fc.Arbitrary<{ readonly where: { tail: boolean; f: number }; readonly make: (at: number) => Mutation }> = fc.oneof(
  fc
    .tuple(position, fc.oneof(interesting, fc.integer({ min: 0, max: 255 })))
    .map(([where, byte]) => ({ where, make: (at: number): Mutation => ({ kind: "set", at, byte }) })),
  fc.tuple(position, fc.integer({ min: 1, max: 64 })).map(([where, length]) => ({ where, make: (at: number): Mutation => ({ kind: "delete", at, length }) })),
  fc
    .tuple(position, fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 16 }), valueText.map(latin1)))
    .map(([where, bytes]) => ({ where, make: (at: number): Mutation => ({ kind: "insert", at, bytes }) })),
  position.map((where) => ({ where, make: (at: number): Mutation => ({ kind: "truncate", at }) })),
  fc
    .tuple(position, fc.integer({ min: 1, max: 200 }))
    .map(([where, length]) => ({ where, make: (at: number): Mutation => ({ kind: "duplicate", at, length }) })),
)

const apply = (bytes: Uint8Array, m: Mutation): Uint8Array => {
  const at = Math.min(bytes.length, Math.max(0, m.at))
  const join = (...parts: Array<Uint8Array>) => concatBytes(parts)
  switch (m.kind) {
    case "set": {
      const out = new Uint8Array(bytes)
      if (at < out.length) out[at] = m.byte
      return out
    }
    case "delete":
      return join(bytes.subarray(0, at), bytes.subarray(at + m.length))
    case "insert":
      return join(bytes.subarray(0, at), m.bytes, bytes.subarray(at))
    case "truncate":
      return bytes.subarray(0, Math.max(at, 1))
    case "duplicate":
      return join(bytes.subarray(0, at), bytes.subarray(at, at + m.length), bytes.subarray(at))
  }
}

/** `valid` PDFs changed by one to four byte-level mutations (set, delete, insert, truncate, duplicate). */
export const mutatedPdf = (valid: ReadonlyArray<Uint8Array>): fc.Arbitrary<Uint8Array> =>
  fc.tuple(fc.integer({ min: 0, max: valid.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([i, mutations]) => {
    let bytes = valid[i]!
    for (const { where, make } of mutations) {
      const at = where.tail ? bytes.length - where.f : Math.floor(where.f * bytes.length)
      bytes = apply(bytes, make(at))
    }
    return bytes
  })
