/**
 * Fuzzing of the PNG decoder: byte mutations of valid PNGs (with and without their CRCs made
 * right again, so the mutation reaches past the CRC check) and generated chunk sequences with
 * hostile headers, palettes and zlib data (bombs included). Every input ends in a bitmap or a
 * `PngProblem` that says why, in time; an unexpected exception (the decoder's catch-all "not a
 * readable PNG") counts as a failure. Seeded; SIGNET_FUZZ_RUNS sets the number of cases.
 */
import fc from "fast-check"
import { Effect, Either } from "effect"
import { deflateSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { applyByteEdits, byteEdits } from "../../../testkit/src/arbitraries/bytes.ts"
import { crc32, PNG_SIGNATURE, pngChunk } from "../../../testkit/src/png.ts"
import { decodePng, encodePng, PngProblem } from "./png.ts"

const RUNS = Number(process.env["SIGNET_FUZZ_RUNS"] ?? 20_000)
const SEED = Number(process.env["SIGNET_FUZZ_SEED"] ?? 0x5167_0013)
const LIMITS = { maxWidth: 1000, maxHeight: 1000, maxBytes: 512 * 1024 }
const CASE_BUDGET_MS = 2_000

const u32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]
const chunk = pngChunk
const png = (chunks: ReadonlyArray<Uint8Array>) => new Uint8Array([...PNG_SIGNATURE, ...chunks.flatMap((c) => [...c])])

/** Makes every chunk's CRC right again after a mutation, so the mutation reaches the decoder proper. */
const fixCrcs = (bytes: Uint8Array): Uint8Array => {
  const out = new Uint8Array(bytes)
  let at = 8
  while (at + 12 <= out.length) {
    const length = ((out[at]! << 24) | (out[at + 1]! << 16) | (out[at + 2]! << 8) | out[at + 3]!) >>> 0
    if (at + 12 + length > out.length) break
    out.set(u32(crc32(out.subarray(at + 4, at + 8 + length))), at + 8 + length)
    at += 12 + length
  }
  return out
}

const bitmap = fc
  .record({ width: fc.integer({ min: 1, max: 12 }), height: fc.integer({ min: 1, max: 12 }) })
  .chain(({ width, height }) => fc.uint8Array({ minLength: width * height * 4, maxLength: width * height * 4 }).map((rgba) => ({ width, height, rgba })))
const validPng = bitmap.map((b) => Effect.runPromise(encodePng(b)))

const mutation = byteEdits({ kinds: ["flip", "insert", "delete", "bit"], maxLength: 8 })

const zeroCache = new Map<number, Uint8Array>()
const deflatedZeros = (n: number) => {
  if (!zeroCache.has(n)) zeroCache.set(n, new Uint8Array(deflateSync(new Uint8Array(n))))
  return zeroCache.get(n)!
}

/** Chunk sequences built to reach every branch: hostile IHDR fields, palettes, tRNS, zlib data and bombs. */
const structured = fc
  .record({
    width: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constantFrom(1000, 1001, 0x7fffffff, 0xffffffff)),
    height: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constantFrom(1000, 1001, 0x7fffffff, 0xffffffff)),
    depth: fc.constantFrom(1, 2, 4, 8, 16, 0, 3, 255),
    colour: fc.constantFrom(0, 2, 3, 4, 6, 1, 5, 7, 255),
    methods: fc.constantFrom([0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]),
    palette: fc.option(fc.uint8Array({ maxLength: 800 })),
    trns: fc.option(fc.uint8Array({ maxLength: 300 })),
    raw: fc.oneof(
      fc.uint8Array({ maxLength: 2000 }),
      fc.constantFrom(0, 1, 97, 4096, 65_536, 1 << 20, 4 << 20).map((n) => ({ zeros: n })), // zeros: a bomb when large
    ),
    zlib: fc.constantFrom("deflate", "garbage", "truncated", "split"),
    extra: fc.array(fc.tuple(fc.constantFrom("tEXt", "zzZz", "ABCD", "IHDR", "IEND", "PLTE", "IDAT"), fc.uint8Array({ maxLength: 40 })), { maxLength: 3 }),
    end: fc.boolean(),
  })
  .map((g) => {
    const ihdr = new Uint8Array([...u32(g.width), ...u32(g.height), g.depth, g.colour, ...g.methods])
    const deflated = "zeros" in g.raw ? deflatedZeros(g.raw.zeros) : new Uint8Array(deflateSync(g.raw))
    const data =
      g.zlib === "deflate"
        ? [deflated]
        : g.zlib === "garbage"
          ? ["zeros" in g.raw ? new Uint8Array(64) : g.raw.subarray(0, 64)]
          : g.zlib === "truncated"
            ? [deflated.subarray(0, Math.max(0, deflated.length - 3))]
            : [deflated.subarray(0, deflated.length >> 1), deflated.subarray(deflated.length >> 1)]
    return png([
      chunk("IHDR", ihdr),
      ...(g.palette === null ? [] : [chunk("PLTE", g.palette)]),
      ...(g.trns === null ? [] : [chunk("tRNS", g.trns)]),
      ...g.extra.map(([t, b]) => chunk(t, b)),
      ...data.map((d) => chunk("IDAT", d)),
      ...(g.end ? [chunk("IEND", new Uint8Array())] : []),
    ])
  })

