/**
 * Opening a PDF for an incremental update: the trailer and `startxref` from the tail, the
 * cross-reference sections (classic tables and xref streams, hybrid files, `/Prev` chains)
 * and objects on demand, compressed ones from their object streams. Only what is asked for
 * is read.
 */
import { Effect } from "effect"
import { PdfUnreadable } from "../errors/catalogue.ts"
import type { ByteSource } from "./byte-source.ts"
import { decodeStream } from "./filters.ts"
import { arrayOf, fromLatin1, nameOf, numberOf, PdfDict, PdfRef, PdfStream, type PdfValue } from "./objects.ts"
import { Cursor, MalformedPdf, NeedMoreBytes } from "./parse.ts"

/** Where an object lives: at a file offset, inside an object stream, or free. */
export type XrefEntry =
  | { readonly kind: "offset"; readonly offset: number; readonly gen: number }
  | { readonly kind: "compressed"; readonly stream: number; readonly index: number }
  | { readonly kind: "free" }

/** An opened document: its newest trailer and a resolver for its objects. */
export interface PdfDocument {
  readonly source: ByteSource
  /** The newest trailer (for an xref stream, its dictionary). */
  readonly trailer: PdfDict
  /** Offset of the newest cross-reference section (the new `/Prev`). */
  readonly startxref: number
  /** The newest section is an xref stream (an update then writes one too). */
  readonly xrefStream: boolean
  /** One more than the highest object number in use (`/Size`). */
  readonly size: number
  /** The file ends with an end-of-line (else an update starts with one). */
  readonly endsWithEol: boolean
  readonly entries: ReadonlyMap<number, XrefEntry>
  /** The current version of an object (a stream's data stays encoded). */
  readonly resolve: (ref: PdfRef) => Effect.Effect<PdfValue | PdfStream, PdfUnreadable>
}

const unreadable = (detail: string) => new PdfUnreadable({ detail })

/**
 * Parses with `parse` over a window read at `offset`, doubling the window while the parse
 * runs off its end; `first` is the first window's size.
 */
export const parseAt = <A>(source: ByteSource, offset: number, parse: (c: Cursor) => A, first = 4096): Effect.Effect<A, PdfUnreadable> =>
  Effect.gen(function* () {
    if (offset < 0 || offset >= source.size) return yield* unreadable(`offset ${offset} is outside the file`)
    for (let size = first; ; size *= 4) {
      const length = Math.min(size, source.size - offset)
      const bytes = yield* source.read(offset, length)
      const cursor = new Cursor(bytes, offset + length >= source.size)
      try {
        return parse(cursor)
      } catch (e) {
        if (e instanceof NeedMoreBytes && !cursor.final) continue
        if (e instanceof MalformedPdf) return yield* unreadable(`${e.detail} (object at ${offset})`)
        if (e instanceof NeedMoreBytes) return yield* unreadable(`truncated at ${offset}`)
        return yield* Effect.die(e)
      }
    }
  })

/** `/Length` of a stream dictionary, following a reference to it. */
const streamLength = (dictionary: PdfDict, resolve: PdfDocument["resolve"]) =>
  Effect.gen(function* () {
    const raw = dictionary.get("Length")
    const length = raw instanceof PdfRef ? yield* resolve(raw) : raw
    if (typeof length !== "number" || length < 0) return yield* unreadable("a stream without a valid /Length")
    return length
  })

/** Reads an indirect object at `offset`: its number, and its value or stream. */
const readObjectAt = (source: ByteSource, offset: number, resolve: PdfDocument["resolve"]) =>
  Effect.gen(function* () {
    const head = yield* parseAt(source, offset, (c) => {
      const header = c.readObjectHeader()
      const value = c.readValue()
      const isStream = value instanceof PdfDict && c.atWord("stream")
      if (isStream) c.readStreamKeyword()
      return { header, value, isStream, dataStart: offset + c.pos }
    })
    if (!head.isStream) return { header: head.header, value: head.value as PdfValue | PdfStream }
    const dictionary = head.value as PdfDict
    const length = yield* streamLength(dictionary, resolve)
    if (head.dataStart + length > source.size) return yield* unreadable(`a stream at ${offset} runs past the end of the file`)
    const data = yield* source.read(head.dataStart, length)
    return { header: head.header, value: new PdfStream(dictionary, data) as PdfValue | PdfStream }
  })

