import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { latin1, PdfDict, PdfName, PdfRef, PdfString, serialise, type PdfValue } from "./objects.ts"
import { Cursor, MalformedPdf, NeedMoreBytes } from "./parse.ts"

/** A comparable form: strings by bytes, names by text, dictionaries as entry lists. */
const plain = (v: PdfValue): unknown => {
  if (v instanceof PdfString) return { s: [...v.bytes] }
  if (v instanceof PdfName) return { n: v.name }
  if (v instanceof PdfRef) return { r: [v.num, v.gen] }
  if (v instanceof PdfDict) return { d: [...v.entries].map(([k, x]) => [k, plain(x)]) }
  if (Array.isArray(v)) return v.map(plain)
  return v
}

const nameText = fc.string({ unit: fc.integer({ min: 1, max: 255 }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 12 })
const value: fc.Arbitrary<PdfValue> = fc.letrec<{ v: PdfValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1e9, max: 1e9 }),
    fc.integer({ min: -1e8, max: 1e8 }).map((n) => n / 1000),
    nameText.map((n) => new PdfName(n)),
    fc.uint8Array({ maxLength: 40 }).map((b) => new PdfString(b)),
    fc.tuple(fc.nat(1e7), fc.nat(65535)).map(([n, g]) => new PdfRef(n, g)),
    fc.array(tie("v"), { maxLength: 5 }),
    fc.uniqueArray(fc.tuple(nameText, tie("v")), { maxLength: 5, selector: ([k]) => k }).map((e) => new PdfDict(new Map(e))),
  ),
})).v

describe("PDF objects", () => {
  it("every value survives serialise then parse (names with any byte, strings with any byte, refs, nesting)", () => {
    fc.assert(
      fc.property(value, (v) => {
        const parsed = new Cursor(latin1(serialise(v)), true).readValue()
        expect(plain(parsed)).toEqual(plain(v))
      }),
      { numRuns: 500 },
    )
  })

  it("reads literal strings with escapes, octal codes, nested parentheses and line continuations", () => {
    const parsed = new Cursor(latin1("(a\\(b\\)c (nested) \\101\\12\\\\ \\\nend)"), true).readValue() as PdfString
    expect(String.fromCharCode(...parsed.bytes)).toBe("a(b)c (nested) A\n\\ end")
  })

  it("asks for more bytes when a window ends inside an object, and refuses bad syntax", () => {
    expect(() => new Cursor(latin1("<< /Type /Pa"), false).readValue()).toThrow(NeedMoreBytes)
    expect(() => new Cursor(latin1("<< /Type /Page"), true).readValue()).toThrow(MalformedPdf)
    expect(() => new Cursor(latin1("<< 12 >>"), true).readValue()).toThrow(MalformedPdf)
  })
})
