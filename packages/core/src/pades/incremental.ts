/**
 * Appending an incremental update (ISO 32000-1 §7.5.6): new and changed objects, then a
 * cross-reference section of the same kind as the newest one (table or stream) whose trailer
 * points back with `/Prev`. Nothing before the update changes, so earlier signatures stay valid.
 * Reusable for any update: a signature, or a DSS dictionary (PAdES-LT) after it.
 */
import { concatBytes } from "../kernel/encoding.ts"
import type { PdfDocument } from "./document.ts"
import { dict, latin1, name, PdfDict, PdfRef, PdfStream, serialise, type PdfValue } from "./objects.ts"

/** One object of an update: a new object number, or a new version of an existing one. */
export interface UpdateObject {
  readonly ref: PdfRef
  readonly value: PdfValue | PdfStream
}

/** The bytes to append, and where each object of it starts in the updated file. */
export interface IncrementalUpdate {
  readonly bytes: Uint8Array
  /** absolute offsets (in the document plus this update) by object number */
  readonly offsets: ReadonlyMap<number, number>
}

/** Hands out object numbers after the document's highest one. */
export const objectNumbers = (doc: PdfDocument) => {
  let next = doc.size
  return {
    next: (): PdfRef => new PdfRef(next++, 0),
    get size() {
      return next
    },
  }
}

const TRAILER_KEYS = ["Root", "Info", "ID"] as const

/** The serialised update for `objects` appended to `doc` (`size` = one more than the highest number used). */
export const incrementalUpdate = (doc: PdfDocument, objects: ReadonlyArray<UpdateObject>, size: number): IncrementalUpdate => {
  const chunks: Array<Uint8Array> = []
  let length = 0
  const push = (part: string | Uint8Array) => {
    const bytes = typeof part === "string" ? latin1(part) : part
    chunks.push(bytes)
    length += bytes.length
  }
  if (!doc.endsWithEol) push("\n")
  const offsets = new Map<number, number>()
  for (const o of objects) {
    offsets.set(o.ref.num, doc.source.size + length)
    push(`${o.ref.num} ${o.ref.gen} obj\n`)
    if (o.value instanceof PdfStream) {
      push(`${serialise(o.value.dict.with("Length", o.value.data.length))}\nstream\n`)
      push(o.value.data)
      push("\nendstream\nendobj\n")
    } else push(`${serialise(o.value)}\nendobj\n`)
  }

  const trailerEntries: Record<string, PdfValue> = {}
  for (const key of TRAILER_KEYS) {
    const v = doc.trailer.get(key)
    if (v !== undefined) trailerEntries[key] = v
  }
  const gens = new Map(objects.map((o) => [o.ref.num, o.ref.gen]))
  const xrefAt = doc.source.size + length
  if (doc.xrefStream) {
    const self = size
    offsets.set(self, xrefAt)
    gens.set(self, 0)
    const nums = [...offsets.keys()].sort((a, b) => a - b)
    const width = Math.max(4, Math.ceil(Math.log2(xrefAt + 1) / 8))
    const data = new Uint8Array(nums.length * (3 + width))
    nums.forEach((num, i) => {
      const row = i * (3 + width)
      data[row] = 1
      let off = offsets.get(num)!
      for (let k = width; k >= 1; k--) {
        data[row + k] = off % 256
        off = Math.floor(off / 256)
      }
      const gen = gens.get(num) ?? 0
      data[row + width + 1] = gen >> 8
      data[row + width + 2] = gen & 0xff
    })
    const xref = new PdfStream(
      dict({
        Type: name("XRef"),
        Size: self + 1,
        W: [1, width, 2],
        Index: subsections(nums).flatMap((s) => [s.start, s.count]),
        Prev: doc.startxref,
        ...trailerEntries,
      }),
      data,
    )
    push(`${self} 0 obj\n${serialise(xref.dict.with("Length", data.length))}\nstream\n`)
    push(data)
    push("\nendstream\nendobj\n")
  } else {
    const nums = [...offsets.keys()].sort((a, b) => a - b)
    let table = "xref\n"
    for (const s of subsections(nums)) {
      table += `${s.start} ${s.count}\n`
      for (let n = s.start; n < s.start + s.count; n++) {
        table += `${String(offsets.get(n)!).padStart(10, "0")} ${String(gens.get(n) ?? 0).padStart(5, "0")} n\r\n`
      }
    }
    push(`${table}trailer\n${serialise(new PdfDict(new Map(Object.entries({ Size: size, ...trailerEntries, Prev: doc.startxref }))))}\n`)
  }
  push(`startxref\n${xrefAt}\n%%EOF\n`)

  return { bytes: concatBytes(chunks), offsets }
}

/** Runs of consecutive object numbers. */
const subsections = (sorted: ReadonlyArray<number>) => {
  const out: Array<{ start: number; count: number }> = []
  for (const n of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && last.start + last.count === n) last.count++
    else out.push({ start: n, count: 1 })
  }
  return out
}
