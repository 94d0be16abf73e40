/**
 * Every core (docs/operations.md#workers): a primary process forks `SIGNET_WORKERS` workers that share
 * the listening port (node:cluster), relays the event bus between them on SQLite, replaces a worker
 * that dies, and on SIGTERM forwards it and exits 0 once every worker has drained.
 */
import type { OtherWorkersMetrics } from "@signet/adapters-http"
import { EventBus } from "@signet/core"
import { Effect, Layer, PubSub, Runtime, Stream } from "effect"
import cluster, { type Worker } from "node:cluster"

/** The environment variable that gives a worker its slot, 1 to N (a replacement takes the slot of the one it replaces). */
export const WORKER_SLOT_ENV = "SIGNET_WORKER_SLOT"

/** The response header naming the worker that answered (diagnostics: which process a connection reached). */
export const WORKER_HEADER = "x-signet-worker"

/** This process's worker slot when it runs under a primary; undefined when the server is one process. */
export const workerSlot = (): number | undefined => (cluster.isWorker ? Number(process.env[WORKER_SLOT_ENV]) : undefined)

/** What the primary and its workers tell each other over the IPC channel. */
type ClusterMessage =
  | { readonly signet: "ready" }
  | { readonly signet: "bus"; readonly topic: string; readonly payload: string }
  // A scrape: the worker that took it asks the primary (gather), which asks every other worker (ask), collects
  // their answers (answer) for up to a second and hands them back (gathered).
  | { readonly signet: "metrics-gather"; readonly id: number }
  | { readonly signet: "metrics-ask"; readonly id: number }
  | { readonly signet: "metrics-answer"; readonly id: number; readonly text: string }
  | { readonly signet: "metrics-gathered"; readonly id: number; readonly expositions: ReadonlyArray<string>; readonly missing: number }

const MESSAGES = new Set(["ready", "bus", "metrics-gather", "metrics-ask", "metrics-answer", "metrics-gathered"])

const isClusterMessage = (m: unknown): m is ClusterMessage => typeof m === "object" && m !== null && MESSAGES.has((m as { signet?: unknown }).signet as string)

/** How long the primary waits for the other workers' metrics; a worker slower than that is left out of the scrape. */
export const METRICS_GATHER_TIMEOUT_MS = 1000

/**
 * A worker's side of a scrape across workers: `gather` asks the primary for every other worker's
 * exposition (the engine's `metricsOfOtherWorkers`); `answerWith` answers the primary's asks with
 * this worker's own (until then, and after an error, this worker is counted missing).
 */
export const metricsAcrossWorkers = (options: { readonly workers: number }) => {
  let nextId = 0
  const waiting = new Map<number, (gathered: OtherWorkersMetrics) => void>()
  let local: (() => Promise<string>) | undefined
  process.on("message", (m: unknown) => {
    if (!isClusterMessage(m)) return
    if (m.signet === "metrics-gathered") waiting.get(m.id)?.({ expositions: m.expositions, missing: m.missing })
    else if (m.signet === "metrics-ask" && local !== undefined)
      local().then(
        (text) => {
          if (process.connected) process.send?.({ signet: "metrics-answer", id: m.id, text } satisfies ClusterMessage)
        },
        () => undefined,
      )
  })
  const gather = (): Promise<OtherWorkersMetrics> =>
    new Promise((resolve) => {
      const id = nextId++
      const done = (gathered: OtherWorkersMetrics) => {
        clearTimeout(timer)
        waiting.delete(id)
        resolve(gathered)
      }
      // The primary answers within its timeout; past that (a primary gone), this worker's figures are all there is.
      const timer = setTimeout(() => done({ expositions: [], missing: options.workers - 1 }), METRICS_GATHER_TIMEOUT_MS + 1000)
      waiting.set(id, done)
      if (process.connected) process.send?.({ signet: "metrics-gather", id } satisfies ClusterMessage)
    })
  return {
    gather,
    answerWith: (text: () => Promise<string>) => {
      local = text
    },
  }
}

