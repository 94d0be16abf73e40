/**
 * The document generator of the MRZ evaluation (`pnpm eval:kyc`). It shares no code with the
 * reader (`src/mrz-reader.ts`) nor with core's MRZ code (`core/src/kyc/mrz.ts`): its own ICAO 9303
 * check digits, its own line composition, its own code list. ImageMagick draws each document with
 * the real OCR-B font (Debian `fonts-ocr-b`) on a photo-page layout, then makes the photographed
 * variants. Everything random comes from a PRNG seeded by (seed, document index), so a document
 * is the same on every machine with the same ImageMagick and fonts.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

/** The variants of the evaluation, in table order. */
export const VARIANTS = ["clean", "paper", "rotated", "jpeg60", "blur", "tilt", "light", "tampered"] as const
/** One variant of a document image. */
export type Variant = (typeof VARIANTS)[number]

/** How each variant is described in the table. */
export const VARIANT_LABELS: Record<Variant, string> = {
  clean: "clean page (JPEG 90)",
  paper: "clean page + 2–3 px of paper below (odd height)",
  rotated: "rotated ±3°",
  jpeg60: "JPEG 60",
  blur: "blur 0.8",
  tilt: "perspective tilt",
  light: "uneven lighting",
  tampered: "tampered check digit (clean page)",
}

/** The day the evaluation judges expiry against: every generated document is valid on it. */
export const EVAL_TODAY = "2026-01-15"

/** What a generated document carries, as printed. */
export interface Truth {
  readonly id: string
  readonly seed: string
  readonly index: number
  readonly format: "TD3" | "TD1"
  /** the MRZ lines as printed on every variant but `tampered` */
  readonly lines: ReadonlyArray<string>
  readonly fields: {
    readonly documentCode: string
    readonly issuingState: string
    readonly documentNumber: string
    readonly nationality: string
    /** ISO YYYY-MM-DD */
    readonly dateOfBirth: string
    /** M, F or "" (printed `<`) */
    readonly sex: string
    /** ISO YYYY-MM-DD */
    readonly expiryDate: string
    /** TD3 personal number, TD1 optional data of line 1 ("" when none) */
    readonly personalNumber: string
    /** as the MRZ carries them: fillers read as spaces */
    readonly surname: string
    readonly givenNames: string
  }
  /** the MRZ lines of the `tampered` variant: one check digit changed */
  readonly tampered: { readonly lines: ReadonlyArray<string>; readonly line: number; readonly position: number }
  /** per-variant drawing parameters, for the record */
  readonly params: Record<string, unknown>
}

// ---------------------------------------------------------------------------------------------
// Random data

/** mulberry32 over a 32-bit FNV-1a hash of the text seed: small, fast, and the same everywhere. */
const prng = (text: string): (() => number) => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  let a = h
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Rand {
  readonly next: () => number
  readonly int: (lo: number, hi: number) => number
  readonly pick: <A>(xs: ReadonlyArray<A>) => A
  readonly chance: (p: number) => boolean
}

const rand = (text: string): Rand => {
  const next = prng(text)
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1))
  return { next, int, pick: (xs) => xs[int(0, xs.length - 1)]!, chance: (p) => next() < p }
}

// ICAO 9303 Part 3 codes: ISO 3166-1 alpha-3 codes and ICAO's own (D for Germany, the UN codes, XXA stateless...).
const STATES = (
  "AFG ALB DZA AND AGO ARG ARM AUS AUT AZE BHS BGD BEL BEN BOL BIH BRA BGR KHM CMR CAN CHL CHN COL CRI HRV CUB CYP CZE DNK DOM ECU EGY EST ETH " +
  "FIN FRA GEO D GHA GRC GTM HND HUN ISL IND IDN IRN IRQ IRL ISR ITA JAM JPN JOR KAZ KEN KOR KWT LVA LBN LTU LUX MDG MYS MLT MEX MDA MCO MNG " +
  "MNE MAR MOZ NAM NPL NLD NZL NGA NOR PAK PAN PRY PER PHL POL PRT QAT ROU RUS RWA SAU SEN SRB SGP SVK SVN ZAF ESP LKA SWE CHE TWN TZA THA TUN " +
  "TUR UGA UKR ARE GBR USA URY UZB VEN VNM ZMB ZWE GBD GBN GBO UNO UNA XXA XXB XOM EUE"
).split(" ")

