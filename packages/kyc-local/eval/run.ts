/**
 * `pnpm eval:kyc [--documents N] [--seed S] [--cache DIR] [--variants clean,tilt,...]`: the MRZ
 * evaluation. Generates N documents per variant with `generate.ts` (cached under DIR, by default
 * the system's temp folder), reads each image through the production path (kyc-local's
 * `readDocument`, then core's `judgeDocument`, as `POST /kyc/verify` does) and prints, per
 * variant: exact reads, refusals by check digit, unreadable, and wrong data accepted (accepted
 * with any MRZ field differing from what was printed), with the CPU time per read. It measures;
 * nothing is ever tuned on it. Needs ImageMagick and the OCR-B font (`apt-get install -y
 * imagemagick fonts-ocr-b`).
 */
import { readFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { parseArgs } from "node:util"
import { EVAL_TODAY, generateDocument, documentDir, VARIANT_LABELS, VARIANTS, type Truth, type Variant } from "./generate.ts"
import { judgeRead, type Verdict } from "./judge.ts"

const { values } = parseArgs({
  options: {
    documents: { type: "string", default: "200" },
    seed: { type: "string", default: "1" },
    cache: { type: "string", default: path.join(os.tmpdir(), "signet-kyc-eval") },
    variants: { type: "string", default: VARIANTS.join(",") },
    verbose: { type: "boolean", default: false },
  },
  allowPositionals: true,
})
const documents = Number(values.documents)
const seed = values.seed
const root = values.cache
const variants = values.variants.split(",") as Array<Variant>
for (const v of variants) if (!VARIANTS.includes(v)) throw new Error(`unknown variant ${v}; known: ${VARIANTS.join(", ")}`)

const pct = (n: number, of: number) => `${n} (${((100 * n) / of).toFixed(0)} %)`
const percentile = (xs: ReadonlyArray<number>, q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0

const started = performance.now()
process.stderr.write(`${documents} documents × ${variants.length} variants (seed ${seed}), cached in ${root}\n`)
// ImageMagick draws ahead in its own processes while this one reads
let chain: Promise<unknown> = Promise.resolve()
const generated: Array<Promise<Truth>> = Array.from({ length: documents }, (_, i) => {
  const made = chain.then(() => generateDocument(root, seed, i, variants))
  chain = made.catch(() => undefined)
  return made
})

interface Row {
  exact: number
  checkDigit: number
  unreadable: number
  wrong: number
  cpu: Array<number>
}
const rows = new Map<Variant, Row>(variants.map((v) => [v, { exact: 0, checkDigit: 0, unreadable: 0, wrong: 0, cpu: [] }]))
const wrongs: Array<string> = []
const reasons = new Map<string, number>()
let read = 0
for (const [i, pending] of generated.entries()) {
  const truth = await pending
  for (const v of variants) {
    const row = rows.get(v)!
    const jpeg = new Uint8Array(readFileSync(path.join(documentDir(root, seed, truth.index), `${v}.jpg`)))
    const { verdict, cpuMs, detail } = await judgeRead(jpeg, v === "tampered" ? truth.tampered.lines : truth.lines, EVAL_TODAY)
    row.cpu.push(cpuMs)
    count(row, verdict)
    if (verdict.kind === "refused") reasons.set(`${v}: ${verdict.reasons.join("+")}`, (reasons.get(`${v}: ${verdict.reasons.join("+")}`) ?? 0) + 1)
    if (verdict.kind === "wrong") wrongs.push(`${v} #${truth.index} (${truth.format}): ${detail}`)
    if (values.verbose) process.stderr.write(`${v} #${truth.index}: ${verdict.kind} ${detail}\n`)
  }
  read = i + 1
  // a partial table now and then, so a run cut short still says something
  if (read % 25 === 0 && read < documents) process.stderr.write(`${report()}\n`)
}
process.stdout.write(`${report()}\n`)

function count(row: Row, verdict: Verdict) {
  if (verdict.kind === "exact") row.exact++
  else if (verdict.kind === "wrong") row.wrong++
  else if (verdict.reasons.includes("mrz_check_failed")) row.checkDigit++
  else row.unreadable++
}

function report(): string {
  const table: Array<string> = [
    `MRZ evaluation: ${read} generated documents per variant (seed ${seed}, about half TD3 passports, half TD1 ID cards), judged on ${EVAL_TODAY}`,
    "",
    "| variant | exact read | refused by check digit | unreadable | **wrong data accepted** | CPU per read (mean / p95 / max) |",
    "|---|---|---|---|---|---|",
  ]
  for (const v of variants) {
    const r = rows.get(v)!
    const n = r.cpu.length
    const mean = r.cpu.reduce((a, b) => a + b, 0) / Math.max(1, n)
    const cpu = `${mean.toFixed(0)} / ${percentile(r.cpu, 0.95).toFixed(0)} / ${Math.max(...r.cpu).toFixed(0)} ms`
    if (v === "tampered") {
      table.push(
        `| ${VARIANT_LABELS[v]} | (must be 0) ${r.exact + r.wrong} accepted | ${pct(r.checkDigit, n)} | ${pct(r.unreadable, n)} | ${r.exact + r.wrong} | ${cpu} |`,
      )
    } else {
      table.push(`| ${VARIANT_LABELS[v]} | ${pct(r.exact, n)} | ${pct(r.checkDigit, n)} | ${pct(r.unreadable, n)} | ${r.wrong} | ${cpu} |`)
    }
  }
  if (variants.includes("tampered")) {
    const t = rows.get("tampered")!
    table.push("", `Tampered check digits: ${t.exact + t.wrong === 0 ? "all refused" : `${t.exact + t.wrong} ACCEPTED`} (${t.cpu.length} documents).`)
  }
  table.push("", "Unreadable counts every refusal other than a failed check digit. The reasons core gave, per variant:")
  for (const [k, n] of [...reasons.entries()].sort()) table.push(`  ${k}: ${n}`)
  if (wrongs.length > 0) table.push("", "Wrong data accepted:", ...wrongs.map((w) => `  ${w}`))
  table.push("", `(${((performance.now() - started) / 1000).toFixed(0)} s in all)`)
  return table.join("\n")
}
