/** Test support: the real server binary (built: `dist/bin/server.js`) as a child process, its stdout lines, exit and memory. */
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

// The server runs from built JavaScript, as `pnpm start` runs it (vitest's global setup builds it first).
const repoRoot = new URL("../../../../", import.meta.url).pathname
const serverBin = new URL("../../dist/bin/server.js", import.meta.url).pathname

/** A free loopback port. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const address = s.address()
      s.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** A server process: what it printed so far, how it ended. */
export interface ServerProcess {
  readonly child: ChildProcess
  readonly origin: string
  /** the SQLite file it runs on */
  readonly database: string
  readonly masterKey: string
  readonly stdout: Array<string>
  readonly stderr: Array<string>
  /** resolves with the exit code when the process ends */
  readonly exited: Promise<number | null>
  /** resident set size of the server process now, in bytes (Linux /proc) */
  readonly rss: () => number
  readonly stop: () => Promise<void>
}

const lines = (into: Array<string>) => {
  let partial = ""
  return (chunk: Buffer) => {
    const text = partial + chunk.toString("utf8")
    const parts = text.split("\n")
    partial = parts.pop()!
    into.push(...parts)
  }
}

/**
 * Spawns the server with `env` on top of a temp SQLite database, a fresh master key and a free
 * port. `waitForHealth`: resolve once `/health` answers (default), else as soon as it is spawned.
 */
export const spawnServer = async (
  env: Record<string, string>,
  options: {
    readonly waitForHealth?: boolean
    /** restart on the database, master key and port of an earlier process */
    readonly after?: Pick<ServerProcess, "database" | "masterKey" | "origin">
  } = {},
): Promise<ServerProcess> => {
  const port = options.after !== undefined ? Number(new URL(options.after.origin).port) : await freePort()
  const origin = `http://localhost:${port}`
  const database = options.after?.database ?? join(mkdtempSync(join(tmpdir(), "signet-process-")), "signet.db")
  const masterKey = options.after?.masterKey ?? randomBytes(32).toString("hex")
  const child = spawn(process.execPath, [serverBin], {
    cwd: repoRoot,
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: process.env["HOME"] ?? "",
      SIGNET_DATABASE: database,
      SIGNET_MASTER_KEY: masterKey,
      SIGNET_PORT: String(port),
      SIGNET_HOST: "127.0.0.1",
      // Every answer of the server process is checked against its endpoint's response Schema.
      SIGNET_PUBLIC_ORIGIN: origin,
      SIGNET_VALIDATE_RESPONSES: "1",
      // One process unless a test asks for workers (the default, one per core, is for operators).
      SIGNET_WORKERS: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  })
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  child.stdout!.on("data", lines(stdout))
  child.stderr!.on("data", lines(stderr))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  let ended = false
  void exited.then(() => {
    ended = true
  })
  const server: ServerProcess = {
    child,
    origin,
    database,
    masterKey,
    stdout,
    stderr,
    exited,
    rss: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024
    },
    stop: async () => {
      if (ended) return
      child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
      await exited
      clearTimeout(timer)
    },
  }
  if (options.waitForHealth === false) return server
  for (let i = 0; i < 300 && !ended; i++) {
    const up = await fetch(`${origin}/api/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) return server
    await new Promise((r) => setTimeout(r, 100))
  }
  await server.stop()
  throw new Error(`the server did not start: ${stderr.join("\n")}`)
}
