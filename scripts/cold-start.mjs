// Cold start to first answer (docs/embedding.md): spawns a server command with a fresh SQLite file and
// port, polls GET <base>/health every 5 ms, prints the milliseconds from spawn to the first 200; median of runs.
// Usage: node scripts/cold-start.mjs <runs> <command> [args...]   (the command reads SIGNET_* and PORT)
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

const [runsText, command, ...args] = process.argv.slice(2)
const freePort = () => new Promise((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const { port } = s.address()
    s.close(() => resolve(port))
  })
})
const once = async () => {
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
const times = []
for (let i = 0; i < Number(runsText); i++) times.push(await once())
times.sort((a, b) => a - b)
console.log(`${[command, ...args].join(" ")}: median ${Math.round(times[Math.floor(times.length / 2)])} ms over ${times.length} runs (${times.map(Math.round).join(", ")})`)
