/**
 * Regenerates the fixed-seed slice of the evaluation that `pnpm test:models` reads
 * (`packages/kyc-local/fixtures/eval/`): the documents of seed `SLICE_SEED` in `SLICE_PLAN`, JPEG
 * only. `tsx packages/kyc-local/eval/slice.ts`; needs ImageMagick and fonts-ocr-b.
 */
import { readdirSync, rmSync } from "node:fs"
import path from "node:path"
import { documentDir, generateDocument, pool, type Variant } from "./generate.ts"

/** The seed of the committed slice. */
export const SLICE_SEED = "slice-1"
/**
 * The committed images: every document clean and tampered, and each photographed variant on two
 * documents (all 8 variants of 6 documents weigh 6 MB; these 24 about 3 MB).
 */
export const SLICE_PLAN: ReadonlyArray<ReadonlyArray<Variant>> = [
  ["clean", "tampered", "paper", "tilt"],
  ["clean", "tampered", "rotated", "light"],
  ["clean", "tampered", "rotated", "jpeg60"],
  ["clean", "tampered", "blur", "tilt"],
  ["clean", "tampered", "paper", "jpeg60"],
  ["clean", "tampered", "light", "blur"],
]
/** Where the slice is committed. */
export const SLICE_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../fixtures/eval")

if (import.meta.url === `file://${process.argv[1]}`) {
  rmSync(path.join(SLICE_ROOT, `seed-${SLICE_SEED}`), { recursive: true, force: true })
  await pool(
    2,
    SLICE_PLAN.map((variants, i) => () => generateDocument(SLICE_ROOT, SLICE_SEED, i, variants)),
  )
  // only the JPEGs and the truth are committed; the lossless intermediate pages are not
  for (let i = 0; i < SLICE_PLAN.length; i++) {
    const dir = documentDir(SLICE_ROOT, SLICE_SEED, i)
    for (const f of readdirSync(dir)) if (f.endsWith(".png")) rmSync(path.join(dir, f))
  }
  process.stdout.write(`wrote ${SLICE_PLAN.length} documents to ${SLICE_ROOT}\n`)
}
