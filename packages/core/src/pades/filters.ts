/** Stream filters the reader needs (FlateDecode with PNG predictors), over the kernel's zlib and row filters. */
import { Effect } from "effect"
import { PdfUnreadable, type PdfTooComplex } from "./errors.ts"
import { deflateBytes, InflateLimitExceeded, inflateBytes, unfilterRows } from "../kernel/zlib.ts"
import { PDF_BUDGETS, tooComplex, type PdfBudget } from "./budget.ts"
import { arrayOf, nameOf, numberOf, PdfDict, type PdfStream } from "./objects.ts"

/**
 * zlib inflate (RFC 1950), stopping past `limit` output bytes (the kernel's inflate limit, as for
 * PNG): a decompression bomb costs at most `limit` bytes of memory.
 */
export const inflate = (data: Uint8Array, limit: number): Effect.Effect<Uint8Array, PdfUnreadable | PdfTooComplex> =>
  Effect.tryPromise({
    try: () => inflateBytes(data, limit),
    catch: (e) =>
      e instanceof InflateLimitExceeded
        ? tooComplex(`more than ${PDF_BUDGETS.inflatedBytes} bytes of inflated stream data`)
        : new PdfUnreadable({ detail: "a compressed stream does not inflate" }),
  })

/** zlib deflate (RFC 1950). */
export const deflate = (data: Uint8Array): Effect.Effect<Uint8Array> => Effect.promise(() => deflateBytes(data))

/** Predictor parameters a reader can honour (ISO 32000-1 Table 8), so a row size stays sane. */
const saneParameter = (value: number, allowed: (n: number) => boolean) => Number.isInteger(value) && allowed(value)

/**
 * The decoded data of a stream (no filter, or FlateDecode with an optional PNG predictor); what
 * it inflates is charged to `budget`.
 */
export const decodeStream = (stream: PdfStream, budget: PdfBudget): Effect.Effect<Uint8Array, PdfUnreadable | PdfTooComplex> =>
  Effect.gen(function* () {
    const filterValue = stream.dict.get("Filter")
    const filters = (arrayOf(filterValue) ?? (filterValue === undefined ? [] : [filterValue])).map((f) => nameOf(f))
    if (filters.length === 0) return stream.data
    if (filters.length !== 1 || filters[0] !== "FlateDecode") return yield* new PdfUnreadable({ detail: `unsupported stream filter ${filters.join(" ")}` })
    const inflated = yield* inflate(stream.data, budget.inflateRemaining)
    budget.spendInflated(inflated.length)
    const parmsValue = stream.dict.get("DecodeParms")
    const parms = parmsValue instanceof PdfDict ? parmsValue : arrayOf(parmsValue)?.[0]
    const predictor = parms instanceof PdfDict ? (numberOf(parms.get("Predictor")) ?? 1) : 1
    if (predictor < 10) {
      if (predictor !== 1) return yield* new PdfUnreadable({ detail: `unsupported predictor ${predictor}` })
      return inflated
    }
    const p = parms as PdfDict
    const colors = numberOf(p.get("Colors")) ?? 1
    const bits = numberOf(p.get("BitsPerComponent")) ?? 8
    const columns = numberOf(p.get("Columns")) ?? 1
    if (
      !saneParameter(colors, (n) => n >= 1 && n <= 32) ||
      !saneParameter(bits, (n) => [1, 2, 4, 8, 16].includes(n)) ||
      !saneParameter(columns, (n) => n >= 1 && n <= 1 << 24)
    ) {
      return yield* new PdfUnreadable({ detail: "predictor parameters out of range" })
    }
    const rowBytes = Math.ceil((columns * colors * bits) / 8)
    const out = unfilterRows(inflated, rowBytes, Math.max(1, Math.ceil((colors * bits) / 8)))
    if (out === undefined) return yield* new PdfUnreadable({ detail: "a bad PNG predictor row" })
    return out
  })
