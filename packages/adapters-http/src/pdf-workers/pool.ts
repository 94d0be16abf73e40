/**
 * The PDF worker pool: the engine's `PdfProcessor`. Each job (prepare a signature, read the
 * signatures of an upload, append a DSS) runs in a `worker_threads` thread with a heap limit
 * (`resourceLimits`) and a deadline; past either, the thread is terminated, the job answers 422
 * `PDF exceeds a processing limit`, and a fresh thread replaces it. The request's own deadline
 * (408) or a closed connection interrupts the job the same way. So no upload can take the main
 * thread's CPU or heap: the server keeps answering (docs/security/pdf.md).
 *
 * Built (dist/), the thread runs the compiled `worker.js` beside this module. From TypeScript
 * sources (tests under vitest) it runs `worker.ts` bundled once per content by esbuild into one
 * ES module in the temporary directory: vitest's loader does not reach a worker thread, and
 * loading hundreds of modules through a TypeScript loader took several seconds.
 * Threads start lazily (the first PDF job bundles and starts one) and stay for the next jobs;
 * idle threads do not keep the process alive.
 */
import {
  PdfProcessor,
  PdfSignatureNotPermitted,
  PdfTooComplex,
  PdfUnreadable,
  SignatureFieldNotFound,
  SignatureImageInvalid,
  type SignatureRefusal,
  type PdfJobs,
  type PdfReadError,
  type PdfSignatureScan,
  type PreparedUpload,
} from "@signet/core"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { access, rename, writeFile } from "node:fs/promises"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import type { PdfJobMessage, PdfJobReply } from "./protocol.ts"

/** How many threads, how much heap each, and how long one job may run. */
export interface PdfWorkerSettings {
  /** threads at most (default: one core fewer than the machine has, at least 1, at most 4) */
  readonly size: number
  /** old-generation heap of a thread in MB (default 256) */
  readonly heapMb: number
  /** how long one job may run once a thread has it, in ms (default 5,000) */
  readonly deadlineMs: number
}

/**
 * The defaults: a thread per core but one (a core stays with the main thread, which answers
 * every other request), at least 1 and at most 4; 256 MB of heap each; 5 s per job.
 */
export const DEFAULT_PDF_WORKER_SETTINGS: PdfWorkerSettings = {
  size: Math.max(1, Math.min(4, availableParallelism() - 1)),
  heapMb: 256,
  deadlineMs: 5_000,
}

type JobBody = PdfJobMessage extends infer M ? (M extends { readonly id: number } ? Omit<M, "id"> : never) : never
type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: PdfReadError | SignatureImageInvalid | SignatureRefusal }
  | { readonly ok: false; readonly defect: unknown }

interface Job {
  readonly body: JobBody
  readonly done: (outcome: Outcome) => void
  thread?: Thread | undefined
  timer?: ReturnType<typeof setTimeout> | undefined
}

interface Thread {
  worker: Worker | undefined
  ready: boolean
  job: Job | undefined
}

const ERRORS = { PdfUnreadable, PdfTooComplex, SignatureImageInvalid, PdfSignatureNotPermitted, SignatureFieldNotFound } as const

let bundled: Promise<URL> | undefined

/**
 * The worker's script: built, the compiled `worker.js`; from sources, `worker.ts` and everything it
 * imports as one ES module file named by its content's hash (bundled once per process; esbuild is
 * then a development dependency, never needed by a built engine).
 */
const workerScript = (): Promise<URL> =>
  (bundled ??= (async () => {
    if (import.meta.url.endsWith(".js")) return new URL("./worker.js", import.meta.url)
    const { build } = await import("esbuild")
    const result = await build({
      entryPoints: [fileURLToPath(new URL("./worker.ts", import.meta.url))],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      write: false,
      logLevel: "silent",
      // workspace packages from their sources, as the tests that run this resolve them
      conditions: ["@signet/source"],
    })
    const code = result.outputFiles[0]!.contents
    const file = join(tmpdir(), `signet-pdf-worker-${createHash("sha256").update(code).digest("hex").slice(0, 16)}.mjs`)
    const exists = await access(file).then(
      () => true,
      () => false,
    )
    if (!exists) {
      // Written aside and renamed, so a concurrent process never loads half a file.
      const partial = `${file}.${process.pid}.tmp`
      await writeFile(partial, code)
      await rename(partial, file)
    }
    return pathToFileURL(file)
  })().catch((e: unknown) => {
    bundled = undefined
    throw e
  }))