const SURNAMES = (
  "SMITH,GARCIA,DE LA CONCHA,VAN DER BERG,MUELLER,NGUYEN,KOWALSKA,EL AMRANI,DOS SANTOS,OKAFOR,NAKAMURA,ROSSI,KIM,SCHMIDT-HAHN,IVANOVA," +
  "JOHANSSON,MOLINA PEREZ,O'NEILL,ABDULLAH,LI,WANG,HAMID,PETROV,MACDONALD,DI MARIA,ERIKSSON,BENALI,TRAN,FERREIRA DA SILVA,KARLSSON," +
  "DUBOIS,LEFEBVRE,NOWAK,HORVATH,PAPADOPOULOS,YILMAZ,MENSAH,OSEI,WOJCIK,VAN HOUTEN,AL FARSI,CHOWDHURY,GONZALEZ,BJORK,QUINN,ZHOU," +
  "ST JOHN,LOPEZ DE VEGA,MBEKI,XU"
).split(",")
const GIVEN = (
  "MARIA JOSE ANNA JEAN PAUL LUCIA AHMED FATIMA WEI YUKI OLUWASEUN ISABEL PETER KWAME ELENA SVEN INGRID MIGUEL ANGEL SOFIA HANS PIETER AISHA " +
  "RAJ PRIYA CHLOE NOAH LIAM ZOE QUENTIN XAVIER JUAN CARLOS ANA LUIS MEI TOMASZ AGNIESZKA BJORN KAI IVAN OLGA MUHAMMAD ELIF EMRE"
).split(" ")

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
const DIGITS = "0123456789"

/** The MRZ form of a name: letters kept, space, hyphen and other separators become one filler, apostrophes vanish. */
const mrzName = (name: string) => name.replace(/'/g, "").replace(/[^A-Z]+/g, "<")

const pad = (s: string, n: number) => {
  if (s.length > n) throw new Error(`field ${s} longer than ${n}`)
  return s + "<".repeat(n - s.length)
}

/** ICAO 9303 Part 3 check digit: values 0-9, A=10..Z=35, < = 0; weights 7, 3, 1; sum mod 10. */
const check = (field: string): string => {
  const weights = [7, 3, 1]
  let sum = 0
  for (let i = 0; i < field.length; i++) {
    const c = field[i]!
    const v = c === "<" ? 0 : c >= "0" && c <= "9" ? c.charCodeAt(0) - 48 : c.charCodeAt(0) - 55
    sum += v * weights[i % 3]!
  }
  return String(sum % 10)
}

const ymd = (d: Date) => d.toISOString().slice(0, 10)
const yymmdd = (iso: string) => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10)
const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
const visualDate = (iso: string) => `${iso.slice(8, 10)} ${MONTHS[Number(iso.slice(5, 7)) - 1]} ${iso.slice(0, 4)}`

const dayBetween = (r: Rand, from: string, to: string): string => {
  const a = Date.parse(`${from}T00:00:00Z`)
  const b = Date.parse(`${to}T00:00:00Z`)
  return ymd(new Date(a + r.int(0, Math.round((b - a) / 86_400_000)) * 86_400_000))
}

const documentNumber = (r: Rand): string => {
  const chars = (set: string, n: number) => Array.from({ length: n }, () => r.pick([...set])).join("")
  switch (r.int(0, 4)) {
    case 0:
      return chars(LETTERS, 2) + chars(DIGITS, 7) // WG0094215
    case 1:
      return chars(LETTERS, 1) + chars(LETTERS + DIGITS, 8) // C01X00T47
    case 2:
      return chars(DIGITS, 9)
    case 3:
      return chars(LETTERS, 2) + chars(DIGITS, 6) // 8 characters: one filler before the check digit
    default:
      return chars(DIGITS, 2) + chars(LETTERS, 2) + chars(DIGITS, 5)
  }
}

