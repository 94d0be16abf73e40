/**
 * The fixed budgets of one PDF read. Every document opened gets its own `PdfBudget`; each object
 * read, byte parsed and byte inflated is charged to it, so no input, however built, makes the
 * reader do more than these numbers of work (docs/security/pdf.md). Going past one is
 * `PdfTooComplex` (422), never a crash.
 */
import { PdfTooComplex } from "./errors.ts"

/** The limits of one PDF read. */
export const PDF_BUDGETS = {
  /** indirect objects parsed (from the file or an object stream) */
  objects: 20_000,
  /** bytes handed to the parser (windows read, object-stream objects parsed) */
  parsedBytes: 256 * 1024 * 1024,
  /** bytes inflated from FlateDecode streams, all streams together */
  inflatedBytes: 32 * 1024 * 1024,
  /** nesting of arrays and dictionaries in one object */
  depth: 64,
  /** cross-reference entries, all sections together */
  xrefEntries: 1_000_000,
  /** cross-reference sections in the `/Prev` chain */
  xrefSections: 1_000,
  /** the highest object number (ISO 32000-1 Annex C: 8,388,607 indirect objects) */
  maxObjectNumber: 8_388_607,
  /** form fields and page-tree nodes visited by a walk */
  walkNodes: 10_000,
  /** depth of the field tree and the page tree */
  treeDepth: 64,
} as const

/** The budget exceeded, named for the message. */
export const tooComplex = (detail: string) => new PdfTooComplex({ detail })

/** What one PDF read has spent; each `spend…` answers the error to fail with once a budget is gone. */
export class PdfBudget {
  objects = 0
  parsedBytes = 0
  inflatedBytes = 0

  /** One more indirect object parsed. */
  spendObject(): PdfTooComplex | undefined {
    return ++this.objects > PDF_BUDGETS.objects ? tooComplex(`more than ${PDF_BUDGETS.objects} objects to read`) : undefined
  }

  /** `n` more bytes handed to the parser. */
  spendParsed(n: number): PdfTooComplex | undefined {
    this.parsedBytes += n
    return this.parsedBytes > PDF_BUDGETS.parsedBytes ? tooComplex(`more than ${PDF_BUDGETS.parsedBytes} bytes to parse`) : undefined
  }

  /** Bytes that may still be inflated. */
  get inflateRemaining(): number {
    return Math.max(0, PDF_BUDGETS.inflatedBytes - this.inflatedBytes)
  }

  /** `n` bytes were inflated. */
  spendInflated(n: number): void {
    this.inflatedBytes += n
  }
}
