/**
 * Opening a PDF for an incremental update: the trailer and `startxref` from the tail, the
 * cross-reference sections (classic tables and xref streams, hybrid files, `/Prev` chains)
 * and objects on demand, compressed ones from their object streams. Only what is asked for
 * is read, and all of it is charged to the document's `PdfBudget`; a reference that leads back
 * to itself (a `/Length`, an object stream containing itself) is refused, not followed.
 */
import { Effect } from "effect"
import { PdfUnreadable, type PdfTooComplex } from "./errors.ts"
import { PDF_BUDGETS, PdfBudget, tooComplex } from "./budget.ts"
import type { ByteSource } from "./byte-source.ts"
import { decodeStream } from "./filters.ts"
import { arrayOf, fromLatin1, nameOf, numberOf, PdfDict, PdfRef, PdfStream, type PdfValue } from "./objects.ts"
import { Cursor, MalformedPdf, NeedMoreBytes, NestingTooDeep } from "./parse.ts"

/** Every way reading a PDF fails: malformed (`PdfUnreadable`) or past a budget (`PdfTooComplex`). */
export type PdfReadError = PdfUnreadable | PdfTooComplex

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
  readonly resolve: (ref: PdfRef) => Effect.Effect<PdfValue | PdfStream, PdfReadError>
  /** What reading this document has spent so far. */
  readonly budget: PdfBudget
}

const unreadable = (detail: string) => new PdfUnreadable({ detail })

/** A catalogued read error thrown by a parse callback (a budget checked mid-parse). */
const isReadError = (e: unknown): e is PdfReadError => e instanceof PdfUnreadable || (e instanceof Error && "_tag" in e && e._tag === "PdfTooComplex")

/**
 * Parses with `parse` over a window read at `offset`, quadrupling the window while the parse
 * runs off its end; `first` is the first window's size. Every window is charged to `budget`.
 */
export const parseAt = <A>(source: ByteSource, offset: number, parse: (c: Cursor) => A, budget: PdfBudget, first = 4096): Effect.Effect<A, PdfReadError> =>
  Effect.gen(function* () {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset >= source.size) return yield* unreadable(`offset ${offset} is outside the file`)
    for (let size = first; ; size *= 4) {
      const length = Math.min(size, source.size - offset)
      const spent = budget.spendParsed(length)
      if (spent !== undefined) return yield* spent
      const bytes = yield* source.read(offset, length)
      const cursor = new Cursor(bytes, offset + length >= source.size)
      try {
        return parse(cursor)
      } catch (e) {
        if (e instanceof NeedMoreBytes && !cursor.final) continue
        if (e instanceof MalformedPdf) return yield* unreadable(`${e.detail} (object at ${offset})`)
        if (e instanceof NestingTooDeep) return yield* tooComplex(`${e.detail} (object at ${offset})`)
        if (isReadError(e)) return yield* Effect.fail(e)
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
    if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) return yield* unreadable("a stream without a valid /Length")
    return length
  })