/** Names that fit the name zone whole (the generator never truncates, so the truth is the printed name). */
const names = (r: Rand, width: number): { surname: string; given: Array<string> } => {
  for (;;) {
    const surname = r.chance(0.3) ? `${r.pick(SURNAMES)} ${r.pick(SURNAMES)}` : r.pick(SURNAMES)
    const given = Array.from({ length: r.pick([1, 1, 2, 2, 3]) }, () => r.pick(GIVEN))
    while (given.length > 0 && `${mrzName(surname)}<<${given.map(mrzName).join("<")}`.length > width) given.pop()
    if (given.length > 0) return { surname, given }
  }
}

interface Person {
  readonly format: "TD3" | "TD1"
  readonly documentCode: string
  readonly issuingState: string
  readonly nationality: string
  readonly documentNumber: string
  readonly surname: string
  readonly given: ReadonlyArray<string>
  readonly sex: "M" | "F" | "<"
  readonly birth: string
  readonly expiry: string
  readonly personalNumber: string
  readonly optional2: string
}

const person = (r: Rand): Person => {
  const format = r.chance(0.5) ? "TD3" : "TD1"
  const issuingState = r.pick(STATES)
  const nationality = r.chance(0.8) ? issuingState : r.pick(STATES)
  const { surname, given } = names(r, format === "TD3" ? 39 : 30)
  const numeric = (n: number) => Array.from({ length: n }, () => r.pick([...DIGITS])).join("")
  return {
    format,
    documentCode: format === "TD3" ? "P<" : r.pick(["I<", "ID", "A<", "C<"]),
    issuingState,
    nationality,
    documentNumber: documentNumber(r),
    surname,
    given,
    sex: r.chance(0.08) ? "<" : r.chance(0.5) ? "F" : "M",
    birth: dayBetween(r, "1935-01-01", "2007-12-31"),
    expiry: dayBetween(r, "2026-03-01", "2035-12-31"),
    personalNumber: r.chance(0.5)
      ? ""
      : format === "TD3"
        ? r.chance(0.5)
          ? numeric(r.int(8, 14))
          : `${r.pick([...LETTERS])}${numeric(r.int(6, 11))}`
        : numeric(r.int(6, 15)),
    optional2: format === "TD1" && r.chance(0.25) ? numeric(r.int(3, 11)) : "",
  }
}

/** The MRZ lines of a person, composed field by field (ICAO 9303 Parts 4 and 5). */
const compose = (p: Person): Array<string> => {
  const state = pad(p.issuingState, 3)
  const nat = pad(p.nationality, 3)
  const doc = pad(p.documentNumber, 9)
  const dob = yymmdd(p.birth)
  const exp = yymmdd(p.expiry)
  const nameZone = (width: number) => pad(`${mrzName(p.surname)}<<${p.given.map(mrzName).join("<")}`, width)
  if (p.format === "TD3") {
    const pn = pad(p.personalNumber, 14)
    // an empty personal number has `<` as its check digit (Part 4, 4.2.2.2)
    const pnCheck = p.personalNumber === "" ? "<" : check(pn)
    const head = `${doc}${check(doc)}${nat}${dob}${check(dob)}${p.sex}${exp}${check(exp)}${pn}${pnCheck}`
    const composite = check(head.slice(0, 10) + head.slice(13, 20) + head.slice(21, 43))
    return [`${p.documentCode}${state}${nameZone(39)}`, `${head}${composite}`]
  }
  const l1 = `${p.documentCode}${state}${doc}${check(doc)}${pad(p.personalNumber, 15)}`
  const l2head = `${dob}${check(dob)}${p.sex}${exp}${check(exp)}${nat}${pad(p.optional2, 11)}`
  const composite = check(l1.slice(5, 30) + l2head.slice(0, 7) + l2head.slice(8, 15) + l2head.slice(18, 29))
  return [l1, `${l2head}${composite}`, nameZone(30)]
}

/** Positions (line, column) of the check digits of a zone. */
const checkPositions = (format: "TD3" | "TD1"): Array<[number, number]> =>
  format === "TD3"
    ? [
        [1, 9],
        [1, 19],
        [1, 27],
        [1, 42],
        [1, 43],
      ]
    : [
        [0, 14],
        [1, 6],
        [1, 14],
        [1, 29],
      ]