const readUInt = (bytes: Uint8Array, at: number, width: number): number => {
  let v = 0
  for (let i = 0; i < width; i++) v = v * 256 + bytes[at + i]!
  return v
}

/** The entries of an xref stream, newest section first-seen semantics left to the caller. */
const xrefStreamEntries = (stream: PdfStream) =>
  Effect.gen(function* () {
    const w = arrayOf(stream.dict.get("W"))?.map((x) => (typeof x === "number" ? x : -1)) ?? []
    if (w.length !== 3 || w.some((x) => x < 0)) return yield* unreadable("an xref stream without a valid /W")
    const size = numberOf(stream.dict.get("Size")) ?? 0
    const index = (arrayOf(stream.dict.get("Index")) ?? [0, size]).map((x) => (typeof x === "number" ? x : 0))
    const data = yield* decodeStream(stream)
    const row = w[0]! + w[1]! + w[2]!
    const out: Array<[number, XrefEntry]> = []
    let at = 0
    for (let s = 0; s + 1 < index.length; s += 2) {
      for (let k = 0; k < index[s + 1]!; k++) {
        if (at + row > data.length) return yield* unreadable("an xref stream shorter than its /Index")
        const type = w[0] === 0 ? 1 : readUInt(data, at, w[0]!)
        const f2 = readUInt(data, at + w[0]!, w[1]!)
        const f3 = readUInt(data, at + w[0]! + w[1]!, w[2]!)
        at += row
        const num = index[s]! + k
        if (type === 0) out.push([num, { kind: "free" }])
        else if (type === 1) out.push([num, { kind: "offset", offset: f2, gen: f3 }])
        else if (type === 2) out.push([num, { kind: "compressed", stream: f2, index: f3 }])
      }
    }
    return out
  })

/** A classic table at `offset` (`xref` … `trailer <<…>>`). */
const readXrefTable = (source: ByteSource, offset: number) =>
  parseAt(source, offset, (c) => {
    c.expectWord("xref")
    const out: Array<[number, XrefEntry]> = []
    while (c.isDigitNext()) {
      const start = c.readInteger()
      const count = c.readInteger()
      for (let k = 0; k < count; k++) {
        const off = c.readInteger()
        const gen = c.readInteger()
        const type = c.peekWord()
        c.pos += type.length
        if (type === "n") out.push([start + k, { kind: "offset", offset: off, gen }])
        else if (type === "f") out.push([start + k, { kind: "free" }])
        else throw new MalformedPdf(`bad xref entry type ${type}`)
      }
    }
    c.expectWord("trailer")
    const trailer = c.readValue()
    if (!(trailer instanceof PdfDict)) throw new MalformedPdf("trailer is not a dictionary")
    return { entries: out, trailer }
  }, 64 * 1024)

/** Finds `startxref` in the last kilobytes of the file. */
const findStartxref = (source: ByteSource) =>
  Effect.gen(function* () {
    const tailLength = Math.min(source.size, 4096)
    const tail = fromLatin1(yield* source.read(source.size - tailLength, tailLength))
    const at = tail.lastIndexOf("startxref")
    const match = at === -1 ? null : /^startxref\s+(\d+)/.exec(tail.slice(at))
    if (!tail.includes("%%EOF") || match === null) return yield* unreadable("no startxref and %%EOF at the end of the file")
    return { startxref: Number(match[1]), endsWithEol: /[\r\n]$/.test(tail) }
  })

