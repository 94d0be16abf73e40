/**
 * Judging a document reading: the MRZ check when the document has one (check digits,
 * expiry against today, names against the visual zone), else the reader's overall result.
 */
import { Either } from "effect"
import type { DocumentOutcome } from "./machine.ts"
import { KYC_REASONS } from "./machine.ts"
import type { DocumentReading, KycDocument } from "./model.ts"
import { docTypeOf, mrzDate, parseMrz } from "./mrz.ts"

const letters = (s: string) =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .replace(/[^A-Z]+/g, "")

/** MRZ names are transliterated and may be truncated: the MRZ form must be a prefix of the visual one. */
const namesAgree = (mrz: string, visual: string | undefined) =>
  visual === undefined || letters(visual).startsWith(letters(mrz)) || letters(mrz).startsWith(letters(visual))

/** Judges `reading` on `today` (ISO `YYYY-MM-DD`): accepted with its fields, or refused with reasons. */
export const judgeDocument = (reading: DocumentReading, today: string): DocumentOutcome => {
  const refuse = (...extra: ReadonlyArray<string>): DocumentOutcome => ({ accepted: false, reasons: [KYC_REASONS.documentNotAuthentic, ...extra] })
  if (!reading.authentic) return refuse()
  const currentYear = Number(today.slice(0, 4))
  let document: KycDocument
  if (reading.mrz !== null) {
    const parsed = parseMrz(reading.mrz)
    if (Either.isLeft(parsed)) return refuse("mrz_unreadable")
    const mrz = parsed.right
    if (!mrz.valid) return refuse("mrz_check_failed")
    if (!namesAgree(mrz.surname, reading.visual?.surname) || !namesAgree(mrz.givenNames, reading.visual?.givenNames)) {
      return refuse("mrz_name_mismatch")
    }
    document = {
      docType: docTypeOf(mrz.documentCode),
      docNumber: mrz.documentNumber,
      personalNumber: mrz.personalNumber || (reading.visual?.personalNumber ?? ""),
      surname: reading.visual?.surname ?? mrz.surname,
      givenNames: reading.visual?.givenNames ?? mrz.givenNames,
      dateOfBirth: mrzDate(mrz.dateOfBirth, "birth", currentYear),
      docExpiry: mrzDate(mrz.expiryDate, "expiry", currentYear),
      nationality: mrz.nationality,
    }
  } else {
    const v = reading.visual
    if (!reading.accepted || v === null || v.surname === undefined || v.docNumber === undefined) return refuse()
    document = {
      docType: v.docType ?? "national_id",
      docNumber: v.docNumber,
      personalNumber: v.personalNumber ?? "",
      surname: v.surname,
      givenNames: v.givenNames ?? "",
      dateOfBirth: v.dateOfBirth ?? null,
      docExpiry: v.docExpiry ?? null,
      nationality: v.nationality ?? "",
    }
  }
  if (document.docExpiry !== null && document.docExpiry < today) return { accepted: false, reasons: ["document_expired"] }
  return { accepted: true, document }
}
