// Cold start to first answer (docs/embedding.md): spawns a server command with a fresh SQLite file and
// port, polls GET /api/health every 5 ms, prints the milliseconds from spawn to the first 200; median of runs.
// Several commands (separated by `--`) are run in turn, so a change of machine load touches each alike.
// Usage: node scripts/cold-start.mjs <runs> <command> [args...] [-- <command> [args...]]...  (commands read SIGNET_* and PORT)
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

const [runsText, ...rest] = process.argv.slice(2)
const commands = rest.join("\u0000").split("\u0000--\u0000").map((c) => c.split("\u0000"))
const freePort = () => new Promise((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const { port } = s.address()
    s.close(() => resolve(port))
  })
})
const once = async ([command, ...args]) => {
  const port = await freePort()
  const env = {
    ...process.env, PORT: String(port), SIGNET_PORT: String(port), SIGNET_HOST: "127.0.0.1",
    PUBLIC_ORIGIN: `http://localhost:${port}`, SIGNET_PUBLIC_ORIGIN: `http://localhost:${port}`,
    SIGNET_DATABASE: join(mkdtempSync(join(tmpdir(), "signet-cold-")), "signet.db"),
    SIGNET_MASTER_KEY: randomBytes(32).toString("hex"), SIGNET_ENVIRONMENT: "sandbox",
  }
  const started = performance.now()
  const child = spawn(command, args, { env, stdio: "ignore" })
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.status === 200, () => false)
      if (ok) return performance.now() - started
      if (performance.now() - started > 60_000) throw new Error("no answer within 60 s")
      await new Promise((r) => setTimeout(r, 5))
    }
  } finally {
    child.kill("SIGKILL")
  }
}
const times = commands.map(() => [])
for (let i = 0; i < Number(runsText); i++) {
  for (const [n, command] of commands.entries()) times[n].push(await once(command))
}
for (const [n, command] of commands.entries()) {
  const sorted = times[n].sort((a, b) => a - b)
  console.log(`${command.join(" ")}: median ${Math.round(sorted[Math.floor(sorted.length / 2)])} ms over ${sorted.length} runs (${sorted.map(Math.round).join(", ")})`)
}
