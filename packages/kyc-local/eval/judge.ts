/**
 * One read of the evaluation through the production path: kyc-local's `readDocument` (the
 * `DocumentReaderLocal` adapter's function) and core's `judgeDocument`, the verdict `POST /kyc/verify`
 * gives. An accepted read is compared with the lines that were printed: every MRZ character
 * belongs to a field, so any difference is wrong data accepted. The one equivalence is ICAO's:
 * the check digit of an empty TD3 personal number may be printed `<` or `0`.
 */
import { judgeDocument, parseMrz } from "@signet/core"
import { Either } from "effect"
import { readDocument } from "../src/document-reader.ts"

/** What came of one image. */
export type Verdict =
  | { readonly kind: "exact" }
  | { readonly kind: "wrong"; readonly lines: ReadonlyArray<string> }
  | { readonly kind: "refused"; readonly reasons: ReadonlyArray<string> }

const same = (read: ReadonlyArray<string>, printed: ReadonlyArray<string>): boolean => {
  if (read.length !== printed.length) return false
  return read.every((line, k) => {
    const want = printed[k]!
    if (line.length !== want.length) return false
    for (let i = 0; i < line.length; i++) {
      if (line[i] === want[i]) continue
      const emptyPersonalNumberCheck =
        want.length === 44 && k === 1 && i === 42 && /^<{14}$/.test(want.slice(28, 42)) && "<0".includes(line[i]!) && "<0".includes(want[i]!)
      if (!emptyPersonalNumberCheck) return false
    }
    return true
  })
}

/** Reads `jpeg`, judges it on `today`, and compares an accepted read with the `printed` lines; with the CPU time of the read. */
export const judgeRead = async (
  jpeg: Uint8Array,
  printed: ReadonlyArray<string>,
  today: string,
): Promise<{ readonly verdict: Verdict; readonly cpuMs: number; readonly detail: string }> => {
  const cpu = process.cpuUsage()
  const reading = await readDocument([jpeg])
  const used = process.cpuUsage(cpu)
  const cpuMs = (used.user + used.system) / 1000
  const outcome = judgeDocument(reading, today)
  const lines = reading.mrz ?? []
  const detail = `read ${lines.join(" / ") || "nothing"}${same(lines, printed) ? "" : ` printed ${printed.join(" / ")}`}`
  if (!outcome.accepted) return { verdict: { kind: "refused", reasons: outcome.reasons }, cpuMs, detail }
  if (same(lines, printed)) return { verdict: { kind: "exact" }, cpuMs, detail }
  // name the fields that differ, for the report
  const a = parseMrz(lines)
  const b = parseMrz(printed)
  let fields = ""
  if (Either.isRight(a) && Either.isRight(b)) {
    const keys = [
      "documentCode",
      "issuingState",
      "documentNumber",
      "nationality",
      "dateOfBirth",
      "sex",
      "expiryDate",
      "personalNumber",
      "surname",
      "givenNames",
    ] as const
    fields = keys
      .filter((k) => a.right[k] !== b.right[k])
      .map((k) => `${k} ${JSON.stringify(a.right[k])} ≠ ${JSON.stringify(b.right[k])}`)
      .join(", ")
  }
  return { verdict: { kind: "wrong", lines }, cpuMs, detail: `${fields || "lines differ"}; ${detail}` }
}
