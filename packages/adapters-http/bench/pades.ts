/**
 * `pnpm bench:pades [--gb]`: PAdES signing of 1, 10 and 50 MB PDFs (and 1 GB with `--gb`)
 * against the floor, each case in its own child process so peak memory is its own.
 *   floor: read the file in 4 MiB windows and SHA-256 it (node:crypto);
 *   sign:  prepare the incremental update (file source) + SHA-256 of the byte ranges + CMS
 *          signature by the KeyStore + embed + write the signed file (a kernel copy started
 *          once the update is prepared, running while the ranges are hashed, then the update
 *          appended);
 *          the passkey approval is excluded (it does not depend on the file).
 * Floor and sign run alternately in one process per size; time is the median of each side's
 * rounds after the warm-up rounds; memory is each side's peak RSS above the RSS after the
 * warm-up (sampled every 2 ms).
 */
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { createWriteStream } from "node:fs"
import { mkdtemp, open, rm, stat } from "node:fs/promises"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { byteRangeDigest, embedSignature, prepareSignature, signDigest, signingIdentityFor, Users } from "@signet/core"
import { Sha256StreamsNode } from "@signet/adapters-crypto"
import { enrol, SoftwarePasskey } from "@signet/testkit"
import { Effect, Option } from "effect"
import { fileSource, signedFileWriter } from "../src/pdf-file.ts"
import { startEngine } from "../src/test-support/running-engine.ts"

const MB = 1000 * 1000
const CHUNK = 4 * 1024 * 1024

/** Writes a one-page PDF of about `size` bytes (a content stream of comment lines), classic xref. */
const writePdf = async (path: string, size: number) => {
  const out = createWriteStream(path)
  let offset = 0
  const offsets: Array<number> = []
  const write = (s: string | Uint8Array) =>
    new Promise<void>((resolve) => {
      offset += typeof s === "string" ? Buffer.byteLength(s, "latin1") : s.length
      if (out.write(typeof s === "string" ? Buffer.from(s, "latin1") : s)) resolve()
      else out.once("drain", () => resolve())
    })
  await write("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
  offsets[1] = offset
  await write("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
  offsets[2] = offset
  await write("2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n")
  offsets[3] = offset
  await write("3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << >> >>\nendobj\n")
  const length = Math.max(1024, size - 600)
  offsets[4] = offset
  await write(`4 0 obj\n<< /Length ${length} >>\nstream\n`)
  const line = Buffer.from(`% ${"signet benchmark filler ".repeat(3)}\n`, "latin1")
  const block = Buffer.alloc(CHUNK)
  for (let i = 0; i < CHUNK; i += line.length) line.copy(block, i)
  for (let left = length; left > 0; left -= CHUNK) {
    const part = block.subarray(0, Math.min(CHUNK, left))
    if (left <= CHUNK) part[part.length - 1] = 10
    await write(part)
  }
  await write("\nendstream\nendobj\n")
  const xref = offset
  await write(
    `xref\n0 5\n0000000000 65535 f\r\n${offsets
      .slice(1)
      .map((o) => `${String(o).padStart(10, "0")} 00000 n\r\n`)
      .join("")}`,
  )
  await write(`trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`)
  await new Promise<void>((resolve) => out.end(resolve))
}

/** The floor's one window, allocated once: a fresh buffer per run would cost its page faults every time. */
const floorWindow = new Uint8Array(CHUNK)

const floor = async (path: string) => {
  const handle = await open(path, "r")
  const { size } = await handle.stat()
  const hash = createHash("sha256")
  const buffer = floorWindow
  for (let at = 0; at < size; at += CHUNK) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, size - at), at)
    hash.update(buffer.subarray(0, bytesRead))
  }
  hash.digest()
  await handle.close()
}

const WARMUPS = 3
const ROUNDS = 9

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * Runs the floor and the signing alternately, `WARMUPS` then `ROUNDS` times each, in this one
 * process: a change in the machine's speed (load, frequency, the VM's neighbours) moves both
 * alike, so their ratio reads true where single figures drift by tens of percent. Memory is the
 * peak RSS above the RSS after the warm-up, sampled every 2 ms, for each side's own runs.
 */
const paired = async (floorRun: () => Promise<void>, signRun: () => Promise<void>, afterSign: () => Promise<void>) => {
  for (let i = 0; i < WARMUPS; i++) {
    await floorRun()
    await signRun()
    await afterSign()
  }
  globalThis.gc?.()
  const baseline = process.memoryUsage().rss
  const peaks = { floor: baseline, sign: baseline }
  let side: keyof typeof peaks = "floor"
  const sample = () => {
    peaks[side] = Math.max(peaks[side], process.memoryUsage().rss)
  }
  const sampler = setInterval(sample, 2)
  const times = { floor: [] as Array<number>, sign: [] as Array<number> }
  const timed = async (which: keyof typeof peaks, run: () => Promise<void>) => {
    side = which
    const started = performance.now()
    await run()
    times[which].push(performance.now() - started)
    sample()
  }
  for (let i = 0; i < ROUNDS; i++) {
    await timed("floor", floorRun)
    await timed("sign", signRun)
    await afterSign()
  }
  clearInterval(sampler)
  return {
    floorMs: median(times.floor),
    signMs: median(times.sign),
    floorPeakBytes: Math.max(0, peaks.floor - baseline),
    signPeakBytes: Math.max(0, peaks.sign - baseline),
  }
}

