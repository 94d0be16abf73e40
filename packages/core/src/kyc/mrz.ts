/**
 * ICAO 9303 machine-readable zones: TD1 (3×30), TD2 (2×36) and TD3 (2×44) parsing with
 * every check digit (7-3-1 weights, mod 10), and every field that no check digit covers
 * validated against its rules (document code, state codes, names, sex, dates), so that a
 * misread there is refused rather than taken as read. Pure; dates come back as `YYMMDD` and
 * are given a century by `mrzDate`.
 */
import { Either } from "effect"
import { isMrzStateCode } from "./mrz-codes.ts"

/** The three MRZ formats. */
export type MrzFormat = "TD1" | "TD2" | "TD3"

/** A check digit and the field it covers, with whether it holds. */
export interface MrzCheck {
  readonly field: "documentNumber" | "dateOfBirth" | "expiryDate" | "personalNumber" | "composite"
  readonly valid: boolean
}

/** Fields of an MRZ (fillers removed) and its checks. */
export interface Mrz {
  readonly format: MrzFormat
  readonly documentCode: string
  readonly issuingState: string
  readonly documentNumber: string
  readonly nationality: string
  /** YYMMDD as printed */
  readonly dateOfBirth: string
  readonly sex: string
  /** YYMMDD as printed */
  readonly expiryDate: string
  /** TD3 personal number, or TD1/TD2 optional data */
  readonly personalNumber: string
  readonly surname: string
  readonly givenNames: string
  readonly checks: ReadonlyArray<MrzCheck>
  /** every check digit holds */
  readonly valid: boolean
}

/** Why lines are not an MRZ at all, or not one ICAO 9303 allows (judged `mrz_unreadable`). */
export interface MrzFormatError {
  readonly _tag: "MrzFormatError"
  readonly detail: string
  /** the field that breaks its rule, when the shape itself is right */
  readonly field?: MrzField
}

/** The fields of an MRZ that are validated by rule (none of them is covered by a check digit of its own). */
export type MrzField = "documentCode" | "issuingState" | "nationality" | "names" | "sex" | "dateOfBirth" | "expiryDate" | "documentNumber"

const charValue = (c: string): number => {
  if (c >= "0" && c <= "9") return c.charCodeAt(0) - 48
  if (c >= "A" && c <= "Z") return c.charCodeAt(0) - 55
  return 0 // "<"
}

/** The ICAO 9303 check digit of `text` (weights 7, 3, 1 repeating; sum mod 10). */
export const checkDigit = (text: string): string => {
  const weights = [7, 3, 1]
  let sum = 0
  for (let i = 0; i < text.length; i++) sum += charValue(text[i]!) * weights[i % 3]!
  return String(sum % 10)
}

const holds = (field: string, digit: string, optional = false): boolean =>
  // An empty optional field may carry "<" as its check digit (ICAO 9303 Part 4, personal number).
  checkDigit(field) === digit || (optional && /^<*$/.test(field) && digit === "<")

const clean = (s: string) => s.replace(/<+$/, "").replace(/</g, " ").trim()

const names = (zone: string) => {
  const [surname = "", ...rest] = zone.replace(/<+$/, "").split("<<")
  return { surname: surname.replace(/</g, " ").trim(), givenNames: rest.join(" ").replace(/</g, " ").replace(/\s+/g, " ").trim() }
}

const VALID = /^[A-Z0-9<]+$/

const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)