const tamper = (r: Rand, format: "TD3" | "TD1", lines: ReadonlyArray<string>) => {
  const [line, position] = r.pick(checkPositions(format))
  const was = lines[line]![position]!
  const choices = [...DIGITS].filter((d) => d !== was && !(was === "<" && d === "0"))
  const out = [...lines]
  out[line] = out[line]!.slice(0, position) + r.pick(choices) + out[line]!.slice(position + 1)
  return { lines: out, line, position }
}

// ---------------------------------------------------------------------------------------------
// Drawing

/** The font files the generator draws with, found through fontconfig. */
export const fonts = async (): Promise<{ ocrb: string; sans: string; sansBold: string }> => {
  const list = (await run("fc-list", ["--format", "%{file}\n"])).stdout.split("\n")
  // the regular face (Debian: OCRB.otf), not the sharp, outline, inverted or oblique ones beside it
  const ocrb = list.find((f) => /^ocr-?b\.(otf|ttf)$/i.test(path.basename(f)))
  if (ocrb === undefined) throw new Error("the OCR-B font is not installed: apt-get install -y fonts-ocr-b imagemagick")
  const sans = list.find((f) => f.endsWith("DejaVuSans.ttf")) ?? list.find((f) => /\.ttf$/.test(f))!
  const sansBold = list.find((f) => f.endsWith("DejaVuSans-Bold.ttf")) ?? sans
  return { ocrb, sans, sansBold }
}

// MVG strings are single-quoted: an apostrophe in a name or label is drawn as a typographic one
const quote = (s: string) => `'${s.replace(/\\/g, "").replace(/'/g, "\u2019")}'`
const hex = (rgb: ReadonlyArray<number>) =>
  `#${rgb
    .map((v) =>
      Math.max(0, Math.min(255, Math.round(v)))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`

interface Page {
  readonly width: number
  readonly height: number
  readonly paper: string
  readonly mvg: string
}

/**
 * The data page as MVG (ImageMagick's vector language): tinted paper with a guilloche of thin
 * curves, a header, a face-sized photo box, the visual zone's labels and values, and the MRZ in
 * OCR-B at 2.54 mm pitch (ICAO 9303 Part 3: 10 characters per 25.4 mm), one glyph per cell.
 */
