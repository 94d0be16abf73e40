/**
 * The evaluation's generator (`eval/generate.ts`) composes its MRZ lines with its own check digits;
 * core's parser is a second, independent implementation. They must agree on every generated
 * document, or the evaluation's truth would be wrong. No drawing here: ImageMagick is not needed.
 */
import { judgeDocument, mrzDate, parseMrz } from "@signet/core"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { documentData, EVAL_TODAY } from "../eval/generate.ts"

const DOCUMENTS = 1000
const all = Array.from({ length: DOCUMENTS }, (_, i) => documentData("1", i))

describe("the evaluation's generator agrees with core's MRZ parser", () => {
  it("every printed zone parses with all check digits holding, to the generator's fields, and is accepted on the evaluation day", () => {
    for (const d of all) {
      const parsed = parseMrz(d.lines)
      expect(Either.isRight(parsed), d.lines.join(" / ")).toBe(true)
      const mrz = Either.getOrThrow(parsed)
      const year = Number(EVAL_TODAY.slice(0, 4))
      expect(
        {
          format: mrz.format,
          valid: mrz.valid,
          documentCode: mrz.documentCode,
          issuingState: mrz.issuingState,
          documentNumber: mrz.documentNumber,
          nationality: mrz.nationality,
          dateOfBirth: mrzDate(mrz.dateOfBirth, "birth", year),
          sex: mrz.sex,
          expiryDate: mrzDate(mrz.expiryDate, "expiry", year),
          personalNumber: mrz.personalNumber,
          surname: mrz.surname,
          givenNames: mrz.givenNames,
        },
        d.lines.join(" / "),
      ).toEqual({ format: d.format, valid: true, ...d.fields })
      expect(judgeDocument({ mrz: d.lines, visual: null, authentic: true, accepted: true }, EVAL_TODAY).accepted).toBe(true)
    }
  })

  it("every tampered zone differs in one check digit and fails core's checks", () => {
    for (const d of all) {
      const changed = d.lines.flatMap((line, k) => [...line].flatMap((c, i) => (d.tampered.lines[k]![i] === c ? [] : [[k, i]])))
      expect(changed).toEqual([[d.tampered.line, d.tampered.position]])
      const parsed = parseMrz(d.tampered.lines)
      expect(Either.isRight(parsed) && parsed.right.valid).toBe(false)
    }
  })

  it("covers the hard cases: compound names, several given names, letters in document numbers, every sex, both formats, one-letter states", () => {
    const lines = all.map((d) => d.lines.join("\n"))
    expect(all.filter((d) => d.fields.surname.includes(" ")).length).toBeGreaterThan(DOCUMENTS / 5)
    expect(all.filter((d) => d.fields.givenNames.split(" ").length >= 3).length).toBeGreaterThan(DOCUMENTS / 10)
    expect(all.filter((d) => /[A-Z]/.test(d.fields.documentNumber) && /\d/.test(d.fields.documentNumber)).length).toBeGreaterThan(DOCUMENTS / 2)
    expect(new Set(all.map((d) => d.fields.sex))).toEqual(new Set(["M", "F", ""]))
    expect(new Set(all.map((d) => d.format))).toEqual(new Set(["TD3", "TD1"]))
    expect(all.some((d) => d.fields.issuingState === "D")).toBe(true)
    expect(lines.some((l) => l.includes("DE<LA<CONCHA"))).toBe(true)
  })
})
