import { checkDigit, parseMrz } from "@signet/core"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { decideMrz, type CharRead } from "./mrz-decide.ts"

const TD3 = ["P<NLDERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36NLD7408122F1204159ZE184226B<<<<<10"]

/** The zone read cleanly, with `changes` at [line, index]. */
const read = (changes: ReadonlyArray<readonly [number, number, CharRead]> = [], lines = TD3): Array<Array<CharRead>> => {
  const rows = lines.map((l) => [...l].map((char): CharRead => ({ char, confidence: 0.97 })))
  for (const [line, index, c] of changes) rows[line]![index] = c
  return rows
}
const verdict = (lines: ReadonlyArray<string>) => {
  const parsed = parseMrz(lines)
  return Either.isLeft(parsed) ? "mrz_unreadable" : parsed.right.valid ? "valid" : "mrz_check_failed"
}

describe("deciding MRZ characters from their confidence", () => {
  it("takes a clean read as it is", () => {
    expect(decideMrz(read())).toEqual({ lines: TD3, unread: 0 })
  })

  it("refuses a low-confidence character in a field without a check digit (nationality, names, sex)", () => {
    for (const [line, index] of [
      [1, 11],
      [0, 8],
      [1, 20],
    ] as const) {
      const decided = decideMrz(read([[line, index, { char: TD3[line]![index]!, confidence: 0.4 }]]))
      expect(decided.unread).toBe(1)
      expect(verdict(decided.lines)).toBe("mrz_unreadable")
    }
  })

  it("never lets a check digit paper over a low-confidence character, even a right one", () => {
    const decided = decideMrz(read([[1, 3, { char: "8", confidence: 0.5 }]]))
    expect(decided.lines[1]![3]).toBe("?")
    expect(verdict(decided.lines)).toBe("mrz_unreadable")
  })

  it("lets the check digits choose between plausible look-alikes (B read, 8 also seen)", () => {
    const decided = decideMrz(read([[1, 3, { char: "B", confidence: 0.95, alternative: { char: "8", confidence: 0.6 } }]]))
    expect(decided.lines).toEqual(TD3)
    expect(verdict(decided.lines)).toBe("valid")
  })

  it("does not consider an alternative the recogniser itself found implausible", () => {
    const decided = decideMrz(read([[1, 3, { char: "B", confidence: 0.95, alternative: { char: "8", confidence: 0.2 } }]]))
    expect(decided.lines[1]![3]).toBe("B")
    expect(verdict(decided.lines)).toBe("mrz_check_failed")
  })

  it("leaves unread a position where both look-alikes satisfy every check (G and 6 weigh the same mod 10)", () => {
    const doc = "WG0094215"
    const head = `${doc}${checkDigit(doc)}NLD7408122F1204159ZE184226B<<<<<1`
    const fixed = [TD3[0]!, head + checkDigit(head.slice(0, 10) + head.slice(13, 20) + head.slice(21, 43))]
    expect(verdict(fixed)).toBe("valid")
    expect(verdict([fixed[0]!, fixed[1]!.replace("WG", "W6")])).toBe("valid")
    const decided = decideMrz(read([[1, 1, { char: "G", confidence: 0.98, alternative: { char: "6", confidence: 0.9 } }]], fixed))
    expect(decided.lines[1]![1]).toBe("?")
    expect(verdict(decided.lines)).toBe("mrz_unreadable")
  })

  it("lets any plausible runner-up compete: two S read for two 9s satisfy every check, so neither is taken", () => {
    // 9 → S adds 19 at weight 7 and 19 at weight 3: 190 ≡ 0 mod 10, in the number's check and the composite
    const doc = "9VF3LJW93"
    const head = `${doc}${checkDigit(doc)}NLD7408122F1204159ZE184226B<<<<<1`
    const lines = [TD3[0]!, head + checkDigit(head.slice(0, 10) + head.slice(13, 20) + head.slice(21, 43))]
    expect(verdict([lines[0]!, lines[1]!.replace("9VF3LJW9", "SVF3LJWS")])).toBe("valid")
    const misread = { char: "S", confidence: 0.84, alternative: { char: "9", confidence: 0.99 } }
    const decided = decideMrz(
      read(
        [
          [1, 0, misread],
          [1, 7, misread],
        ],
        lines,
      ),
    )
    expect(decided.lines[1]!.slice(0, 9)).toBe("?VF3LJW?3")
    expect(verdict(decided.lines)).toBe("mrz_unreadable")
  })
})
