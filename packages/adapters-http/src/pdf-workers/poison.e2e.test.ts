/**
 * Issue 13 acceptance: the poison PDFs (zero-width xref rows, a self-containing object stream, a
 * self-referencing /Length, an 8-way self-referencing /Kids, a 1 MiB flate bomb), sent 8 at a
 * time to `POST /v2/validate` of a running server: the server stays up, `/health` answers every
 * time throughout, each poison request gets a 4xx, and RSS stays under 600 MB. How soon (the
 * targets: `/health` under 1 s, each poison under 10 s) is printed by `pnpm bench:poison`, not
 * asserted, so a loaded machine cannot flake this test. Then the pool itself: a job past its
 * deadline, past its heap, or interrupted (the request's 408) terminates its thread.
 */
import { PdfTooComplex, toBase64 } from "@signet/core"
import { deepNestingPdf, largeXrefTablePdf, poisonPdfs, samplePdf } from "@signet/testkit/pdf"
import { Effect, Exit } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PdfWorkerPool } from "./pool.ts"

// The server runs as its own process, as `pnpm start` runs it (built JavaScript), so its RSS is the
// server's alone (worker threads included), not this test runner's.
const repoRoot = new URL("../../../../", import.meta.url).pathname
const serverBin = new URL("../../../server/dist/bin/server.js", import.meta.url).pathname
const MB = 1024 * 1024

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const address = s.address()
      s.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** Resident set of a process, from /proc (Linux). */
const rssOf = (pid: number): number => {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return line === null ? 0 : Number(line[1]) * 1024
}