/** Builds the worker's bundle ahead of the first PDF job (a server calls it at start; errors wait for that job). */
export const warmPdfWorkers = (): void => {
  workerScript().catch(() => undefined)
}

/** A pool of PDF worker threads: `job` runs one as an Effect (`submit` and `cancel` underneath). */
export class PdfWorkerPool {
  private readonly threads = new Set<Thread>()
  private readonly queue: Array<Job> = []
  private nextId = 1
  private closed = false

  constructor(readonly settings: PdfWorkerSettings = DEFAULT_PDF_WORKER_SETTINGS) {}

  /** Runs `body` on a thread; the outcome arrives through `done` exactly once (unless cancelled). */
  submit(body: JobBody, done: (outcome: Outcome) => void): Job {
    const job: Job = { body, done }
    if (this.closed) {
      done({ ok: false, defect: new Error("the PDF worker pool is closed") })
      return job
    }
    this.queue.push(job)
    this.dispatch()
    return job
  }

  /** Stops a job: out of the queue, or its thread terminated (a fresh one takes its place). */
  cancel(job: Job): void {
    const at = this.queue.indexOf(job)
    if (at !== -1) this.queue.splice(at, 1)
    if (job.thread !== undefined) this.kill(job.thread)
    clearTimeout(job.timer)
  }

  /** Terminates every thread; queued jobs fail. */
  async close(): Promise<void> {
    this.closed = true
    for (const job of this.queue.splice(0)) job.done({ ok: false, defect: new Error("the PDF worker pool is closed") })
    await Promise.all([...this.threads].map((t) => t.worker?.terminate()))
    this.threads.clear()
  }