const drawPage = (
  r: Rand,
  p: Person,
  lines: ReadonlyArray<string>,
  f: { ocrb: string; sans: string; sansBold: string },
  scale: number,
  ocrbAdvance: number,
): Page => {
  const td3 = p.format === "TD3"
  // TD3 data page 125 × 88 mm; TD1 card 85.6 × 53.98 mm
  const mmW = td3 ? 125 : 85.6
  const mmH = td3 ? 88 : 53.98
  const width = Math.round(mmW * scale)
  const height = Math.round(mmH * scale)
  const mm = (v: number) => (v * scale).toFixed(2)
  const tint = r.pick([
    [238, 243, 234],
    [243, 238, 228],
    [233, 238, 246],
    [245, 236, 240],
    [240, 240, 232],
  ])
  const paper = hex(tint)
  const out: Array<string> = [`viewbox 0 0 ${width} ${height}`, `fill ${paper}`, `rectangle 0,0 ${width},${height}`]
  // guilloche: thin sine curves in a slightly darker tint, fainter over the MRZ band
  const ink = hex(tint.map((v) => v - 38))
  const mrzTop = mmH - (td3 ? 17 : 19)
  out.push("fill none", `stroke ${ink}`, `stroke-width ${Math.max(1, scale * 0.12).toFixed(2)}`)
  const curves = r.int(7, 12)
  for (let k = 0; k < curves; k++) {
    const y0 = r.next() * mrzTop
    const amp = 2 + r.next() * 6
    const period = 12 + r.next() * 30
    const phase = r.next() * Math.PI * 2
    const pts: Array<string> = []
    for (let x = 0; x <= mmW; x += 1.5) pts.push(`${mm(x)},${mm(y0 + amp * Math.sin((x / period) * Math.PI * 2 + phase))}`)
    out.push(`polyline ${pts.join(" ")}`)
  }
  out.push(`stroke ${hex(tint.map((v) => v - 14))}`)
  for (let k = 0; k < 4; k++) {
    const y0 = mrzTop + r.next() * (mmH - mrzTop)
    const pts: Array<string> = []
    for (let x = 0; x <= mmW; x += 1.5) pts.push(`${mm(x)},${mm(y0 + 1.5 * Math.sin(x / 5 + k))}`)
    out.push(`polyline ${pts.join(" ")}`)
  }
  out.push("stroke none")
  const text = (font: string, size: number, colour: string, x: number, y: number, s: string) =>
    out.push(`font ${quote(font)}`, `font-size ${mm(size)}`, `fill ${colour}`, `text ${mm(x)},${mm(y)} ${quote(s)}`)
  const label = (x: number, y: number, s: string) => text(f.sans, 1.5, "#5a6270", x, y, s)
  const value = (x: number, y: number, s: string) => text(f.sansBold, 2.4, "#1d2330", x, y, s)
  // header
  text(f.sansBold, td3 ? 3.2 : 2.6, "#27405e", td3 ? 40 : 26, td3 ? 6.5 : 5, td3 ? "PASSPORT / PASSEPORT" : "IDENTITY CARD / CARTE D'IDENTITE")
  text(
    f.sans,
    2,
    "#27405e",
    td3 ? 40 : 26,
    td3 ? 10 : 8,
    `${p.issuingState.padEnd(3, " ")}  ${r.pick(["REPUBLIC", "KINGDOM", "STATE", "FEDERATION", "UNION"])}`,
  )
  // face box: 32 × 40 mm on the passport page, a small ghost image on the card's back
  const [fx, fy, fw, fh] = td3 ? [5, 16, 32, 40] : [3, 4, 18, 23]
  const skin = hex(
    r.pick([
      [224, 190, 160],
      [198, 150, 112],
      [150, 104, 72],
      [236, 205, 180],
      [110, 78, 56],
    ]),
  )
  out.push(`fill #d9dde3`, `rectangle ${mm(fx)},${mm(fy)} ${mm(fx + fw)},${mm(fy + fh)}`)
  out.push(`fill #3c4450`, `ellipse ${mm(fx + fw / 2)},${mm(fy + fh)} ${mm(fw * 0.42)},${mm(fh * 0.3)} 180,360`)
  out.push(`fill ${skin}`, `ellipse ${mm(fx + fw / 2)},${mm(fy + fh * 0.42)} ${mm(fw * 0.24)},${mm(fh * 0.26)} 0,360`)
  out.push(`fill #2b2420`, `ellipse ${mm(fx + fw / 2)},${mm(fy + fh * 0.24)} ${mm(fw * 0.25)},${mm(fh * 0.11)} 180,360`)
  // visual zone
  const vx = td3 ? 42 : 24
  let vy = td3 ? 16 : 13
  const step = td3 ? 5.6 : 4.4
  const rows: Array<[string, string]> = [
    ["Surname / Nom", p.surname],
    ["Given names / Prenoms", p.given.join(" ")],
    ["Nationality / Nationalite", p.nationality],
    ["Date of birth / Date de naissance", visualDate(p.birth)],
    ["Sex / Sexe", p.sex === "<" ? "X" : p.sex],
    ["Date of expiry / Date d'expiration", visualDate(p.expiry)],
    [td3 ? "Passport No. / No du passeport" : "Document No.", p.documentNumber],
  ]
  for (const [l, v] of td3 ? rows : rows.slice(0, 7)) {
    label(vx, vy, l)
    value(vx, vy + 2.6, v)
    vy += step
    if (!td3 && vy > mrzTop - 3) break
  }
  if (td3) {
    label(vx + 45, 16, "Authority / Autorite")
    value(vx + 45, 18.6, r.pick(["MINISTRY OF INTERIOR", "PASSPORT OFFICE", "CONSULATE GENERAL"]))
    // a signature
    const pts: Array<string> = []
    const sy = 50
    for (let x = 0; x <= 22; x += 0.5) pts.push(`${mm(vx + 45 + x)},${mm(sy + 2 * Math.sin(x * 0.9 + r.next()) * Math.cos(x * 0.3))}`)
    out.push("fill none", "stroke #1b2a6b", `stroke-width ${Math.max(1, scale * 0.18).toFixed(2)}`, `polyline ${pts.join(" ")}`, "stroke none")
  }
  // MRZ: OCR-B at 2.54 mm pitch, baselines 4.3 mm apart, last baseline ~4 mm above the bottom edge
  const pitch = 2.54
  const size = pitch / ocrbAdvance
  const left = (mmW - pitch * lines[0]!.length) / 2
  const lastBaseline = mmH - (td3 ? 4.6 : 3.6)
  lines.forEach((line, k) => {
    const y = lastBaseline - (lines.length - 1 - k) * (td3 ? 4.6 : 4.23)
    out.push(`font ${quote(f.ocrb)}`, `font-size ${mm(size)}`, "fill #111111")
    for (let c = 0; c < line.length; c++) out.push(`text ${mm(left + c * pitch)},${mm(y)} ${quote(line[c]!)}`)
  })
  return { width, height, paper, mvg: out.join("\n") }
}

