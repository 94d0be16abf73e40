/**
 * Fuzzing the PDF reader (issue 13): every generated input, structure-aware hostile PDFs and
 * byte-level mutations of valid ones, ends in a result or a catalogued 4xx, never a defect, within
 * a time budget per case; the reader's own budgets bound its memory (asserted through the heap).
 * These are exactly the jobs a PDF worker runs (scan for validation, prepare a signature), called
 * in-process for speed. 20,000 cases in the test run (fixed seed): a quarter structure-aware
 * (the slower ones to make), three quarters mutations; `pnpm fuzz` runs SIGNET_FUZZ_RUNS cases
 * split the same way (any SIGNET_FUZZ_SEED). A failing case goes below as a pinned case.
 */
import { Cause, Effect, Exit } from "effect"
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { hostilePdf, mutatedPdf, pdfFuzzRuns, pdfFuzzSeed } from "../../../testkit/src/pdf/fuzz.ts"
import { samplePdf } from "../../../testkit/src/pdf/verifiers.ts"
import { isCatalogued } from "../errors/catalogue.ts"
import { bytesSource } from "./byte-source.ts"
import { embedSignature, prepareSignature } from "./prepare.ts"
import { pdfJobsInProcess } from "./processor.ts"

const RUNS = pdfFuzzRuns(20_000)
const STRUCTURED_RUNS = Math.ceil(RUNS / 4)
const MUTATION_RUNS = RUNS - STRUCTURED_RUNS
const SEED = pdfFuzzSeed(20261126)
/** Wall time one case may take (both jobs), far above the normal few milliseconds. */
const CASE_BUDGET_MS = 3_000
/** Heap the whole run may reach: the reader's budgets keep each case to tens of MB. */
const HEAP_BUDGET = 1024 * 1024 * 1024
const options = { signerName: "Fuzz", signingTime: new Date("2026-11-26T06:00:00Z") }

/** How a job ended: a value, a catalogued 4xx, or anything else (a defect: the property fails). */
const classify = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isSuccess(exit)) return "value"
  const failure = Cause.failureOption(exit.cause)
  if (failure._tag === "Some" && isCatalogued(failure.value) && failure.value.status >= 400 && failure.value.status < 500) return "4xx"
  return `defect: ${Cause.pretty(exit.cause).slice(0, 500)}`
}

/** Both PDF jobs on `pdf`; throws (fails the property) on a defect or a case over its budget. */
const check = async (pdf: Uint8Array) => {
  const started = performance.now()
  const scan = classify(await Effect.runPromiseExit(pdfJobsInProcess.scan(pdf)))
  const prepare = classify(await Effect.runPromiseExit(pdfJobsInProcess.prepare(pdf, options)))
  const ms = performance.now() - started
  if (scan.startsWith("defect") || prepare.startsWith("defect")) throw new Error(`scan ${scan}; prepare ${prepare}`)
  if (ms > CASE_BUDGET_MS) throw new Error(`a case took ${Math.round(ms)} ms`)
  const heap = (globalThis as { process?: { memoryUsage: () => { heapUsed: number } } }).process?.memoryUsage().heapUsed ?? 0
  if (heap > HEAP_BUDGET) throw new Error(`heap at ${Math.round(heap / 1024 / 1024)} MB`)
  return { scan, prepare }
}

let valid: Array<Uint8Array> = []
beforeAll(async () => {
  const plain = [await samplePdf({ xrefStream: true }), await samplePdf({ xrefStream: false, pages: 3 })]
  // The same files with a signature field, byte ranges and a (random) CMS, as validation reads them.
  const signed = await Promise.all(
    plain.map(async (pdf) => {
      const prepared = await Effect.runPromise(prepareSignature(bytesSource(pdf), { ...options, placeholderBytes: 256 }))
      const update = await Effect.runPromise(
        embedSignature(
          prepared,
          Uint8Array.from({ length: 200 }, (_, i) => (i * 31) & 255),
        ),
      )
      const out = new Uint8Array(pdf.length + update.length)
      out.set(pdf)
      out.set(update, pdf.length)
      return out
    }),
  )
  valid = [...plain, ...signed]
})

describe(`PDF reader fuzzing: ${RUNS} cases, seed ${SEED}`, () => {
  it("the valid bases themselves sign and scan", async () => {
    for (const pdf of valid) expect(await check(pdf)).toEqual({ scan: "value", prepare: "value" })
  })

  it(
    "structure-aware hostile PDFs (xref streams with hostile /W, /Index, /Size, /Prev, object streams, self-references, cycles, deep nesting, flate bombs) end in a value or a 4xx",
    async () => {
      const seen = { value: 0, "4xx": 0 }
      await fc.assert(
        fc.asyncProperty(hostilePdf, async (pdf) => {
          const { scan } = await check(pdf)
          seen[scan as keyof typeof seen]++
        }),
        { numRuns: STRUCTURED_RUNS, seed: SEED },
      )
      // The generator reaches past the first checks: some inputs open and scan.
      expect(seen.value).toBeGreaterThan(0)
      expect(seen["4xx"]).toBeGreaterThan(0)
    },
    60_000 + STRUCTURED_RUNS * 50,
  )

  it(
    "byte-level mutations of valid PDFs (signed and unsigned, table and stream) end in a value or a 4xx",
    async () => {
      await fc.assert(
        fc.asyncProperty(mutatedPdf(valid), async (pdf) => {
          await check(pdf)
        }),
        { numRuns: MUTATION_RUNS, seed: SEED },
      )
    },
    60_000 + MUTATION_RUNS * 50,
  )

  // Pinned cases: inputs fuzzing found (none of the seeded runs has failed since the budgets).
  it.each([
    [
      "/W [0 0 0] with a large /Index",
      "%PDF-1.7\n1 0 obj\n<</Type/XRef/W[0 0 0]/Index[0 400000000]/Size 400000000/Root 1 0 R/Length 0>>\nstream\n\nendstream\nendobj\nstartxref\n9\n%%EOF\n",
    ],
  ])("pinned: %s", async (_, text) => {
    const result = await check(Uint8Array.from(text, (c) => c.charCodeAt(0)))
    expect(result).toEqual({ scan: "4xx", prepare: "4xx" })
  })
})