/** Child process: one size, one JSON line on stdout. */
const child = async (path: string) => {
  const env = await startEngine({ housekeeping: false })
  try {
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    const enrolled = await enrol(env.client, passkey, { email: "bench@example.com", displayName: "Bench Signer" })
    const user = await env.engine.run(Effect.flatMap(Users, (u) => u.findById(enrolled.userId)).pipe(Effect.map(Option.getOrThrow)))
    const identity = await env.engine.run(signingIdentityFor(user))
    const target = `${path}.signed.pdf`
    const parts = { prepare: [] as Array<number>, hash: [] as Array<number>, cms: [] as Array<number>, write: [] as Array<number> }
    const withoutWrite: Array<number> = []
    const result = await paired(
      () => floor(path),
      async () => {
        const started = performance.now()
        const source = await fileSource(path)
        let t = started
        const lap = (k: keyof typeof parts) => {
          const now = performance.now()
          parts[k].push(now - t)
          t = now
        }
        const prepared = await Effect.runPromise(prepareSignature(source, { signerName: "Bench Signer", signingTime: new Date() }))
        lap("prepare")
        // The copy starts once the document is read: started earlier, it slows the reads that prepare needs.
        const writer = signedFileWriter(path, source.size, target)
        const digest = await Effect.runPromise(Effect.provide(byteRangeDigest(prepared), Sha256StreamsNode))
        lap("hash")
        const cms = await env.engine.run(signDigest({ identity, digest, digestAlgorithm: "SHA-256", signingTime: null }))
        const update = await Effect.runPromise(embedSignature(prepared, cms))
        lap("cms")
        withoutWrite.push(t - started)
        await source.close()
        await writer.finish(update)
        lap("write")
      },
      // Untimed: the last run's signed file goes, so each run writes a new file, as a real signing does
      // (replacing a 50 MB file costs its removal, about 10 ms here, which is not signing).
      () => rm(target, { force: true }),
    )
    const last = <T>(xs: ReadonlyArray<T>) => xs.slice(-ROUNDS)
    console.log(
      JSON.stringify({
        ...result,
        withoutWriteMs: median(last(withoutWrite)),
        parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, median(last(v))])),
      }),
    )
    await rm(target, { force: true })
  } finally {
    await env.stop()
  }
}

interface CaseFigures {
  readonly floorMs: number
  readonly signMs: number
  readonly withoutWriteMs: number
  readonly floorPeakBytes: number
  readonly signPeakBytes: number
  readonly parts: Record<string, number>
}

const runChild = (path: string) =>
  new Promise<CaseFigures>((resolve, reject) => {
    const proc = spawn(process.execPath, [...process.execArgv, "--expose-gc", fileURLToPath(import.meta.url), "--child", path], {
      stdio: ["ignore", "pipe", "inherit"],
    })
    let out = ""
    proc.stdout.on("data", (d: Buffer) => {
      out += d.toString()
    })
    proc.on("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? ""
      try {
        if (code !== 0) throw new Error(`exit ${code}`)
        resolve(JSON.parse(line))
      } catch (e) {
        reject(new Error(`${path} failed: ${String(e)} ${out}`))
      }
    })
  })

const main = async () => {
  const args = process.argv.slice(2)
  if (args[0] === "--child") return child(args[1]!)
  const sizes = [1 * MB, 10 * MB, 50 * MB, ...(args.includes("--gb") ? [1000 * MB] : [])]
  const dir = await mkdtemp(join(tmpdir(), "signet-bench-pades-"))
  console.log(
    `Signet PAdES benchmark, Node ${process.version}: each size in its own process, floor and sign alternated, median of ${ROUNDS} rounds after ${WARMUPS} warm-up rounds; load ${loadavg()[0]!.toFixed(2)}\n`,
  )
  console.log(
    "sign = prepare + hash + CMS + embed + write the signed file (its copy runs while the ranges are hashed; then the update is appended); sign-w = the same without the write's wait after the signature\n",
  )
  console.log(
    `${"size".padStart(8)} ${"floor ms".padStart(10)} ${"sign ms".padStart(10)} ${"ratio".padStart(6)} ${"sign-w ms".padStart(10)} ${"ratio".padStart(6)}  ${"floor mem".padStart(10)} ${"sign mem".padStart(10)} ${"mem/size".padStart(8)}  sign parts (prepare/hash/cms+embed/write ms)`,
  )
  try {
    for (const size of sizes) {
      const path = join(dir, `doc-${size}.pdf`)
      await writePdf(path, size)
      const actual = (await stat(path)).size
      const f = await runChild(path)
      const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`
      console.log(
        `${`${Math.round(actual / MB)} MB`.padStart(8)} ${f.floorMs.toFixed(1).padStart(10)} ${f.signMs.toFixed(1).padStart(10)} ${(f.signMs / f.floorMs).toFixed(2).padStart(6)} ${f.withoutWriteMs.toFixed(1).padStart(10)} ${(f.withoutWriteMs / f.floorMs).toFixed(2).padStart(6)}  ${mib(f.floorPeakBytes).padStart(10)} ${mib(f.signPeakBytes).padStart(10)} ${(f.signPeakBytes / actual).toFixed(2).padStart(8)}  ${["prepare", "hash", "cms", "write"].map((k) => (f.parts[k] ?? 0).toFixed(1)).join(" / ")}`,
      )
      await rm(path, { force: true })
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
    console.log(`\nload ${loadavg()[0]!.toFixed(2)} at the end`)
  }
}

await main()