  /** Threads alive now (for tests and the docs' figures). */
  get threadCount(): number {
    return this.threads.size
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = [...this.threads].find((t) => t.ready && t.job === undefined)
      if (idle !== undefined) {
        this.start(idle, this.queue.shift()!)
        continue
      }
      // Threads still starting will take the queued jobs when ready.
      const starting = [...this.threads].filter((t) => !t.ready).length
      if (starting >= this.queue.length || this.threads.size >= this.settings.size) return
      this.spawn()
    }
  }

  private spawn(): void {
    const thread: Thread = { worker: undefined, ready: false, job: undefined }
    this.threads.add(thread)
    workerScript().then(
      (script) => {
        if (this.closed || !this.threads.has(thread)) return
        this.attach(thread, new Worker(script, { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: this.settings.heapMb } }))
      },
      (error: unknown) => {
        this.threads.delete(thread)
        for (const queued of this.queue.splice(0)) queued.done({ ok: false, defect: error })
      },
    )
  }

  private attach(thread: Thread, worker: Worker): void {
    thread.worker = worker
    worker.unref()
    worker.on("message", (message: { ready: true } | PdfJobReply) => {
      if ("ready" in message) {
        thread.ready = true
        this.dispatch()
        return
      }
      const job = thread.job
      if (job === undefined) return
      clearTimeout(job.timer)
      thread.job = undefined
      job.thread = undefined
      worker.unref()
      job.done(this.outcome(message))
      this.dispatch()
    })
    worker.on("error", (error: Error & { code?: string }) => {
      const job = thread.job
      thread.job = undefined
      this.drop(thread)
      if (job !== undefined) {
        clearTimeout(job.timer)
        job.done(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? { ok: false, error: new PdfTooComplex({ detail: `reading it needed more than ${this.settings.heapMb} MB of memory` }) }
            : { ok: false, defect: error },
        )
      } else if (!thread.ready && this.queue.length > 0 && [...this.threads].every((t) => !t.ready)) {
        // A thread that cannot start (a broken install) fails the waiting jobs rather than retrying forever.
        for (const queued of this.queue.splice(0)) queued.done({ ok: false, defect: error })
      }
      this.dispatch()
    })
    worker.on("exit", () => {
      const job = thread.job
      thread.job = undefined
      this.drop(thread)
      if (job !== undefined) {
        clearTimeout(job.timer)
        job.done({ ok: false, defect: new Error("the PDF worker stopped") })
      }
      if (!this.closed) this.dispatch()
    })
  }

  private start(thread: Thread, job: Job): void {
    thread.job = job
    job.thread = thread
    thread.worker!.ref()
    job.timer = setTimeout(() => {
      this.kill(thread)
      job.done({ ok: false, error: new PdfTooComplex({ detail: `reading it took longer than ${this.settings.deadlineMs} ms` }) })
      this.dispatch()
    }, this.settings.deadlineMs)
    thread.worker!.postMessage({ id: this.nextId++, ...job.body } satisfies PdfJobMessage)
  }

  private kill(thread: Thread): void {
    thread.job = undefined
    this.drop(thread)
    void thread.worker?.terminate()
  }

  private drop(thread: Thread): void {
    if (thread.job !== undefined) thread.job.thread = undefined
    this.threads.delete(thread)
  }

  private outcome(reply: PdfJobReply): Outcome {
    if (reply.ok) return { ok: true, value: reply.value }
    if ("defect" in reply) return { ok: false, defect: new Error(`PDF worker: ${reply.defect}`) }
    const known = ERRORS[reply.error._tag as keyof typeof ERRORS]
    if (known === undefined) return { ok: false, defect: new Error(`PDF worker: ${reply.error._tag}: ${reply.error.detail}`) }
    return { ok: false, error: new known({ detail: reply.error.detail }) }
  }

  /** A job as an Effect: interrupting it (the request's deadline, a closed connection) stops the thread. */
  job<A>(body: JobBody): Effect.Effect<A, PdfReadError | SignatureImageInvalid | SignatureRefusal> {
    return Effect.async<A, PdfReadError | SignatureImageInvalid | SignatureRefusal>((resume) => {
      const job = this.submit(body, (outcome) => {
        if (outcome.ok) resume(Effect.succeed(outcome.value as A))
        else if ("error" in outcome) resume(Effect.fail(outcome.error))
        else resume(Effect.die(outcome.defect))
      })
      return Effect.sync(() => this.cancel(job))
    })
  }

  /** The pool as the core's PDF jobs. */
  get jobs(): PdfJobs {
    return {
      prepare: (pdf, options) =>
        this.job<PreparedUpload>({ job: "prepare", pdf, options }) as Effect.Effect<PreparedUpload, PdfReadError | SignatureImageInvalid | SignatureRefusal>,
      prepareTimestamp: (pdf, placeholderBytes) =>
        this.job<PreparedUpload>({ job: "prepareTimestamp", pdf, placeholderBytes }) as Effect.Effect<PreparedUpload, PdfReadError>,
      scan: (pdf) => this.job<PdfSignatureScan>({ job: "scan", pdf }) as Effect.Effect<PdfSignatureScan, PdfReadError>,
      appendDss: (pdf, material) => this.job<Uint8Array>({ job: "appendDss", pdf, material }) as Effect.Effect<Uint8Array, PdfReadError>,
    }
  }
}

/** The `PdfProcessor` of an engine: a worker pool that lives as long as the layer. */
export const PdfProcessorWorkers = (settings: Partial<PdfWorkerSettings> = {}): Layer.Layer<PdfProcessor> =>
  Layer.scoped(
    PdfProcessor,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => new PdfWorkerPool({ ...DEFAULT_PDF_WORKER_SETTINGS, ...settings })),
        (p) => Effect.promise(() => p.close()),
      ),
      (pool) => pool.jobs,
    ),
  )