let server: ChildProcess
let origin: string
beforeAll(async () => {
  const port = await freePort()
  origin = `http://localhost:${port}`
  server = spawn(process.execPath, [serverBin], {
    cwd: repoRoot,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      SIGNET_DATABASE: join(mkdtempSync(join(tmpdir(), "signet-poison-")), "signet.db"),
      SIGNET_MASTER_KEY: randomBytes(32).toString("hex"),
      SIGNET_PORT: String(port),
      SIGNET_HOST: "127.0.0.1",
      SIGNET_PUBLIC_ORIGIN: origin,
      SIGNET_ENVIRONMENT: "sandbox",
      // One server process: the one whose memory and PDF workers this test watches.
      SIGNET_WORKERS: "1",
    },
  })
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`${origin}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error("the server did not start")
}, 90_000)
afterAll(() => {
  server?.kill("SIGKILL")
})

describe("poison PDFs against a running server (issue 13, items 1, 6, 7)", () => {
  it("8 at a time: every poison gets a 4xx, /health answers throughout, RSS stays under 600 MB", async () => {
    // A running server: it has read a PDF before (its first PDF job starts the worker thread).
    const warm = await fetch(`${origin}/api/v2/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pdf: toBase64(await samplePdf({ xrefStream: false })) }),
    })
    expect(warm.status).toBe(200)
    const health = { slowest: 0, checks: 0, failures: 0 }
    const rssBefore = rssOf(server.pid!)
    let rssPeak = rssBefore
    let polling = true
    // /health every 100 ms while the poison is being read; each answer timed.
    const poller = (async () => {
      while (polling) {
        const started = performance.now()
        const answer = await fetch(`${origin}/api/health`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined)
        health.slowest = Math.max(health.slowest, performance.now() - started)
        health.checks++
        if (answer?.status !== 200) health.failures++
        rssPeak = Math.max(rssPeak, rssOf(server.pid!))
        await new Promise((r) => setTimeout(r, 100))
      }
    })()
    const results: Array<{ name: string; status: number; ms: number; message: string }> = []
    for (const { name, pdf } of poisonPdfs()) {
      const body = JSON.stringify({ pdf: toBase64(pdf) })
      const batch = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const started = performance.now()
          const response = await fetch(`${origin}/api/v2/validate`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
            signal: AbortSignal.timeout(30_000),
          })
          const answer = (await response.json()) as { error?: string; message?: string }
          return { name, status: response.status, ms: performance.now() - started, message: answer.message ?? answer.error ?? "" }
        }),
      )
      results.push(...batch)
    }
    polling = false
    await poller
    for (const r of results) {
      expect(r.status, `${r.name}: ${r.message}`).toBeGreaterThanOrEqual(400)
      expect(r.status, `${r.name}: ${r.message}`).toBeLessThan(500)
    }
    expect(results).toHaveLength(40)
    if (process.env.SIGNET_REPORT_FIGURES)
      console.log(
        JSON.stringify({
          slowestHealthMs: Math.round(health.slowest),
          healthChecks: health.checks,
          slowestPoisonMs: Math.round(Math.max(...results.map((r) => r.ms))),
          rssBeforeMb: Math.round(rssBefore / MB),
          rssPeakMb: Math.round(rssPeak / MB),
          statuses: [...new Set(results.map((r) => `${r.name}: ${r.status} ${r.message}`))],
        }),
      )
    expect(health.failures).toBe(0)
    expect(health.checks).toBeGreaterThan(0)
    expect(rssPeak, `RSS ${Math.round(rssBefore / MB)} MB before, ${Math.round(rssPeak / MB)} MB at most`).toBeLessThan(600 * MB)
    expect(server.exitCode).toBeNull()
    // The server still signs-validates an ordinary PDF afterwards.
    const fine = await fetch(`${origin}/api/v2/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pdf: toBase64(await samplePdf({ xrefStream: true })) }),
    })
    expect(fine.status).toBe(200)
    expect(await fine.json()).toEqual({ signatures: [] })
  }, 120_000)

  it("item 14: arrays nested 100,000 deep answer 422, a 300,000-entry xref table validates (no 500 either way)", async () => {
    // Built first: making a 6 MB file takes seconds, long enough for the server to close an idle
    // keep-alive connection just as fetch reuses it (EPIPE before the request reached the server),
    // so such a send is made once more.
    const deepPdf = deepNestingPdf()
    const largePdf = largeXrefTablePdf(300_000)
    const post = async (pdf: Uint8Array): Promise<Response> => {
      const send = () =>
        fetch(`${origin}/api/v2/validate`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ pdf: toBase64(pdf) }) })
      return send().catch((e: { cause?: { code?: string } }) => (e.cause?.code === "EPIPE" || e.cause?.code === "ECONNRESET" ? send() : Promise.reject(e)))
    }
    const deep = await post(deepPdf)
    expect(deep.status).toBe(422)
    expect(((await deep.json()) as { error: string }).error).toMatch(/^PDF exceeds a processing limit: arrays and dictionaries nested deeper than 64/)
    const large = await post(largePdf)
    expect(large.status).toBe(200)
    expect(await large.json()).toEqual({ signatures: [] })
  }, 60_000)
})

describe("the PDF worker pool stops what runs too long or too big", () => {
  const slowPdf = largeXrefTablePdf(400_000)

  it("a job past its deadline answers PDF exceeds a processing limit and its thread is terminated", async () => {
    const pool = new PdfWorkerPool({ size: 1, heapMb: 256, deadlineMs: 100 })
    try {
      // The first job starts the thread (the deadline runs from when a ready thread has the job).
      const exit = await Effect.runPromiseExit(pool.jobs.scan(slowPdf))
      expect(exit).toEqual(Exit.fail(new PdfTooComplex({ detail: "reading it took longer than 100 ms" })))
      expect(pool.threadCount).toBe(0)
    } finally {
      await pool.close()
    }
  }, 60_000)

  it("a job past its heap limit answers PDF exceeds a processing limit, and the next job gets a fresh thread", async () => {
    const pool = new PdfWorkerPool({ size: 1, heapMb: 48, deadlineMs: 30_000 })
    try {
      const exit = await Effect.runPromiseExit(pool.jobs.scan(largeXrefTablePdf(1_000_000)))
      expect(exit).toEqual(Exit.fail(new PdfTooComplex({ detail: "reading it needed more than 48 MB of memory" })))
      const next = await Effect.runPromise(pool.jobs.scan(await samplePdf({ xrefStream: false })))
      expect(next.signatures).toEqual([])
    } finally {
      await pool.close()
    }
  }, 60_000)

  it("an interrupted job (the request's 408 deadline) terminates its thread instead of letting it run on", async () => {
    const pool = new PdfWorkerPool({ size: 1, heapMb: 256, deadlineMs: 30_000 })
    try {
      await Effect.runPromise(pool.jobs.scan(await samplePdf({ xrefStream: false })))
      expect(pool.threadCount).toBe(1)
      const exit = await Effect.runPromiseExit(Effect.timeout(pool.jobs.scan(slowPdf), "50 millis"))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(pool.threadCount).toBe(0)
    } finally {
      await pool.close()
    }
  }, 60_000)
})