/** Tells the primary this worker serves (its banner printed, its port shared); the primary starts the next workers then. */
export const announceReady = (): void => {
  if (process.connected) process.send?.({ signet: "ready" } satisfies ClusterMessage)
}

/**
 * The event bus of a SQLite worker: delivered at once to this worker's subscribers and sent to the
 * primary, which relays it to every other worker. Best effort, as the port says: a poke lost while a
 * worker is being replaced costs its streams one tick, since storage is the truth.
 */
export const EventBusWorkers: Layer.Layer<EventBus> = Layer.scoped(
  EventBus,
  Effect.gen(function* () {
    const hub = yield* PubSub.sliding<{ readonly topic: string; readonly payload: string }>(1024)
    const runtime = yield* Effect.runtime<never>()
    const publishHere = Runtime.runSync(runtime)
    const relayed = (m: unknown) => {
      if (isClusterMessage(m) && m.signet === "bus") publishHere(PubSub.publish(hub, { topic: m.topic, payload: m.payload }))
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on("message", relayed)),
      () => Effect.sync(() => process.off("message", relayed)),
    )
    return EventBus.of({
      publish: (topic, payload) =>
        PubSub.publish(hub, { topic, payload }).pipe(
          Effect.zipRight(
            Effect.sync(() => {
              if (process.connected) process.send?.({ signet: "bus", topic, payload } satisfies ClusterMessage)
            }),
          ),
          Effect.asVoid,
        ),
      subscribe: (topic) =>
        PubSub.subscribe(hub).pipe(
          Effect.map((queue) =>
            Stream.fromQueue(queue).pipe(
              Stream.filter((m) => m.topic === topic),
              Stream.map((m) => m.payload),
            ),
          ),
        ),
    })
  }),
)

/**
 * How long to wait before replacing a worker of a slot that has died `crashes` times in a row
 * (a worker that served a minute resets its slot's count): 1 s, doubling up to 30 s, so a worker
 * that cannot stay up (a full disk, an unreachable database) does not restart many times a second.
 */
export const replacementDelayMs = (crashes: number): number => Math.min(30_000, 1000 * 2 ** Math.max(0, crashes - 1))

/** How long a replacement must run before its slot's crash count starts again from zero. */
const STEADY_MS = 60_000

