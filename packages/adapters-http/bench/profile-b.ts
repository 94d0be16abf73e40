// Throwaway: (b) in process, serial, with per-statement counts. Run:
//   N=1000 node --conditions=@signet/source --import tsx packages/adapters-http/bench/profile-b.ts
import BetterSqlite3 from "better-sqlite3"
import { completeSigningRequest, createSigningRequest, administerRelyingParty, type Assertion } from "@signet/core"
import { enrol, SoftwarePasskey } from "@signet/testkit"
import { createHash, randomBytes } from "node:crypto"
import { startEngine } from "../src/test-support/running-engine.ts"
const proto = Object.getPrototypeOf(new BetterSqlite3(":memory:").prepare("select 1"))
const stats = new Map<string, { n: number; ms: number }>()
for (const m of ["run", "all", "get", "iterate"]) {
  const orig = proto[m]
  proto[m] = function (this: { source: string }, ...args: Array<unknown>) {
    const t = performance.now()
    try {
      return orig.apply(this, args)
    } finally {
      const s = stats.get(this.source) ?? { n: 0, ms: 0 }
      s.n++
      s.ms += performance.now() - t
      stats.set(this.source, s)
    }
  }
}
const N = Number(process.env["N"] ?? 1000)
const hash = () => createHash("sha256").update(randomBytes(32)).digest("hex")
const env = await startEngine({ housekeeping: false, validateResponses: false })
await env.engine.run(
  administerRelyingParty(env.rp.clientId, {
    _tag: "SetCustomAllowance",
    allowance: { signaturesPerDay: 10_000_000, documentsPerBatch: 10, requestsPerMinute: 10_000_000, highestLoa: "LOA-4" },
  }),
)
const passkey = SoftwarePasskey.create({ origin: env.origin })
const enrolled = await enrol(env.client, passkey, { email: "p@example.com", displayName: "P" })
const user = { userId: enrolled.userId, clientId: env.rp.clientId, scope: ["basic"] }
const once = async () => {
  const pending = await env.engine.run(createSigningRequest(user, { documentHash: hash(), credentialId: passkey.credentialId }))
  await env.engine.run(completeSigningRequest(pending.requestId, passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) as Assertion))
}
for (let i = 0; i < 50; i++) await once()
stats.clear()
const cpu0 = process.cpuUsage()
const t = performance.now()
for (let i = 0; i < N; i++) await once()
const ms = performance.now() - t
const cpu = process.cpuUsage(cpu0)
console.log(`(b) ${(N / (ms / 1000)).toFixed(1)}/s ${(ms / N).toFixed(3)} ms each; CPU ${((cpu.user + cpu.system) / 1000 / N).toFixed(3)} ms per signature`)
const rows = [...stats].sort((a, b) => b[1].ms - a[1].ms)
let tn = 0,
  tm = 0
for (const [, s] of rows) {
  tn += s.n
  tm += s.ms
}
console.log(`statements per signature ${(tn / N).toFixed(1)}, SQLite ms per signature ${(tm / N).toFixed(3)}`)
for (const [q, s] of rows.slice(0, 40))
  console.log(`${(s.n / N).toFixed(2).padStart(6)} ${((s.ms / N) * 1000).toFixed(0).padStart(6)}us  ${q.replace(/\s+/g, " ").slice(0, 160)}`)
await env.stop()
