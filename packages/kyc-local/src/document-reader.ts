/** The local document reader: the MRZ of each image, read offline, the best one wins. */
import { DocumentReader, parseMrz, type DocumentReading } from "@signet/core"
import { Effect, Either, Layer } from "effect"
import { readMrz } from "./mrz-reader.ts"

/**
 * Reads every image (passport photo page; ID card front and back) and keeps the MRZ that
 * parses with every check digit holding, else the first that parses, else the first read.
 * No MRZ at all gives `mrz: []`, which core judges as `mrz_unreadable`: a result, not an error.
 * The reader has no security-feature checks; `authentic` says only that nothing it can see speaks against the document.
 */
export const readDocument = async (images: ReadonlyArray<Uint8Array>): Promise<DocumentReading> => {
  const reads = []
  for (const image of images) {
    const read = await readMrz(image).catch(() => ({ lines: null, confidence: 0, skew: 0 }))
    if (read.lines === null) continue
    const parsed = parseMrz(read.lines)
    const valid = Either.isRight(parsed) && parsed.right.valid
    reads.push({ read, parses: Either.isRight(parsed), valid })
    if (valid) break
  }
  const best = reads.find((r) => r.valid) ?? reads.find((r) => r.parses) ?? reads[0]
  if (best === undefined) return { mrz: [], visual: null, authentic: true, accepted: false, confidence: 0 }
  return { mrz: best.read.lines, visual: null, authentic: true, accepted: best.valid, confidence: best.valid ? best.read.confidence : 0 }
}

/** The local document reader as the core port. */
export const DocumentReaderLocal = Layer.succeed(
  DocumentReader,
  DocumentReader.of({
    read: (images) => Effect.promise(() => readDocument(images)),
  }),
)