const log = (fields: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ level: "INFO", timestamp: new Date().toISOString(), ...fields })}\n`)

/**
 * Runs the primary: forks worker 1 and waits until it serves (it applies the migrations and, in demo
 * mode, creates the demo RP, alone), then the others. Never returns: it exits with the first worker's
 * code if that one cannot start, 1 if another cannot, and on SIGTERM or SIGINT 0 once every worker
 * exited 0 after draining (1 otherwise).
 */
export const runPrimary = async (options: { readonly workers: number; readonly shutdownGraceMs: number }): Promise<never> => {
  const slots = new Map<number, Worker>()
  let stopping = false
  let serving = false
  const exits = new Map<number, number | null>()
  // Per slot: deaths in a row while serving, and when its current worker started.
  const crashes = new Map<number, number>()
  const forkedAt = new Map<number, number>()
  // Scrapes being gathered, by the primary's id: who asked (and under which id), what came back, from whom still awaited.
  let nextScrape = 0
  const scrapes = new Map<number, { requester: Worker; id: number; expositions: Array<string>; awaited: Set<Worker>; timer: NodeJS.Timeout }>()
  const finishScrape = (scrape: number) => {
    const s = scrapes.get(scrape)
    if (s === undefined) return
    scrapes.delete(scrape)
    clearTimeout(s.timer)
    // Every slot other than the requester's should have answered: one not running (being replaced) counts as missing too.
    const missing = Math.max(0, options.workers - 1 - s.expositions.length)
    if (s.requester.isConnected()) s.requester.send({ signet: "metrics-gathered", id: s.id, expositions: s.expositions, missing } satisfies ClusterMessage)
  }
  const gatherFor = (requester: Worker, id: number) => {
    const scrape = nextScrape++
    const awaited = new Set([...slots.values()].filter((w) => w !== requester && w.isConnected()))
    scrapes.set(scrape, { requester, id, expositions: [], awaited, timer: setTimeout(() => finishScrape(scrape), METRICS_GATHER_TIMEOUT_MS) })
    for (const w of awaited) w.send({ signet: "metrics-ask", id: scrape } satisfies ClusterMessage)
    if (awaited.size === 0) finishScrape(scrape)
  }
  const answered = (worker: Worker, scrape: number, text: string) => {
    const s = scrapes.get(scrape)
    if (s === undefined || !s.awaited.delete(worker)) return
    s.expositions.push(text)
    if (s.awaited.size === 0) finishScrape(scrape)
  }

  const fork = (slot: number): Worker => {
    const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(slot) })
    slots.set(slot, worker)
    forkedAt.set(slot, performance.now())
    worker.on("message", (m: unknown) => {
      if (!isClusterMessage(m)) return
      if (m.signet === "bus") {
        for (const other of slots.values()) if (other !== worker && other.isConnected()) other.send(m)
      } else if (m.signet === "metrics-gather") gatherFor(worker, m.id)
      else if (m.signet === "metrics-answer") answered(worker, m.id, m.text)
    })
    worker.once("exit", (code, signal) => {
      if (slots.get(slot) !== worker) return
      exits.set(slot, code)
      if (stopping || !serving) return
      // A worker that died while serving is replaced in its slot; its clients reconnect to the others meanwhile.
      const steady = performance.now() - (forkedAt.get(slot) ?? 0) >= STEADY_MS
      const inARow = steady ? 1 : (crashes.get(slot) ?? 0) + 1
      crashes.set(slot, inARow)
      const delayMs = replacementDelayMs(inARow)
      log({ level: "ERROR", message: "worker exited; starting a replacement", worker: slot, code, signal, inARow, delayMs })
      setTimeout(() => {
        if (!stopping) fork(slot)
      }, delayMs)
    })
    return worker
  }

  const ready = (worker: Worker) =>
    new Promise<boolean>((resolve) => {
      const onMessage = (m: unknown) => {
        if (!isClusterMessage(m) || m.signet !== "ready") return
        worker.off("exit", onExit)
        worker.off("message", onMessage)
        resolve(true)
      }
      const onExit = () => {
        worker.off("message", onMessage)
        resolve(false)
      }
      worker.on("message", onMessage)
      worker.once("exit", onExit)
    })

  const allExited = () =>
    Promise.all([...slots.values()].map((w) => (w.isDead() ? Promise.resolve() : new Promise<void>((resolve) => w.once("exit", () => resolve())))))

  const stop = async (signal: NodeJS.Signals, code?: number): Promise<never> => {
    stopping = true
    const started = performance.now()
    for (const w of slots.values()) if (!w.isDead()) w.process.kill(signal)
    // Each worker has its own grace; one that outlives it by far is stuck, and is killed.
    const stuck = setTimeout(() => {
      for (const w of slots.values()) if (!w.isDead()) w.process.kill("SIGKILL")
    }, options.shutdownGraceMs + 10_000)
    await allExited()
    clearTimeout(stuck)
    const codes = [...slots.keys()].sort((a, b) => a - b).map((slot) => exits.get(slot) ?? null)
    const clean = codes.every((c) => c === 0)
    log({ message: "workers stopped", signal, workers: codes.length, exitCodes: codes, ms: Math.round(performance.now() - started) })
    process.exit(code ?? (clean ? 0 : 1))
  }
  process.on("SIGTERM", () => void stop("SIGTERM"))
  process.on("SIGINT", () => void stop("SIGINT"))

  const first = fork(1)
  const firstReady = await ready(first)
  // A signal during start: stop() ends the process.
  if (stopping) return new Promise<never>(() => undefined)
  if (!firstReady) {
    await allExited()
    process.exit(exits.get(1) ?? 1)
  }
  const others = Array.from({ length: options.workers - 1 }, (_, i) => fork(i + 2))
  const started = await Promise.all(others.map(ready))
  if (started.some((ok) => !ok) && !stopping) return stop("SIGTERM", 1)
  serving = true
  log({ message: "workers serving", workers: options.workers })
  return new Promise<never>(() => undefined)
}