/** The advance of an OCR-B glyph, in em (ImageMagick's metrics of the installed font). */
const advanceOf = async (ocrb: string): Promise<number> => {
  const { stdout } = await run("convert", ["-font", ocrb, "-pointsize", "1000", "label:MMMMMMMMMM", "-format", "%w", "info:"])
  return Number(stdout) / 10 / 1000
}

const convert = async (args: ReadonlyArray<string>) => {
  await run("convert", [...args], { maxBuffer: 16 * 1024 * 1024 })
}

// JPEG as a phone writes it: 4:2:0 chroma, no metadata
const jpeg = (quality: number) => ["-strip", "-sampling-factor", "2x2", "-quality", String(quality)]

/** The printed fields of a person, as the MRZ carries them. */
const fieldsOf = (p: Person): Truth["fields"] => ({
  documentCode: p.documentCode.replace(/<+$/, ""),
  issuingState: p.issuingState,
  documentNumber: p.documentNumber,
  nationality: p.nationality,
  dateOfBirth: p.birth,
  sex: p.sex === "<" ? "" : p.sex,
  expiryDate: p.expiry,
  personalNumber: p.personalNumber,
  surname: mrzName(p.surname).replace(/</g, " "),
  givenNames: p.given.map(mrzName).join(" ").replace(/</g, " "),
})

/**
 * The data of document `index` of `seed`, without drawing: the printed MRZ lines, the fields and
 * the tampered lines. The PRNG it returns goes on to the drawing parameters.
 */
export const documentData = (seed: string, index: number) => {
  const r = rand(`${seed}:${index}`)
  const p = person(r)
  const lines = compose(p)
  const tampered = tamper(r, p.format, lines)
  return { r, p, format: p.format, lines, fields: fieldsOf(p), tampered }
}

/** The document folder of `index` under `root`: its truth and one JPEG per variant. */
export const documentDir = (root: string, seed: string, index: number) => path.join(root, `seed-${seed}`, String(index).padStart(5, "0"))

/**
 * Generates document `index` of `seed` into `documentDir(root, ...)`, with the given variants
 * (those already there are kept). Returns its truth.
 */
