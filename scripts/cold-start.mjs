/**
 * Cold start to the first `/health` answer: the built server (`node packages/server/dist/bin/server.js`)
 * against the same server from TypeScript sources under tsx (how `pnpm start` ran before the build).
 * Prints wall time and the CPU time the process had used by then (user + system, from /proc: on a
 * loaded machine the wall time mostly measures the load, the CPU time the work).
 *   pnpm build && node scripts/cold-start.mjs [runs]      (default 5 runs each, alternating)
 * After `--`, one more command to measure alike, run in the current folder: an installed example
 * (docs/embedding.md), which reads PORT, PUBLIC_ORIGIN, SIGNET_DATABASE and SIGNET_MASTER_KEY.
 *   node <repo>/scripts/cold-start.mjs 5 -- node server.js
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

const root = new URL("..", import.meta.url).pathname
const dashes = process.argv.indexOf("--")
const runs = Number((dashes === 2 ? undefined : process.argv[2]) ?? 5)
const extra = dashes < 0 ? [] : process.argv.slice(dashes + 1)
const ways = {
  "built JS (node dist/bin/server.js)": [process.execPath, [join(root, "packages/server/dist/bin/server.js")]],
  // tsx as a loader in the process itself (the tsx CLI would add a wrapper process)
  "tsx (sources)": [
    process.execPath,
    ["--import", join(root, "node_modules/tsx/dist/esm/index.mjs"), "--conditions=@signet/source", join(root, "packages/server/src/bin/server.ts")],
  ],
  ...(extra.length > 0 ? { [extra.join(" ")]: [extra[0], extra.slice(1)] } : {}),
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })

// utime + stime of a process in ms (fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 10 ms)
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const once = async ([command, args]) => {
  const port = await freePort()
  const env = {
    ...process.env,
    SIGNET_PORT: String(port),
    SIGNET_HOST: "127.0.0.1",
    SIGNET_ENVIRONMENT: "sandbox",
    PORT: String(port),
    PUBLIC_ORIGIN: `http://localhost:${port}`,
    SIGNET_DATABASE: join(mkdtempSync(join(tmpdir(), "signet-start-")), "signet.db"),
    SIGNET_MASTER_KEY: randomBytes(32).toString("hex"),
    // One process: the CPU time read from /proc is this process's own.
    SIGNET_WORKERS: "1",
  }
  const started = performance.now()
  const child = spawn(command, args, { env, stdio: "ignore" })
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) return { wall: performance.now() - started, cpu: cpuMs(child.pid) }
      if (performance.now() - started > 120_000) throw new Error("no answer in 120 s")
      await new Promise((r) => setTimeout(r, 10))
    }
  } finally {
    child.kill("SIGKILL")
  }
}

const results = Object.fromEntries(Object.keys(ways).map((k) => [k, []]))
for (let i = 0; i < runs; i++) for (const [name, way] of Object.entries(ways)) results[name].push(await once(way))
const median = (xs) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)])
for (const [name, times] of Object.entries(results)) {
  const wall = times.map((t) => t.wall)
  const cpu = times.map((t) => t.cpu)
  console.log(`${name}: wall median ${median(wall)} ms (${wall.map(Math.round).join(", ")}); CPU median ${median(cpu)} ms (${cpu.join(", ")})`)
}
