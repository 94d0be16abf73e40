import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { judgeDocument } from "./document.ts"
import { checkDigit, composeTd3, mrzDate, parseMrz } from "./mrz.ts"

// ICAO Doc 9303 specimens (Part 4 TD3, Part 5 TD1, Part 6 TD2), with the specimen state UTO
// (Utopia, refused: a specimen is not a document) as NLD; no check digit covers either code.
const TD3 = ["P<NLDERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36NLD7408122F1204159ZE184226B<<<<<10"]
const TD1 = ["I<NLDD231458907<<<<<<<<<<<<<<<", "7408122F1204159NLD<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]
const TD2 = ["I<NLDERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907NLD7408122F1204159<<<<<<<6"]

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
      issuingState: "NLD",
      nationality: "NLD",
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
        const parsed = parseMrz([TD3[0]!, line])
        expect(Either.isRight(parsed) && parsed.right.valid).toBe(false)
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

describe("MRZ fields without a check digit are held to their ICAO 9303 rules (a misread is refused, never taken as read)", () => {
  const at = (line: string, index: number, text: string) => line.slice(0, index) + text + line.slice(index + text.length)
  const refusedAs = (lines: ReadonlyArray<string>) => {
    const parsed = parseMrz(lines)
    return Either.isLeft(parsed) ? (parsed.left.field ?? "shape") : null
  }

  it("accepts the codes ICAO adds to ISO 3166 (D, GBD, UNO, XXA, EUE, RKS ...) and any ISO 3166 alpha-3 code", () => {
    for (const code of ["D<<", "GBD", "GBN", "GBO", "GBP", "GBS", "UNO", "UNA", "UNK", "XXA", "XXB", "XXC", "XXX", "EUE", "RKS", "CHE", "KEN", "ZWE"]) {
      expect(refusedAs([at(TD3[0]!, 2, code), at(TD3[1]!, 10, code)]), code).toBeNull()
    }
  })

  it.each([
    ["a digit for a letter (CHE read as C4E)", "C4E"],
    ["a filler before the letters (CHE read as <HE)", "<HE"],
    ["a code nobody uses", "QQQ"],
    ["ICAO's specimen state Utopia", "UTO"],
    ["a letter after a filler", "D<K"],
  ])("refuses an issuing state or nationality that is %s", (_, code) => {
    expect(refusedAs([at(TD3[0]!, 2, code), TD3[1]!])).toBe("issuingState")
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 10, code)])).toBe("nationality")
    expect(refusedAs([TD1[0]!, at(TD1[1]!, 15, code), TD1[2]!])).toBe("nationality")
  })

  it("holds the document code to its format: P or V in TD3; A, C or I (never a second V) in TD1 and TD2; V also in TD2", () => {
    expect(refusedAs([at(TD3[0]!, 0, "3<"), TD3[1]!])).toBe("documentCode") // P read as 3 must not become a national ID
    expect(refusedAs([at(TD3[0]!, 0, "I<"), TD3[1]!])).toBe("documentCode")
    expect(refusedAs([at(TD3[0]!, 0, "PO"), TD3[1]!])).toBeNull()
    expect(refusedAs([at(TD3[0]!, 0, "V<"), TD3[1]!])).toBeNull()
    expect(refusedAs([at(TD1[0]!, 0, "P<"), TD1[1]!, TD1[2]!])).toBe("documentCode")
    expect(refusedAs([at(TD1[0]!, 0, "IV"), TD1[1]!, TD1[2]!])).toBe("documentCode")
    expect(refusedAs([at(TD1[0]!, 0, "ID"), TD1[1]!, TD1[2]!])).toBeNull()
    expect(refusedAs([at(TD1[0]!, 0, "AC"), TD1[1]!, TD1[2]!])).toBeNull()
    expect(refusedAs([at(TD2[0]!, 0, "V<"), TD2[1]!])).toBeNull()
    expect(refusedAs([at(TD1[0]!, 0, "V<"), TD1[1]!, TD1[2]!])).toBe("documentCode")
  })

  const zone39 = (names: string) => names.padEnd(39, "<").slice(0, 39)

  it.each([
    ["a trailing filler run read as K", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<<<K"],
    ["a trailing filler run read as L at the end", `${"ERIKSSON<<ANNA<MARIA".padEnd(38, "<")}L`],
    ["a digit", "ERIKSS0N<<ANNA<MARIA"],
    ["a separator read as a letter after a filler pair", "DE<LA<CONC<<ANNA<<<MARIA"],
    ["a third identifier", "ERIKSSON<<ANNA<<MARIA"],
    ["no primary identifier", "<<ANNA<MARIA"],
  ])("refuses a name zone with %s", (_, names) => {
    expect(refusedAs([TD3[0]!.slice(0, 5) + zone39(names), TD3[1]!])).toBe("names")
  })

  it("accepts compound names, a single name and a name truncated to the last position", () => {
    for (const names of ["DE<LA<CONCEPCION<<MARIA<DEL<CARMEN", "MADONNA", "WOLFESCHLEGELSTEINHAUSENBERGER<<HUBERTUS"]) {
      expect(refusedAs([TD3[0]!.slice(0, 5) + zone39(names), TD3[1]!]), names).toBeNull()
    }
    expect(Either.getOrThrow(parseMrz([TD3[0]!.slice(0, 5) + zone39("DE<LA<CONCEPCION<<MARIA<DEL<CARMEN"), TD3[1]!]))).toMatchObject({
      surname: "DE LA CONCEPCION",
      givenNames: "MARIA DEL CARMEN",
    })
  })

  it("refuses a sex other than M, F or <", () => {
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 20, "X")])).toBe("sex")
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 20, "<")])).toBeNull()
    expect(refusedAs([TD1[0]!, at(TD1[1]!, 7, "K"), TD1[2]!])).toBe("sex")
  })

  it("refuses dates that do not exist, even when their check digit holds", () => {
    // 30 February with its own check digit: only the calendar catches it (the composite fails as well)
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 13, `740230${checkDigit("740230")}`)])).toBe("dateOfBirth")
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 21, `121315${checkDigit("121315")}`)])).toBe("expiryDate")
    // a filler standing for one digit weighs what 0 weighs: "74<812" has the check digit of "740812"
    expect(checkDigit("74<812")).toBe(checkDigit("740812"))
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 13, "74<812")])).toBe("dateOfBirth")
    // 29 February exists in 2000 (and not in 1900): either century may be meant
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 13, `000229${checkDigit("000229")}`)])).toBeNull()
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 13, `010229${checkDigit("010229")}`)])).toBe("dateOfBirth")
  })

  it("accepts a birth date whose unknown day and month are fillers, never an unknown expiry", () => {
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 13, "74<<<<")])).toBeNull()
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 13, "7408<<")])).toBeNull()
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 13, "<<<<<<")])).toBeNull()
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 13, "7<0812")])).toBe("dateOfBirth")
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 21, "<<<<<<")])).toBe("expiryDate")
  })

  it("a broken rule is judged mrz_unreadable, a failing check digit mrz_check_failed", () => {
    const judge = (mrz: ReadonlyArray<string>) => judgeDocument({ mrz, visual: null, authentic: true, accepted: true }, "2011-01-01")
    expect(judge(TD3)).toMatchObject({ accepted: true, document: { docType: "passport", nationality: "NLD" } })
    expect(judge([at(TD3[0]!, 0, "3<"), TD3[1]!])).toEqual({ accepted: false, reasons: ["document_not_authentic", "mrz_unreadable"] })
    expect(judge([TD3[0]!, at(TD3[1]!, 9, "7")])).toEqual({ accepted: false, reasons: ["document_not_authentic", "mrz_check_failed"] })
  })

  it("refuses a document number with anything after its fillers (K and < weigh the same mod 10)", () => {
    const number = "L898<<<<K"
    expect(checkDigit(number)).toBe(checkDigit("L898<<<<<"))
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 0, number)])).toBe("documentNumber")
    expect(refusedAs([TD3[0]!, at(TD3[1]!, 0, `L898<<<<<${checkDigit("L898<<<<<")}`)])).toBeNull()
  })
})