export const generateDocument = async (root: string, seed: string, index: number, variants: ReadonlyArray<Variant> = VARIANTS): Promise<Truth> => {
  const dir = documentDir(root, seed, index)
  const truthFile = path.join(dir, "truth.json")
  const missing = variants.filter((v) => !existsSync(path.join(dir, `${v}.jpg`)))
  if (missing.length === 0 && existsSync(truthFile)) return JSON.parse(readFileSync(truthFile, "utf8")) as Truth
  mkdirSync(dir, { recursive: true })
  const f = await fonts()
  const advance = await advanceOf(f.ocrb)
  const { r, p, lines, tampered } = documentData(seed, index)
  // scale (px/mm): a phone photo filling the frame with a passport page or a card
  const scale = p.format === "TD3" ? 9 + r.next() * 3 : 12 + r.next() * 4
  const pageSeed = `${seed}:${index}:page`
  const page = drawPage(rand(pageSeed), p, lines, f, scale, advance)
  const table = hex(
    r.pick([
      [92, 74, 58],
      [60, 62, 66],
      [120, 104, 86],
      [40, 44, 52],
    ]),
  )
  const rotation = (r.chance(0.5) ? -1 : 1) * 3
  const tilt = { edge: r.pick(["top", "bottom", "left", "right"]), amount: 0.03 + r.next() * 0.03 }
  const light = { direction: r.pick(["North", "South", "East", "West", "NorthEast", "SouthWest"]), darkest: Math.round(50 + r.next() * 15) }
  const params = { scale: Number(scale.toFixed(3)), width: page.width, height: page.height, table, rotation, tilt, light }
  const truth: Truth = {
    id: `${seed}-${index}`,
    seed,
    index,
    format: p.format,
    lines,
    fields: fieldsOf(p),
    tampered,
    params,
  }
  writeFileSync(truthFile, `${JSON.stringify(truth, null, 2)}\n`)
  const base = path.join(dir, "page.png")
  const render = (mvg: string, to: string) => convert(["-size", `${page.width}x${page.height}`, `xc:${page.paper}`, "-draw", mvg, "-strip", to])
  if (missing.some((v) => v !== "tampered")) await render(page.mvg, base)
  const out = (v: Variant) => path.join(dir, `${v}.jpg`)
  const W = page.width
  const H = page.height
  for (const v of missing) {
    switch (v) {
      case "clean":
        await convert([base, ...jpeg(90), out(v)])
        break
      case "paper":
        // 2 rows of paper, 3 when the page height is even: every image of this variant has an odd height
        await convert([base, "-background", page.paper, "-gravity", "south", "-splice", `0x${H % 2 === 0 ? 3 : 2}`, ...jpeg(90), out(v)])
        break
      case "rotated":
        await convert([base, "-background", table, "-rotate", String(rotation), ...jpeg(90), out(v)])
        break
      case "jpeg60":
        await convert([base, ...jpeg(60), out(v)])
        break
      case "blur":
        await convert([base, "-blur", "0x0.8", ...jpeg(90), out(v)])
        break
      case "tilt": {
        // the page on a table, photographed at an angle: one edge nearer the camera (wider) than the opposite one
        const b = Math.round(W * 0.04)
        const w = W + 2 * b
        const h = H + 2 * b
        const dx = tilt.amount * W
        const dy = tilt.amount * H
        const c = { tl: [b, b], tr: [b + W, b], br: [b + W, b + H], bl: [b, b + H] }
        const to = {
          top: { tl: [b + dx, b + dy / 2], tr: [b + W - dx, b + dy / 2], br: c.br, bl: c.bl },
          bottom: { tl: c.tl, tr: c.tr, br: [b + W - dx, b + H - dy / 2], bl: [b + dx, b + H - dy / 2] },
          left: { tl: [b + dx / 2, b + dy], tr: c.tr, br: c.br, bl: [b + dx / 2, b + H - dy] },
          right: { tl: c.tl, tr: [b + W - dx / 2, b + dy], br: [b + W - dx / 2, b + H - dy], bl: c.bl },
        }[tilt.edge as "top" | "bottom" | "left" | "right"]
        const pairs = (["tl", "tr", "br", "bl"] as const).map((k) => `${c[k][0]},${c[k][1]} ${to[k][0]!.toFixed(1)},${to[k][1]!.toFixed(1)}`).join("  ")
        await convert([
          base,
          "-bordercolor",
          table,
          "-border",
          String(b),
          "-background",
          table,
          "-virtual-pixel",
          "background",
          "-distort",
          "Perspective",
          pairs,
          "-extent",
          `${w}x${h}`,
          ...jpeg(90),
          out(v),
        ])
        break
      }
      case "light":
        // a lamp to one side: brightness falls linearly to `darkest` % across the page
        await convert([
          base,
          "(",
          "-size",
          `${W}x${H}`,
          "-define",
          `gradient:direction=${light.direction}`,
          `gradient:gray(100%)-gray(${light.darkest}%)`,
          ")",
          "-compose",
          "Multiply",
          "-composite",
          ...jpeg(90),
          out(v),
        ])
        break
      case "tampered": {
        const t = drawPage(rand(pageSeed), p, tampered.lines, f, scale, advance)
        const tbase = path.join(dir, "tampered.png")
        await render(t.mvg, tbase)
        await convert([tbase, ...jpeg(90), out(v)])
        break
      }
    }
  }
  return truth
}

/** Runs `tasks` with at most `limit` at a time. */
export const pool = async <A>(limit: number, tasks: ReadonlyArray<() => Promise<A>>): Promise<Array<A>> => {
  const results: Array<A> = new Array(tasks.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) {
        const k = next++
        results[k] = await tasks[k]!()
      }
    }),
  )
  return results
}