/** Whether `MMDD` exists in some year ending in `yy` (29 February needs a leap year in either century). */
const dayExists = (yy: number, month: number, day: number): boolean => {
  const february = isLeap(1900 + yy) || isLeap(2000 + yy) ? 29 : 28
  const daysIn = [31, february, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn[month - 1]!
}

/**
 * A printed `YYMMDD` that exists. A birth date may leave what is unknown as fillers (ICAO 9303
 * Part 3: `YYMM<<`, `YY<<<<`, `<<<<<<`); a `<` standing for a single digit is never allowed
 * (it weighs the same as `0` in every check digit, so only the rule catches it).
 */
const dateHolds = (field: string, kind: "birth" | "expiry"): boolean => {
  if (/^\d{6}$/.test(field)) return dayExists(Number(field.slice(0, 2)), Number(field.slice(2, 4)), Number(field.slice(4, 6)))
  if (kind === "expiry") return false
  if (field === "<<<<<<") return true
  if (/^\d{2}<{4}$/.test(field)) return true
  if (/^\d{4}<{2}$/.test(field)) return dayExists(Number(field.slice(0, 2)), Number(field.slice(2, 4)), 1)
  return false
}

/**
 * The name zone: primary identifier, `<<`, secondary identifier, each made of components of
 * A-Z joined by one `<`, then fillers to the end. A letter after a filler run (a trailing
 * `<<<<` read as `K` or `L`), a digit, or a third identifier breaks it.
 */
const NAME_ZONE = /^[A-Z]+(?:<[A-Z]+)*(?:<<[A-Z]+(?:<[A-Z]+)*)?<*$/

/** A document number: letters and digits, then fillers only (a filler is never inside it). */
const DOCUMENT_NUMBER = /^[A-Z0-9]+<*$/

/**
 * The document codes ICAO 9303 allows per format: TD3 is a passport (`P`, Part 4) or an MRV-A
 * visa (`V`, Part 7); TD1 and TD2 are official travel documents (`A`, `C`, `I`, Parts 5 and 6;
 * the second letter is the issuer's choice but never `V`) and TD2 is also an MRV-B visa (`V`).
 */
const documentCodeHolds = (code: string, format: MrzFormat): boolean => {
  if (format === "TD3") return /^[PV][A-Z<]$/.test(code)
  if (format === "TD2" && /^V[A-Z<]$/.test(code)) return true
  return /^[ACI][A-UW-Z<]$/.test(code)
}

interface RawFields {
  readonly format: MrzFormat
  readonly documentCode: string
  readonly issuingState: string
  readonly documentNumber: string
  readonly nationality: string
  readonly dateOfBirth: string
  readonly sex: string
  readonly expiryDate: string
  readonly nameZone: string
}

/** The first field (as printed, fillers included) that breaks its ICAO 9303 rule, with why. */
const ruleBroken = (f: RawFields): { readonly field: MrzField; readonly detail: string } | null => {
  if (!documentCodeHolds(f.documentCode, f.format))
    return { field: "documentCode", detail: `document code ${f.documentCode} is not one ICAO 9303 allows in ${f.format}` }
  if (!isMrzStateCode(f.issuingState)) return { field: "issuingState", detail: `issuing state ${f.issuingState} is not an ICAO 9303 / ISO 3166 code` }
  if (!isMrzStateCode(f.nationality)) return { field: "nationality", detail: `nationality ${f.nationality} is not an ICAO 9303 / ISO 3166 code` }
  if (!DOCUMENT_NUMBER.test(f.documentNumber)) return { field: "documentNumber", detail: "document number is not letters and digits followed by fillers" }
  if (!NAME_ZONE.test(f.nameZone)) return { field: "names", detail: "name zone is not SURNAME<<GIVEN<NAMES followed by fillers" }
  if (!/^[MF<]$/.test(f.sex)) return { field: "sex", detail: `sex ${f.sex} is not M, F or <` }
  if (!dateHolds(f.dateOfBirth, "birth")) return { field: "dateOfBirth", detail: `date of birth ${f.dateOfBirth} does not exist` }
  if (!dateHolds(f.expiryDate, "expiry")) return { field: "expiryDate", detail: `expiry date ${f.expiryDate} does not exist` }
  return null
}

/**
 * Parses MRZ lines (TD1, TD2 or TD3 by shape), refuses (`Left`) a zone whose unchecked fields
 * break their ICAO 9303 rules, and verifies every check digit (`valid`).
 */
export const parseMrz = (input: ReadonlyArray<string>): Either.Either<Mrz, MrzFormatError> => {
  const lines = input.map((l) => l.trim().toUpperCase()).filter((l) => l !== "")
  const fail = (detail: string, field?: MrzField) => Either.left<MrzFormatError>({ _tag: "MrzFormatError", detail, ...(field ? { field } : {}) })
  const broken = (f: RawFields) => {
    const b = ruleBroken(f)
    return b === null ? null : fail(b.detail, b.field)
  }
  if (lines.some((l) => !VALID.test(l))) return fail("MRZ lines hold only A-Z, 0-9 and <")
  const lengths = lines.map((l) => l.length).join("x")
  if (lines.length === 3 && lengths === "30x30x30") {
    const [l1, l2, l3] = lines as [string, string, string]
    const documentNumber = l1.slice(5, 14)
    const refused = broken({
      format: "TD1",
      documentCode: l1.slice(0, 2),
      issuingState: l1.slice(2, 5),
      documentNumber,
      nationality: l2.slice(15, 18),
      dateOfBirth: l2.slice(0, 6),
      sex: l2.slice(7, 8),
      expiryDate: l2.slice(8, 14),
      nameZone: l3,
    })
    if (refused !== null) return refused
    const checks: Array<MrzCheck> = [
      { field: "documentNumber", valid: holds(documentNumber, l1[14]!) },
      { field: "dateOfBirth", valid: holds(l2.slice(0, 6), l2[6]!) },
      { field: "expiryDate", valid: holds(l2.slice(8, 14), l2[14]!) },
      { field: "composite", valid: holds(l1.slice(5, 30) + l2.slice(0, 7) + l2.slice(8, 15) + l2.slice(18, 29), l2[29]!) },
    ]
    return Either.right({
      format: "TD1",
      documentCode: clean(l1.slice(0, 2)),
      issuingState: clean(l1.slice(2, 5)),
      documentNumber: clean(documentNumber),
      nationality: clean(l2.slice(15, 18)),
      dateOfBirth: l2.slice(0, 6),
      sex: clean(l2.slice(7, 8)),
      expiryDate: l2.slice(8, 14),
      personalNumber: clean(l1.slice(15, 30)),
      ...names(l3),
      checks,
      valid: checks.every((c) => c.valid),
    })
  }
  if (lines.length === 2 && (lengths === "36x36" || lengths === "44x44")) {
    const [l1, l2] = lines as [string, string]
    const td3 = l1.length === 44
    const documentNumber = l2.slice(0, 9)
    const refused = broken({
      format: td3 ? "TD3" : "TD2",
      documentCode: l1.slice(0, 2),
      issuingState: l1.slice(2, 5),
      documentNumber,
      nationality: l2.slice(10, 13),
      dateOfBirth: l2.slice(13, 19),
      sex: l2.slice(20, 21),
      expiryDate: l2.slice(21, 27),
      nameZone: l1.slice(5),
    })
    if (refused !== null) return refused
    const compositeAt = td3 ? 43 : 35
    const checks: Array<MrzCheck> = [
      { field: "documentNumber", valid: holds(documentNumber, l2[9]!) },
      { field: "dateOfBirth", valid: holds(l2.slice(13, 19), l2[19]!) },
      { field: "expiryDate", valid: holds(l2.slice(21, 27), l2[27]!) },
      ...(td3 ? [{ field: "personalNumber" as const, valid: holds(l2.slice(28, 42), l2[42]!, true) }] : []),
      { field: "composite", valid: holds(l2.slice(0, 10) + l2.slice(13, 20) + l2.slice(21, compositeAt), l2[compositeAt]!) },
    ]
    return Either.right({
      format: td3 ? "TD3" : "TD2",
      documentCode: clean(l1.slice(0, 2)),
      issuingState: clean(l1.slice(2, 5)),
      documentNumber: clean(documentNumber),
      nationality: clean(l2.slice(10, 13)),
      dateOfBirth: l2.slice(13, 19),
      sex: clean(l2.slice(20, 21)),
      expiryDate: l2.slice(21, 27),
      personalNumber: clean(l2.slice(28, td3 ? 42 : 35)),
      ...names(l1.slice(5)),
      checks,
      valid: checks.every((c) => c.valid),
    })
  }
  return fail(`not a TD1 (3×30), TD2 (2×36) or TD3 (2×44) zone: ${lines.length} lines of ${lengths || "0"}`)
}

/**
 * `YYMMDD` as ISO `YYYY-MM-DD`: a birth date is in the past century when its year would be
 * after `currentYear`; an expiry date is always 20YY. Null when not a calendar date.
 */
export const mrzDate = (yymmdd: string, kind: "birth" | "expiry", currentYear: number): string | null => {
  if (!/^\d{6}$/.test(yymmdd)) return null
  const yy = Number(yymmdd.slice(0, 2))
  const month = Number(yymmdd.slice(2, 4))
  const day = Number(yymmdd.slice(4, 6))
  const century = kind === "expiry" ? 2000 : 2000 + yy > currentYear ? 1900 : 2000
  const year = century + yy
  const daysIn = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
  if (month < 1 || month > 12 || day < 1 || day > daysIn[month - 1]!) return null
  return `${year}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`
}

/** The document family (`passport`, `visa`, `national_id`) of an MRZ document code. */
export const docTypeOf = (documentCode: string): string => (documentCode.startsWith("P") ? "passport" : documentCode.startsWith("V") ? "visa" : "national_id")

/** Builds a TD3 zone from fields, with correct check digits (fixtures and tests). */
export const composeTd3 = (f: {
  readonly issuingState: string
  readonly surname: string
  readonly givenNames: string
  readonly documentNumber: string
  readonly nationality: string
  readonly dateOfBirth: string
  readonly sex: string
  readonly expiryDate: string
  readonly personalNumber?: string
}): [string, string] => {
  const pad = (s: string, n: number) => (s.toUpperCase().replace(/[^A-Z0-9]+/g, "<") + "<".repeat(n)).slice(0, n)
  const nameZone = (`${f.surname.toUpperCase().replace(/[^A-Z]+/g, "<")}<<${f.givenNames.toUpperCase().replace(/[^A-Z]+/g, "<")}` + "<".repeat(39)).slice(0, 39)
  const l1 = `P<${pad(f.issuingState, 3)}${nameZone}`
  const doc = pad(f.documentNumber, 9)
  const personal = pad(f.personalNumber ?? "", 14)
  const head = `${doc}${checkDigit(doc)}${pad(f.nationality, 3)}${f.dateOfBirth}${checkDigit(f.dateOfBirth)}${pad(f.sex, 1)}${f.expiryDate}${checkDigit(f.expiryDate)}${personal}${checkDigit(personal)}`
  const composite = checkDigit(head.slice(0, 10) + head.slice(13, 20) + head.slice(21, 43))
  return [l1, `${head}${composite}`]
}
