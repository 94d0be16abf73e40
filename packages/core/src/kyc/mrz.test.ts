import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { checkDigit, composeTd3, mrzDate, parseMrz } from "./mrz.ts"

// ICAO Doc 9303 specimens (Part 4 TD3, Part 5 TD1, Part 6 TD2).
const TD3 = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
const TD1 = ["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]
const TD2 = ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"]

describe("MRZ (ICAO 9303)", () => {
  it("check digits of the specimen fields", () => {
    expect(checkDigit("L898902C3")).toBe("6")
    expect(checkDigit("740812")).toBe("2")
    expect(checkDigit("120415")).toBe("9")
    expect(checkDigit("ZE184226B<<<<<")).toBe("1")
    expect(checkDigit("D23145890")).toBe("7")
  })

  it.each([
    ["TD3", TD3],
    ["TD1", TD1],
    ["TD2", TD2],
  ] as const)("parses the %s specimen with every check holding", (format, lines) => {
    const mrz = Either.getOrThrow(parseMrz(lines))
    expect(mrz.format).toBe(format)
    expect(mrz.valid).toBe(true)
    expect(mrz).toMatchObject({
      issuingState: "UTO",
      nationality: "UTO",
      surname: "ERIKSSON",
      givenNames: "ANNA MARIA",
      dateOfBirth: "740812",
      sex: "F",
      expiryDate: "120415",
    })
    expect(mrz.documentNumber).toBe(format === "TD3" ? "L898902C3" : "D23145890")
  })

  it("gives dates a century", () => {
    expect(mrzDate("740812", "birth", 2026)).toBe("1974-08-12")
    expect(mrzDate("120415", "expiry", 2026)).toBe("2012-04-15")
    expect(mrzDate("991340", "birth", 2026)).toBeNull()
  })

  it("refuses shapes that are not an MRZ", () => {
    expect(Either.isLeft(parseMrz(["P<UTO"]))).toBe(true)
    expect(Either.isLeft(parseMrz([TD3[0]!, TD3[1]!.replace("L", "l!")]))).toBe(true)
  })

  const value = (c: string) => (c >= "0" && c <= "9" ? Number(c) : c === "<" ? 0 : c.charCodeAt(0) - 55)
  // Positions covered by a check digit, per format: [line, start, end).
  const covered: Record<string, ReadonlyArray<readonly [number, number, number]>> = {
    TD3: [
      [1, 0, 10],
      [1, 13, 20],
      [1, 21, 43],
    ],
    TD2: [
      [1, 0, 10],
      [1, 13, 20],
      [1, 21, 35],
    ],
    TD1: [
      [0, 5, 30],
      [1, 0, 7],
      [1, 8, 15],
      [1, 18, 29],
    ],
  }
  const specimens: Record<string, ReadonlyArray<string>> = { TD3, TD2, TD1 }
  const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<"

  it("detects any single-character change in a checked field (whose value differs mod 10, the 7-3-1 scheme's reach)", () => {
    const position = fc
      .constantFrom("TD3", "TD2", "TD1")
      .chain((format) =>
        fc
          .constantFrom(...covered[format]!)
          .chain(([line, start, end]) =>
            fc.tuple(fc.constant(format), fc.constant(line), fc.integer({ min: start, max: end - 1 }), fc.constantFrom(...ALPHABET)),
          ),
      )
    fc.assert(
      fc.property(position, ([format, line, index, replacement]) => {
        const lines = [...specimens[format]!]
        const original = lines[line]![index]!
        fc.pre((value(original) - value(replacement)) % 10 !== 0)
        lines[line] = lines[line]!.slice(0, index) + replacement + lines[line]!.slice(index + 1)
        const parsed = parseMrz(lines)
        expect(Either.isRight(parsed) && parsed.right.valid).toBe(false)
      }),
      { numRuns: 500 },
    )
  })

  it("the check digit of a date detects every digit change (weights 7, 3, 1 are coprime to 10)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 9 }), (i, d) => {
        fc.pre(TD3[1]![13 + i] !== String(d))
        const line = TD3[1]!.slice(0, 13 + i) + String(d) + TD3[1]!.slice(14 + i)
        expect(Either.getOrThrow(parseMrz([TD3[0]!, line])).valid).toBe(false)
      }),
    )
  })

  it("the scheme's blind spot is real: '<' and '0' weigh the same", () => {
    const line = TD3[1]!.slice(0, 37) + "0" + TD3[1]!.slice(38)
    expect(Either.getOrThrow(parseMrz([TD3[0]!, line])).valid).toBe(true)
  })

  it("composeTd3 writes zones that parse back", () => {
    const zone = composeTd3({
      issuingState: "KEN",
      surname: "Otieno",
      givenNames: "Grace Akinyi",
      documentNumber: "AK1234567",
      nationality: "KEN",
      dateOfBirth: "900115",
      sex: "F",
      expiryDate: "340101",
      personalNumber: "12345678",
    })
    const mrz = Either.getOrThrow(parseMrz(zone))
    expect(mrz).toMatchObject({ valid: true, surname: "OTIENO", givenNames: "GRACE AKINYI", documentNumber: "AK1234567", personalNumber: "12345678" })
  })
})
