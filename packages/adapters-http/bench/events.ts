/**
 * `pnpm bench:events [--clients N]`: how soon 1,000 (or N) concurrent event-stream clients of one
 * user on one node see a completion, from the moment its approval is sent (p50, p90, p99, slowest;
 * the completion itself included), and the server's memory per idle stream. The engine runs in a child process (its memory
 * is its own, and 10,000 clients and their server would not fit one process's file limit); this
 * process holds the clients. The load test asserts that every client sees it; this prints how soon
 * (the target is 1 s).
 */
import { enrol, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { spawn } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { Agent, get } from "node:http"
import { loadavg } from "node:os"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { startEngine } from "../src/test-support/running-engine.ts"

const arg = process.argv.indexOf("--clients")
const clients = arg >= 0 ? Number(process.argv[arg + 1]) : 1000
/** connections opened at once (more overflow the listen backlog) */
const WAVE = 250
const now = () => performance.timeOrigin + performance.now()

const memory = () => {
  globalThis.gc?.()
  const m = process.memoryUsage()
  return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers }
}

/** The child: an engine and one enrolled signer; answers `memory` and `complete` on stdin, one JSON line each. */
const serve = async () => {
  const env = await startEngine({ housekeeping: false })
  const passkey = SoftwarePasskey.create({ origin: env.origin })
  await enrol(env.client, passkey, { email: "crowd@example.com" })
  const token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
  const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)
  const complete = async () => {
    const pending = ok(
      await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        headers: { authorization: `Bearer ${token}` },
        body: { documentHash: createHash("sha256").update(randomBytes(8)).digest("hex"), credentialId: passkey.credentialId },
      }),
    )
    const assertion = passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false })
    const sentAt = now()
    ok(await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, { body: { assertion } }))
    return { sentAt, completedAt: now() }
  }
  // The first signature issues the signer's certificate: done before the clock matters.
  await complete()
  say({ url: `${env.client.baseUrl}/v2/events`, token, memory: memory() })
  for await (const command of createInterface({ input: process.stdin })) {
    if (command === "memory") say({ memory: memory() })
    if (command === "complete") say(await complete())
    if (command === "stop") break
  }
  await env.stop()
}

const crowd = async () => {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--serve"], { stdio: ["pipe", "pipe", "inherit"] })
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  const answer = async <T>(command?: string): Promise<T> => {
    if (command !== undefined) child.stdin!.write(`${command}\n`)
    for (;;) {
      const next = await lines.next()
      if (next.done === true) throw new Error("the engine process ended")
      if (next.value.startsWith("{")) return JSON.parse(next.value) as T
    }
  }
  try {
    const { url, token, memory: before } = await answer<{ url: string; token: string; memory: ReturnType<typeof memory> }>()
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
    const seenAt: Array<number> = new Array<number>(clients).fill(0)
    const requests: Array<ReturnType<typeof get>> = []
    const connected: Array<Promise<void>> = []
    const started = now()
    for (let i = 0; i < clients; i++) {
      if (i > 0 && i % WAVE === 0) await Promise.all(connected.slice(i - WAVE, i))
      connected.push(
        new Promise((resolve, reject) => {
          const req = get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
            let text = ""
            res.setEncoding("utf8")
            res.on("data", (chunk: string) => {
              text += chunk
              if (text.includes("event: connected")) resolve()
              if (seenAt[i] === 0 && text.includes("event: signing_request_completed")) seenAt[i] = now()
              if (text.length > 4096) text = text.slice(-512)
            })
          })
          req.on("error", reject)
          requests.push(req)
        }),
      )
    }
    await Promise.all(connected)
    const connectSeconds = (now() - started) / 1000
    const { memory: after } = await answer<{ memory: ReturnType<typeof memory> }>("memory")
    const { sentAt, completedAt } = await answer<{ sentAt: number; completedAt: number }>("complete")
    const deadline = now() + 10_000
    while (seenAt.some((t) => t === 0) && now() < deadline) await new Promise((r) => setTimeout(r, 10))
    // From the approval being sent: the completion itself is included (its answer may reach the signer after the streams).
    const latencies = seenAt.map((t) => (t === 0 ? Infinity : t - sentAt)).sort((a, b) => a - b)
    for (const r of requests) r.destroy()
    agent.destroy()
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!
    const missed = latencies.filter((ms) => ms === Infinity).length
    const kib = (bytes: number) => (bytes / clients / 1024).toFixed(1)
    console.log(
      `event stream: ${clients} clients of one user; the approval took ${(completedAt - sentAt).toFixed(0)} ms to answer; from the approval sent, the event seen after p50 ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, max ${at(1).toFixed(0)} ms${missed > 0 ? `; ${missed} saw nothing within 10 s` : ""}`,
    )
    console.log(
      `event stream: server memory per idle stream ${kib(after.rss - before.rss)} KiB resident, ${kib(after.heap - before.heap)} KiB heap; ${clients} connected in ${connectSeconds.toFixed(1)} s; load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(", ")}`,
    )
    child.stdin!.write("stop\n")
  } finally {
    await new Promise((resolve) => {
      child.once("exit", resolve)
      setTimeout(() => child.kill(), 10_000).unref()
    })
  }
}

if (process.argv.includes("--serve")) await serve()
else await crowd()
