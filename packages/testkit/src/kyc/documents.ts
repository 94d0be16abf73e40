/**
 * Generated document photos for the model tests and the benchmark: passport pages (TD3) and
 * ID cards (TD1) rendered by this kit, rotated by a few degrees, with pixel noise and JPEG
 * compression; and the same with one check digit tampered.
 */
import { checkDigit, composeTd3 } from "@signet/core"
import { distort, encodeJpeg, renderDocument, type GreyImage } from "./render.ts"

/** One generated case: the JPEG, the MRZ it shows, and how it was photographed. */
/** Builds a TD1 zone (ID card, 3×30) from fields, with correct check digits. */
export const composeTd1 = (f: {
  readonly documentCode?: string
  readonly issuingState: string
  readonly surname: string
  readonly givenNames: string
  readonly documentNumber: string
  readonly nationality: string
  readonly dateOfBirth: string
  readonly sex: string
  readonly expiryDate: string
  readonly optionalData?: string
}): [string, string, string] => {
  const pad = (s: string, n: number) => (s.toUpperCase().replace(/[^A-Z0-9]+/g, "<") + "<".repeat(n)).slice(0, n)
  const doc = pad(f.documentNumber, 9)
  const l1 = `${pad(f.documentCode ?? "ID", 2)}${pad(f.issuingState, 3)}${doc}${checkDigit(doc)}${pad(f.optionalData ?? "", 15)}`
  const head = `${f.dateOfBirth}${checkDigit(f.dateOfBirth)}${pad(f.sex, 1)}${f.expiryDate}${checkDigit(f.expiryDate)}${pad(f.nationality, 3)}${"<".repeat(11)}`
  const l2 = head + checkDigit(l1.slice(5, 30) + head.slice(0, 7) + head.slice(8, 15) + head.slice(18, 29))
  const l3 = (`${f.surname.toUpperCase().replace(/[^A-Z]+/g, "<")}<<${f.givenNames.toUpperCase().replace(/[^A-Z]+/g, "<")}` + "<".repeat(30)).slice(0, 30)
  return [l1, l2, l3]
}

export interface DocumentCase {
  readonly name: string
  readonly jpeg: Uint8Array
  readonly mrz: ReadonlyArray<string>
  readonly degrees: number
  readonly noise: number
  readonly quality: number
}

const PEOPLE = [
  {
    surname: "Otieno",
    givenNames: "Grace Akinyi",
    documentNumber: "AK1234567",
    nationality: "KEN",
    dateOfBirth: "900115",
    sex: "F",
    expiryDate: "340101",
    personalNumber: "12345678",
  },
  {
    surname: "Mwangi",
    givenNames: "Peter Kamau",
    documentNumber: "BX9081726",
    nationality: "KEN",
    dateOfBirth: "851203",
    sex: "M",
    expiryDate: "310722",
    personalNumber: "27781904",
  },
  {
    surname: "Achieng",
    givenNames: "Mary",
    documentNumber: "C03355811",
    nationality: "UGA",
    dateOfBirth: "011130",
    sex: "F",
    expiryDate: "290509",
    personalNumber: "",
  },
  {
    surname: "Van der Berg",
    givenNames: "Johannes Pieter",
    documentNumber: "NL8T45Q02",
    nationality: "NLD",
    dateOfBirth: "770408",
    sex: "M",
    expiryDate: "330918",
    personalNumber: "9981234",
  },
  {
    surname: "Kiprotich",
    givenNames: "Wilson",
    documentNumber: "PK0072219",
    nationality: "KEN",
    dateOfBirth: "690621",
    sex: "M",
    expiryDate: "300101",
    personalNumber: "30112233",
  },
] as const

/** The same page with one check digit changed (the document number's), everything else as printed. */
export const tamper = (mrz: ReadonlyArray<string>): Array<string> => {
  const lines = [...mrz]
  if (lines.length === 3) {
    const l1 = lines[0]!
    lines[0] = l1.slice(0, 14) + String((Number(checkDigit(l1.slice(5, 14))) + 3) % 10) + l1.slice(15)
  } else {
    const l2 = lines[1]!
    lines[1] = l2.slice(0, 9) + String((Number(checkDigit(l2.slice(0, 9))) + 3) % 10) + l2.slice(10)
  }
  return lines
}

/** Ten cases: five passports and five ID cards, each person once per kind, skewed −4°..4°, noise 4..12, JPEG quality 55..80. */
export const documentCases = (options: { readonly tampered?: boolean; readonly photo?: GreyImage } = {}): Array<DocumentCase> =>
  PEOPLE.flatMap((p, k) => {
    const td3 = composeTd3({ issuingState: p.nationality, ...p })
    const td1 = composeTd1({ issuingState: p.nationality, ...p, optionalData: p.personalNumber })
    return (["passport", "id-card"] as const).map((layout, j) => {
      const i = k * 2 + j
      const printed = layout === "passport" ? td3 : td1
      const mrz = options.tampered ? tamper(printed) : printed
      const degrees = [-4, -2.5, -1, 0.5, 1.5, 3, 4, -3.5, 2, -0.5][i]!
      const noise = 4 + (i % 5) * 2
      const quality = 55 + (i % 6) * 5
      const img = distort(renderDocument(layout, { mrz, photo: options.photo }), { degrees, noise, seed: 1000 + i })
      return {
        name: `${layout} ${p.surname} ${degrees}° noise ${noise} q${quality}${options.tampered ? " tampered" : ""}`,
        jpeg: encodeJpeg(img, quality),
        mrz,
        degrees,
        noise,
        quality,
      }
    })
  })
