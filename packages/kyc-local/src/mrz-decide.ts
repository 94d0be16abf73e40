/**
 * From characters read with a confidence to MRZ lines: a character the recogniser was not sure
 * of is never taken (it becomes `?`, which core's parser refuses as `mrz_unreadable`), and a
 * check digit only chooses between two look-alikes that the recogniser both found plausible.
 * Pure: no image, no OCR.
 */
import { parseMrz } from "@signet/core"
import { Either } from "effect"

/** One MRZ position as read. */
export interface CharRead {
  /** the character taken (`?` when nothing was read there) */
  readonly char: string
  /** how sure the recogniser was, 0..1 */
  readonly confidence: number
  /** a look-alike the recogniser also found plausible there, with its confidence (the OCR-B reader offers none) */
  readonly alternative?: { readonly char: string; readonly confidence: number }
}

/**
 * Below this a character is a guess (the OCR-B classifier's probability, renormalised over the
 * symbols its field allows).
 */
export const MIN_CONFIDENCE = 0.75

/**
 * An alternative at or above this (even odds) is plausible enough for the check digits to choose
 * it over the reading; below it, it is not considered. The OCR-B reader offers none (see
 * `readCells`): with its classifier a runner-up at 0.05 or more never won a read on the
 * development seed, and once turned a tampered check digit into an accepted document.
 */
export const PLAUSIBLE = 0.5

/**
 * Whether `char` is one of a look-alike pair that no check digit can tell apart: G (16) and 6
 * weigh the same mod 10 under every weight, so a G read for a 6 leaves every check holding.
 */
export const checkBlind = (char: string): boolean => char === "G" || char === "6"

/** At most this many two-way positions are tried against the check digits (2^n zones parsed). */
const MAX_AMBIGUOUS = 8

/** What was decided. */
export interface MrzDecision {
  /** the lines; `?` where no character could be taken */
  readonly lines: ReadonlyArray<string>
  /** positions left unread: below the confidence floor, or look-alikes the check digits could not tell apart */
  readonly unread: number
}

const valid = (lines: ReadonlyArray<string>) => {
  const parsed = parseMrz(lines)
  return Either.isRight(parsed) && parsed.right.valid
}

/**
 * Decides the lines of an MRZ from its characters as read. A character below `MIN_CONFIDENCE`
 * stays unread, whatever the check digits say. Where a plausible look-alike was also read
 * (at or above `PLAUSIBLE`, beside a reading at or above the floor), every combination is parsed: the one combination whose check
 * digits all hold is taken; none leaves the first reading (so the check fails); several (a
 * look-alike pair the 7-3-1 scheme cannot tell apart, such as G and 6) leave those positions unread.
 */
export const decideMrz = (rows: ReadonlyArray<ReadonlyArray<CharRead>>): MrzDecision => {
  const chars = rows.map((row) => row.map((c) => (c.confidence >= MIN_CONFIDENCE ? c.char : "?")))
  const ambiguous: Array<{ readonly line: number; readonly index: number; readonly other: string }> = []
  rows.forEach((row, line) => {
    row.forEach((c, index) => {
      const alt = c.alternative
      // any plausible runner-up competes, look-alike or not: two S read for two 9s
      // (19 × 7 + 19 × 3 ≡ 0 mod 10) satisfied every check of a document number
      if (alt !== undefined && c.confidence >= MIN_CONFIDENCE && alt.confidence >= PLAUSIBLE && alt.char !== c.char) {
        ambiguous.push({ line, index, other: alt.char })
      }
    })
  })
  const render = (choice: number) =>
    chars.map((row, line) =>
      row
        .map((c, index) => {
          const k = ambiguous.findIndex((a) => a.line === line && a.index === index)
          return k >= 0 && (choice >> k) & 1 ? ambiguous[k]!.other : c
        })
        .join(""),
    )
  if (ambiguous.length > 0) {
    const holding: Array<number> = []
    if (ambiguous.length <= MAX_AMBIGUOUS) for (let choice = 0; choice < 1 << ambiguous.length; choice++) if (valid(render(choice))) holding.push(choice)
    if (holding.length === 1) return finish(render(holding[0]!))
    if (holding.length > 1 || ambiguous.length > MAX_AMBIGUOUS) {
      // the check digits hold either way (or were not tried): those positions are not known
      ambiguous.forEach((a, k) => {
        if (ambiguous.length > MAX_AMBIGUOUS || holding.some((h) => ((h >> k) & 1) !== ((holding[0]! >> k) & 1))) chars[a.line]![a.index] = "?"
      })
    }
  }
  return finish(chars.map((row) => row.join("")))
}

const finish = (lines: ReadonlyArray<string>): MrzDecision => ({ lines, unread: lines.reduce((n, l) => n + [...l].filter((c) => c === "?").length, 0) })
