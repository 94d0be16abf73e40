/**
 * ICAO 9303 machine-readable zones: TD1 (3×30), TD2 (2×36) and TD3 (2×44) parsing with
 * every check digit (7-3-1 weights, mod 10). Pure; dates come back as `YYMMDD` and are
 * given a century by `mrzDate`.
 */
import { Either } from "effect"

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

/** Why lines are not an MRZ at all. */
export interface MrzFormatError {
  readonly _tag: "MrzFormatError"
  readonly detail: string
}

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

/** Parses MRZ lines (TD1, TD2 or TD3 by shape) and verifies every check digit. */
export const parseMrz = (input: ReadonlyArray<string>): Either.Either<Mrz, MrzFormatError> => {
  const lines = input.map((l) => l.trim().toUpperCase()).filter((l) => l !== "")
  const fail = (detail: string) => Either.left<MrzFormatError>({ _tag: "MrzFormatError", detail })
  if (lines.some((l) => !VALID.test(l))) return fail("MRZ lines hold only A-Z, 0-9 and <")
  const lengths = lines.map((l) => l.length).join("x")
  if (lines.length === 3 && lengths === "30x30x30") {
    const [l1, l2, l3] = lines as [string, string, string]
    const documentNumber = l1.slice(5, 14)
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