/** Opens a PDF: reads its cross-reference chain and newest trailer. */
export const openPdf = (source: ByteSource): Effect.Effect<PdfDocument, PdfUnreadable> =>
  Effect.gen(function* () {
    const head = fromLatin1(yield* source.read(0, Math.min(1024, source.size)))
    if (!head.includes("%PDF-")) return yield* unreadable("no %PDF- header")
    const { startxref, endsWithEol } = yield* findStartxref(source)
    const entries = new Map<number, XrefEntry>()
    const add = (list: ReadonlyArray<[number, XrefEntry]>) => {
      for (const [num, entry] of list) if (!entries.has(num)) entries.set(num, entry)
    }
    const objectStreams = new Map<number, ReadonlyArray<PdfValue>>()

    const resolve = (r: PdfRef): Effect.Effect<PdfValue | PdfStream, PdfUnreadable> =>
      Effect.gen(function* () {
        const entry = entries.get(r.num)
        if (entry === undefined || entry.kind === "free") return null
        if (entry.kind === "offset") {
          const { header, value } = yield* readObjectAt(source, entry.offset, resolve)
          if (header.num !== r.num) return yield* unreadable(`object ${r.num} is not at its xref offset ${entry.offset}`)
          return value
        }
        const objects = yield* objectStream(entry.stream)
        const value = objects[entry.index]
        return value === undefined ? null : value
      })

    const objectStream = (num: number) =>
      Effect.gen(function* () {
        const cached = objectStreams.get(num)
        if (cached !== undefined) return cached
        const stream = yield* resolve(new PdfRef(num, 0))
        if (!(stream instanceof PdfStream) || nameOf(stream.dict.get("Type")) !== "ObjStm") return yield* unreadable(`object ${num} is not an object stream`)
        const n = numberOf(stream.dict.get("N")) ?? 0
        const first = numberOf(stream.dict.get("First")) ?? 0
        const data = yield* decodeStream(stream)
        const objects = yield* Effect.try({
          try: () => {
            const header = new Cursor(data.subarray(0, first), true)
            const offsets: Array<number> = []
            for (let k = 0; k < n; k++) {
              header.readInteger()
              offsets.push(header.readInteger())
            }
            return offsets.map((o) => new Cursor(data.subarray(first + o), true).readValue())
          },
          catch: (e) => unreadable(`object stream ${num}: ${e instanceof MalformedPdf ? e.detail : "unreadable"}`),
        })
        objectStreams.set(num, objects)
        return objects
      })

    let trailer: PdfDict | undefined
    let xrefStream = false
    const seen = new Set<number>()
    for (let at: number | undefined = startxref; at !== undefined;) {
      if (seen.has(at) || seen.size > 10_000) return yield* unreadable("a loop in the /Prev chain")
      seen.add(at)
      const isTable = fromLatin1(yield* source.read(at, Math.min(4, source.size - at))) === "xref"
      let sectionTrailer: PdfDict
      if (isTable) {
        const table = yield* readXrefTable(source, at)
        sectionTrailer = table.trailer
        add(table.entries)
        const stm = numberOf(table.trailer.get("XRefStm"))
        if (stm !== undefined) {
          const hybrid = yield* readObjectAt(source, stm, resolve)
          if (hybrid.value instanceof PdfStream) add(yield* xrefStreamEntries(hybrid.value))
        }
      } else {
        const { value } = yield* readObjectAt(source, at, resolve)
        if (!(value instanceof PdfStream) || nameOf(value.dict.get("Type")) !== "XRef") return yield* unreadable(`no xref table or stream at ${at}`)
        sectionTrailer = value.dict
        add(yield* xrefStreamEntries(value))
      }
      if (trailer === undefined) {
        trailer = sectionTrailer
        xrefStream = !isTable
      }
      at = numberOf(sectionTrailer.get("Prev"))
    }
    if (trailer === undefined || !(trailer.get("Root") instanceof PdfRef)) return yield* unreadable("the trailer has no /Root")
    const size = Math.max(numberOf(trailer.get("Size")) ?? 0, ...[...entries.keys()].map((n) => n + 1))
    return { source, trailer, startxref, xrefStream, size, endsWithEol, entries, resolve }
  })

/** Resolves `value` if it is a reference (one level). */
export const deref = (doc: PdfDocument, value: PdfValue | undefined): Effect.Effect<PdfValue | PdfStream | undefined, PdfUnreadable> =>
  value instanceof PdfRef ? doc.resolve(value) : Effect.succeed(value)

/** Resolves to a dictionary or fails with `what` named. */
export const dictAt = (doc: PdfDocument, value: PdfValue | undefined, what: string): Effect.Effect<PdfDict, PdfUnreadable> =>
  Effect.flatMap(deref(doc, value), (v) => (v instanceof PdfDict ? Effect.succeed(v) : Effect.fail(unreadable(`${what} is not a dictionary`))))