/** Decodes and judges one input: a bitmap or a PngProblem with a reason, never a crash, in time. */
const judge = async (bytes: Uint8Array) => {
  const started = performance.now()
  const result = await Effect.runPromise(Effect.either(decodePng(bytes, LIMITS)))
  const ms = performance.now() - started
  if (Either.isLeft(result)) {
    if (!(result.left instanceof PngProblem)) throw new Error(`not a PngProblem: ${String(result.left)}`)
    // the decoder's catch-all: something threw that the decoder did not expect
    if (result.left.message === "not a readable PNG") throw new Error(`unexpected exception for ${Buffer.from(bytes.subarray(0, 200)).toString("hex")}`)
  } else {
    expect(result.right.rgba.length).toBe(result.right.width * result.right.height * 4)
  }
  if (ms > CASE_BUDGET_MS) throw new Error(`took ${Math.round(ms)} ms`)
}

describe("PNG decoder under fuzzing (issue 13: parsers under budgets)", () => {
  it(
    `${RUNS} cases: mutated valid PNGs (CRCs broken and fixed) and generated chunk sequences end in a bitmap or a PngProblem`,
    async () => {
      const started = performance.now()
      const heapBefore = process.memoryUsage().heapUsed
      const input = fc.oneof(
        { weight: 3, arbitrary: fc.tuple(validPng, mutation, fc.boolean()).map(([p, edits, fix]) => ({ p, edits, fix })) },
        { weight: 2, arbitrary: structured.map((bytes) => ({ bytes })) },
        { weight: 1, arbitrary: fc.tuple(structured, mutation).map(([bytes, edits]) => ({ bytes: fixCrcs(applyByteEdits(bytes, edits)) })) },
      )
      await fc.assert(
        fc.asyncProperty(input, async (c) => {
          if ("p" in c) {
            const valid = await c.p
            const mutated = applyByteEdits(valid, c.edits)
            await judge(c.fix ? fixCrcs(mutated) : mutated)
          } else {
            await judge(c.bytes)
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
      const seconds = (performance.now() - started) / 1000
      console.info(`PNG fuzz: ${RUNS} cases in ${seconds.toFixed(1)} s; heap +${((process.memoryUsage().heapUsed - heapBefore) / 2 ** 20).toFixed(0)} MiB`)
    },
    30 * 60_000,
  )

  it("a 4 MiB zlib bomb behind a 1×1 header is refused by the inflate limit, not inflated", async () => {
    const bomb = png([
      chunk("IHDR", new Uint8Array([...u32(1), ...u32(1), 8, 6, 0, 0, 0])),
      chunk("IDAT", new Uint8Array(deflateSync(new Uint8Array(4 << 20)))),
      chunk("IEND", new Uint8Array()),
    ])
    const result = await Effect.runPromise(Effect.either(decodePng(bomb, LIMITS)))
    expect(Either.isLeft(result) && result.left.message).toBe("image data is larger than its dimensions allow")
  })
})
