/**
 * Issue 13, items 1, 6, 7 and 14: each hostile PDF of the issue, read by the core directly (open,
 * scan for validation, prepare a signature), ends in a typed 422 quickly and within its budgets,
 * where it used to exhaust the heap, spin for hours or overflow the stack. How long each takes
 * is measured by `pnpm bench:poison` (a figure, not an assertion a loaded machine could flake).
 */
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import {
  deepNestingPdf,
  flateBombPdf,
  largeXrefTablePdf,
  selfContainingObjectStreamPdf,
  selfKidsPdf,
  selfLengthPdf,
  zeroWidthXrefPdf,
} from "../../../testkit/src/pdf/poison.ts"
import { PDF_BUDGETS } from "./budget.ts"
import { bytesSource } from "./byte-source.ts"
import { openPdf } from "./document.ts"
import { prepareSignature } from "./prepare.ts"
import { scanPdfSignatures } from "./scan-signatures.ts"

const options = { signerName: "Mallory", signingTime: new Date("2026-11-26T05:00:00Z") }

/** Runs scan and prepare on `pdf`; answers each failure's tag and message. */
const attempt = async (pdf: Uint8Array) => {
  const scan = await Effect.runPromiseExit(scanPdfSignatures(bytesSource(pdf)))
  const prepare = await Effect.runPromiseExit(prepareSignature(bytesSource(pdf), options))
  const failure = (exit: Exit.Exit<unknown, { _tag: string; message: string; status: number }>) =>
    Exit.isFailure(exit) && exit.cause._tag === "Fail"
      ? { tag: exit.cause.error._tag, status: exit.cause.error.status, message: exit.cause.error.message }
      : { tag: exit._tag === "Success" ? "success" : "defect" }
  return { scan: failure(scan), prepare: failure(prepare) }
}

describe("hostile PDFs end in a typed 422 (issue 13)", () => {
  it("item 1: an xref stream of zero-width rows and /Index [0 400000000] is refused", async () => {
    const result = await attempt(zeroWidthXrefPdf())
    expect(result.scan).toEqual({ tag: "PdfUnreadable", status: 422, message: "Not a PDF that can be signed: an xref stream without a valid /W" })
    expect(result.prepare.tag).toBe("PdfUnreadable")
  })

  it("item 1: an object stream that contains itself is a reference cycle, not a recursion", async () => {
    const result = await attempt(selfContainingObjectStreamPdf())
    expect(result.scan).toEqual({ tag: "PdfUnreadable", status: 422, message: "Not a PDF that can be signed: object 5 refers back to itself" })
    expect(result.prepare.tag).toBe("PdfUnreadable")
  })

  it("item 1: a stream whose /Length is a reference to itself is refused", async () => {
    const result = await attempt(selfLengthPdf())
    expect(result.scan).toEqual({ tag: "PdfUnreadable", status: 422, message: "Not a PDF that can be signed: object 1 refers back to itself" })
  })

  it("item 6: a field whose /Kids names itself 8 times, and a page tree that does, are refused, not walked 8^16 times", async () => {
    const result = await attempt(selfKidsPdf())
    expect(result.scan).toEqual({ tag: "PdfUnreadable", status: 422, message: "Not a PDF that can be signed: form field 3 appears twice in the field tree" })
    expect(result.prepare).toEqual({ tag: "PdfUnreadable", status: 422, message: "Not a PDF that can be signed: the page tree has a cycle" })
  })

  it("item 7: a 1 MiB flate bomb inflates no further than the inflate budget", async () => {
    const pdf = flateBombPdf()
    expect(pdf.length).toBeGreaterThan(1_000_000)
    const result = await attempt(pdf)
    expect(result.scan).toEqual({
      tag: "PdfTooComplex",
      status: 422,
      message: `PDF exceeds a processing limit: more than ${PDF_BUDGETS.inflatedBytes} bytes of inflated stream data`,
    })
    expect(result.prepare.tag).toBe("PdfTooComplex")
  })

  it("item 14: arrays nested 100,000 deep are refused at the depth budget, not by a stack overflow", async () => {
    const result = await attempt(deepNestingPdf())
    expect(result.scan).toMatchObject({ tag: "PdfTooComplex", status: 422 })
    expect(result.scan.message).toContain(`nested deeper than ${PDF_BUDGETS.depth}`)
  })

  it("item 14: a valid PDF with a 150,000-entry xref table opens (no spread into Math.max) and can be signed", async () => {
    const pdf = largeXrefTablePdf(150_000)
    const doc = await Effect.runPromise(openPdf(bytesSource(pdf)))
    expect(doc.size).toBe(150_000)
    const result = await attempt(pdf)
    expect(result.scan.tag).toBe("success")
    expect(result.prepare.tag).toBe("success")
  })
})