/** Reads an indirect object at `offset`: its number, and its value or stream. */
const readObjectAt = (source: ByteSource, offset: number, resolve: PdfDocument["resolve"], budget: PdfBudget) =>
  Effect.gen(function* () {
    const spent = budget.spendObject()
    if (spent !== undefined) return yield* spent
    const head = yield* parseAt(
      source,
      offset,
      (c) => {
        const header = c.readObjectHeader()
        const value = c.readValue()
        const isStream = value instanceof PdfDict && c.atWord("stream")
        if (isStream) c.readStreamKeyword()
        return { header, value, isStream, dataStart: offset + c.pos }
      },
      budget,
    )
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

const isCount = (x: PdfValue) => typeof x === "number" && Number.isSafeInteger(x) && x >= 0

/** Checks that `count` entries from object `start` fit the entry budget and the object-number limit. */
const checkSubsection = (start: number, count: number, entries: { count: number }): PdfReadError | undefined => {
  if (start + count - 1 > PDF_BUDGETS.maxObjectNumber) return unreadable(`object numbers above ${PDF_BUDGETS.maxObjectNumber}`)
  entries.count += count
  if (entries.count > PDF_BUDGETS.xrefEntries) return tooComplex(`more than ${PDF_BUDGETS.xrefEntries} cross-reference entries`)
  return undefined
}

/**
 * The entries of an xref stream, newest section first-seen semantics left to the caller. A row
 * of zero bytes would never advance, so `/W` must add up to at least one byte, and every
 * `/Index` subsection must fit in the decoded data before any of it is read.
 */
const xrefStreamEntries = (stream: PdfStream, budget: PdfBudget, entries: { count: number }) =>
  Effect.gen(function* () {
    const w = (arrayOf(stream.dict.get("W")) ?? []).map((x) => (typeof x === "number" && Number.isInteger(x) ? x : -1))
    if (w.length !== 3 || w.some((x) => x < 0 || x > 8) || w[0]! + w[1]! + w[2]! === 0) return yield* unreadable("an xref stream without a valid /W")
    const sizeValue = stream.dict.get("Size") ?? 0
    if (!isCount(sizeValue)) return yield* unreadable("an xref stream without a valid /Size")
    const indexValue = arrayOf(stream.dict.get("Index")) ?? [0, sizeValue]
    if (indexValue.length % 2 !== 0 || !indexValue.every(isCount)) return yield* unreadable("an xref stream without a valid /Index")
    const index = indexValue as ReadonlyArray<number>
    const data = yield* decodeStream(stream, budget)
    const row = w[0]! + w[1]! + w[2]!
    const out: Array<[number, XrefEntry]> = []
    let at = 0
    for (let s = 0; s + 1 < index.length; s += 2) {
      if (index[s + 1]! > (data.length - at) / row) return yield* unreadable("an xref stream shorter than its /Index")
      const problem = checkSubsection(index[s]!, index[s + 1]!, entries)
      if (problem !== undefined) return yield* problem
      for (let k = 0; k < index[s + 1]!; k++) {
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
const readXrefTable = (source: ByteSource, offset: number, budget: PdfBudget, entries: { count: number }) =>
  parseAt(
    source,
    offset,
    (c) => {
      c.expectWord("xref")
      const out: Array<[number, XrefEntry]> = []
      // The count is charged per parse attempt (a larger window parses again), so work on a copy.
      const charged = { count: entries.count }
      while (c.isDigitNext()) {
        const start = c.readInteger()
        const count = c.readInteger()
        const problem = checkSubsection(start, count, charged)
        if (problem !== undefined) throw problem
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
      entries.count = charged.count
      return { entries: out, trailer }
    },
    budget,
    64 * 1024,
  )

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

/** A decoded object stream: its data, where its objects start, and the objects parsed so far. */
interface ObjectStream {
  readonly data: Uint8Array
  readonly first: number
  readonly offsets: ReadonlyArray<number>
  readonly parsed: Map<number, PdfValue>
}

/**
 * Opens a PDF: reads its cross-reference chain and newest trailer. The document's `resolve`
 * caches what it read, charges each read to the document's budget, and refuses a reference it is
 * already resolving (a `/Length` that is its own stream, an object stream inside itself).
 */
export const openPdf = (source: ByteSource): Effect.Effect<PdfDocument, PdfReadError> =>
  Effect.gen(function* () {
    const budget = new PdfBudget()
    const head = fromLatin1(yield* source.read(0, Math.min(1024, source.size)))
    if (!head.includes("%PDF-")) return yield* unreadable("no %PDF- header")
    const { startxref, endsWithEol } = yield* findStartxref(source)
    const entries = new Map<number, XrefEntry>()
    const entryCount = { count: 0 }
    const add = (list: ReadonlyArray<[number, XrefEntry]>) => {
      for (const [num, entry] of list) if (!entries.has(num)) entries.set(num, entry)
    }
    const objectStreams = new Map<number, ObjectStream>()
    const resolved = new Map<number, PdfValue | PdfStream>()
    const resolving = new Set<number>()

    const resolveOnce = (r: PdfRef): Effect.Effect<PdfValue | PdfStream, PdfReadError> =>
      Effect.gen(function* () {
        const entry = entries.get(r.num)
        if (entry === undefined || entry.kind === "free") return null
        if (entry.kind === "offset") {
          const { header, value } = yield* readObjectAt(source, entry.offset, resolve, budget)
          if (header.num !== r.num) return yield* unreadable(`object ${r.num} is not at its xref offset ${entry.offset}`)
          return value
        }
        return yield* objectInStream(entry.stream, entry.index)
      })

    const resolve = (r: PdfRef): Effect.Effect<PdfValue | PdfStream, PdfReadError> =>
      Effect.suspend(() => {
        const cached = resolved.get(r.num)
        if (cached !== undefined) return Effect.succeed(cached)
        if (resolving.has(r.num)) return Effect.fail(unreadable(`object ${r.num} refers back to itself`))
        resolving.add(r.num)
        return resolveOnce(r).pipe(
          Effect.tap((value) => Effect.sync(() => value !== null && resolved.set(r.num, value))),
          Effect.ensuring(Effect.sync(() => resolving.delete(r.num))),
        )
      })

    const objectStream = (num: number) =>
      Effect.gen(function* () {
        const cached = objectStreams.get(num)
        if (cached !== undefined) return cached
        const stream = yield* resolve(new PdfRef(num, 0))
        if (!(stream instanceof PdfStream) || nameOf(stream.dict.get("Type")) !== "ObjStm") return yield* unreadable(`object ${num} is not an object stream`)
        const n = stream.dict.get("N") ?? 0
        const first = stream.dict.get("First") ?? 0
        if (!isCount(n) || !isCount(first)) return yield* unreadable(`object stream ${num} without a valid /N and /First`)
        const data = yield* decodeStream(stream, budget)
        // Each entry is two integers of at least two bytes each, so /N cannot exceed /First / 4.
        if ((n as number) > (first as number) / 4 + 1 || (first as number) > data.length)
          return yield* unreadable(`object stream ${num}: /N and /First do not fit its data`)
        const offsets = yield* Effect.try({
          try: () => {
            const header = new Cursor(data.subarray(0, first as number), true)
            const out: Array<number> = []
            for (let k = 0; k < (n as number); k++) {
              header.readInteger()
              out.push(header.readInteger())
            }
            return out
          },
          catch: (e) => unreadable(`object stream ${num}: ${e instanceof MalformedPdf ? e.detail : "unreadable"}`),
        })
        const loaded: ObjectStream = { data, first: first as number, offsets, parsed: new Map() }
        objectStreams.set(num, loaded)
        return loaded
      })

    // Objects of a stream are parsed one by one when asked for, each charged to the budget.
    const objectInStream = (num: number, index: number) =>
      Effect.gen(function* () {
        const stream = yield* objectStream(num)
        const cached = stream.parsed.get(index)
        if (cached !== undefined) return cached
        const offset = stream.offsets[index]
        if (offset === undefined || stream.first + offset >= stream.data.length) return null
        const spent = budget.spendObject()
        if (spent !== undefined) return yield* spent
        const cursor = new Cursor(stream.data.subarray(stream.first + offset), true)
        const value = yield* Effect.try({
          try: () => cursor.readValue(),
          catch: (e) =>
            e instanceof NestingTooDeep
              ? tooComplex(`${e.detail} (object stream ${num})`)
              : unreadable(`object stream ${num}: ${e instanceof MalformedPdf ? e.detail : "unreadable"}`),
        })
        const parsedSpent = budget.spendParsed(cursor.pos)
        if (parsedSpent !== undefined) return yield* parsedSpent
        stream.parsed.set(index, value)
        return value
      })

    let trailer: PdfDict | undefined
    let xrefStream = false
    const seen = new Set<number>()
    for (let at: number | undefined = startxref; at !== undefined; ) {
      if (seen.has(at)) return yield* unreadable("a loop in the /Prev chain")
      if (seen.size >= PDF_BUDGETS.xrefSections) return yield* tooComplex(`more than ${PDF_BUDGETS.xrefSections} cross-reference sections`)
      seen.add(at)
      if (!Number.isSafeInteger(at) || at < 0 || at >= source.size) return yield* unreadable(`a cross-reference section at ${at}, outside the file`)
      const isTable = fromLatin1(yield* source.read(at, Math.min(4, source.size - at))) === "xref"
      let sectionTrailer: PdfDict
      if (isTable) {
        const table = yield* readXrefTable(source, at, budget, entryCount)
        sectionTrailer = table.trailer
        add(table.entries)
        const stm = numberOf(table.trailer.get("XRefStm"))
        if (stm !== undefined) {
          const hybrid = yield* readObjectAt(source, stm, resolve, budget)
          if (hybrid.value instanceof PdfStream) add(yield* xrefStreamEntries(hybrid.value, budget, entryCount))
        }
      } else {
        const { value } = yield* readObjectAt(source, at, resolve, budget)
        if (!(value instanceof PdfStream) || nameOf(value.dict.get("Type")) !== "XRef") return yield* unreadable(`no xref table or stream at ${at}`)
        sectionTrailer = value.dict
        add(yield* xrefStreamEntries(value, budget, entryCount))
      }
      if (trailer === undefined) {
        trailer = sectionTrailer
        xrefStream = !isTable
      }
      at = numberOf(sectionTrailer.get("Prev"))
    }
    if (trailer === undefined || !(trailer.get("Root") instanceof PdfRef)) return yield* unreadable("the trailer has no /Root")
    const declared = trailer.get("Size") ?? 0
    if (!isCount(declared) || (declared as number) > PDF_BUDGETS.maxObjectNumber + 1) return yield* unreadable("the trailer has no valid /Size")
    // A loop, not Math.max(...keys): a spread of a million arguments overflows the stack.
    let size = declared as number
    for (const num of entries.keys()) if (num + 1 > size) size = num + 1
    return { source, trailer, startxref, xrefStream, size, endsWithEol, entries, resolve, budget }
  })

/** Resolves `value` if it is a reference (one level). */
export const deref = (doc: PdfDocument, value: PdfValue | undefined): Effect.Effect<PdfValue | PdfStream | undefined, PdfReadError> =>
  value instanceof PdfRef ? doc.resolve(value) : Effect.succeed(value)

/** Resolves to a dictionary or fails with `what` named. */
export const dictAt = (doc: PdfDocument, value: PdfValue | undefined, what: string): Effect.Effect<PdfDict, PdfReadError> =>
  Effect.flatMap(deref(doc, value), (v) => (v instanceof PdfDict ? Effect.succeed(v) : Effect.fail(unreadable(`${what} is not a dictionary`))))
