/**
 * What validation needs to judge the changes made after a certification or a field lock: the
 * document's DocMDP certification and the FieldMDP locks (read by `modification-rules.ts`, the
 * reader signing uses too), and where each revision ends (each `%%EOF`), as plain data for the
 * PDF worker to hand over.
 */
import { Effect } from "effect"
import type { ByteSource } from "./byte-source.ts"
import type { PdfDocument, PdfReadError } from "./document.ts"
import { type FieldLock, type MdpPermissions, modificationRules } from "./modification-rules.ts"

/** The certification, the locks and the revision ends of a document. */
export interface ModificationFacts {
  readonly certification: { readonly fieldName: string | null; readonly permissions: MdpPermissions } | null
  readonly locks: ReadonlyArray<FieldLock>
  /** the offset just past each `%%EOF` (and its end of line), in file order */
  readonly revisionEnds: ReadonlyArray<number>
}

const CHUNK = 1 << 20
const MARK = [0x25, 0x25, 0x45, 0x4f, 0x46] // %%EOF

/** The offsets where revisions end: after each `%%EOF` and the end-of-line that follows it. */
const revisionEndsOf = (source: ByteSource): Effect.Effect<ReadonlyArray<number>, PdfReadError> =>
  Effect.gen(function* () {
    const ends: Array<number> = []
    const read = source.readTransient ?? source.read
    // chunks overlap by the marker's length (and two end-of-line bytes) so no marker is split
    for (let at = 0; at < source.size; at += CHUNK) {
      const bytes = yield* read(at, Math.min(CHUNK + MARK.length + 2, source.size - at))
      for (let i = 0; i + MARK.length <= bytes.length && i < CHUNK; i++) {
        if (bytes[i] !== 0x25 || !MARK.every((m, k) => bytes[i + k] === m)) continue
        let end = i + MARK.length
        if (bytes[end] === 0x0d) end++
        if (bytes[end] === 0x0a) end++
        ends.push(at + end)
        if (ends.length > 100_000) return ends
      }
    }
    return ends
  })

/** Reads the modification facts of `doc` (over `source`); an unreadable certification or lock is left out. */
export const readModifications = (doc: PdfDocument, source: ByteSource): Effect.Effect<ModificationFacts, PdfReadError> =>
  Effect.gen(function* () {
    const rules = yield* modificationRules(doc).pipe(Effect.catchTag("PdfUnreadable", () => Effect.succeed(null)))
    return {
      certification: rules?.certification == null ? null : { fieldName: rules.certification.fieldName, permissions: rules.certification.permissions },
      locks: rules?.locks ?? [],
      revisionEnds: yield* revisionEndsOf(source),
    }
  })
