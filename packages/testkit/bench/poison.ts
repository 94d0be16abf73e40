/**
 * How long each hostile PDF of issue 13 takes to be refused (or, for the large valid one,
 * signed) by the core directly: scan for validation, then prepare a signature. The tests
 * (`core/src/pades/poison.test.ts`) assert the typed answers; this prints the times.
 * `pnpm bench:poison` (each case 5 times; `--runs N` for more).
 */
import { Effect } from "effect"
import { bytesSource, prepareSignature, scanPdfSignatures } from "@signet/core"
import { deepNestingPdf, largeXrefTablePdf, poisonPdfs } from "../src/pdf/poison.ts"

const arg = process.argv.indexOf("--runs")
const runs = arg >= 0 ? Number(process.argv[arg + 1]) : 5
const options = { signerName: "Mallory", signingTime: new Date("2026-11-26T05:00:00Z") }

const cases = [
  ...poisonPdfs(),
  { name: "arrays nested 100,000 deep", pdf: deepNestingPdf() },
  { name: "valid, 150,000-entry xref table", pdf: largeXrefTablePdf(150_000) },
]

for (const { name, pdf } of cases) {
  const times: Array<number> = []
  let outcome = ""
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    const scan = await Effect.runPromiseExit(scanPdfSignatures(bytesSource(pdf)))
    const prepare = await Effect.runPromiseExit(prepareSignature(bytesSource(pdf), options))
    times.push(performance.now() - started)
    const tag = (exit: typeof scan | typeof prepare) => (exit._tag === "Success" ? "ok" : exit.cause._tag === "Fail" ? exit.cause.error._tag : "defect")
    outcome = `scan ${tag(scan)}, prepare ${tag(prepare)}`
  }
  times.sort((a, b) => a - b)
  console.log(
    `${name} (${(pdf.length / 1024).toFixed(0)} KiB): median ${times[Math.floor(runs / 2)]!.toFixed(0)} ms, max ${times[runs - 1]!.toFixed(0)} ms; ${outcome}`,
  )
}
