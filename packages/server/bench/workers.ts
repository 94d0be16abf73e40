/**
 * `pnpm bench:workers`: signatures per second of the server binary with 1 and with 2 workers
 * (`SIGNET_WORKERS`), over HTTP on loopback, on SQLite and (when reachable) PostgreSQL.
 * Several signers, each with its own passkey, create and complete one request after another at the
 * same time (one passkey's approvals must stay in order: its signature counter). The runs alternate
 * 1, 2, 1, 2 workers so that a change in the machine's load touches both alike; each line gives the
 * load average next to the figure.
 *   BENCH_WORKERS=1,2  BENCH_ROUNDS=2  BENCH_SIGNERS=8  BENCH_N=320  BENCH_WARMUP=10 (per signer)  BENCH_STORAGES=sqlite,postgres
 */
import { StoragePostgres } from "@signet/adapters-postgres"
import { administerRelyingParty, registerRelyingParty } from "@signet/core"
import { enrol, ok, SignetClient, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { LogLevel } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { loadavg } from "node:os"
import pg from "pg"
import { makeEngine, type Engine } from "@signet/adapters-http"
import { storageFor } from "../src/storage.ts"
import { spawnServer } from "../src/test-support/server-process.ts"

const WORKERS = (process.env["BENCH_WORKERS"] ?? "1,2").split(",").map(Number)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 2)
const SIGNERS = Number(process.env["BENCH_SIGNERS"] ?? 8)
const N = Number(process.env["BENCH_N"] ?? 320)
const WARMUP = Number(process.env["BENCH_WARMUP"] ?? 10)
const STORAGES = (process.env["BENCH_STORAGES"] ?? "sqlite,postgres").split(",")
const settings = { environment: "sandbox", basePath: "/api", accessTokenTtlSeconds: 3600, ceremonyTtlSeconds: 300, sessionTtlSeconds: 3600 } as const

// The testkit's PostgreSQL helpers load vitest; a bench runs outside it.
const findPostgres = async (): Promise<string | undefined> => {
  const url = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
  const client = new pg.Client({ connectionString: url })
  client.on("error", () => undefined)
  try {
    await client.connect()
    await client.end()
    return url
  } catch {
    console.warn(`PostgreSQL not reachable at ${url}: SQLite only`)
    return undefined
  }
}
const freshSchemaName = () => `signet_bench_${randomBytes(6).toString("hex")}`
const dropSchema = async (url: string, schema: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`drop schema if exists ${client.escapeIdentifier(schema)} cascade`)
  } finally {
    await client.end()
  }
}

const hash = () => createHash("sha256").update(randomBytes(32)).digest("hex")

/** CPU seconds (user + system, Linux /proc) a process has used; its parent's pid. */
const cpuOf = (pid: number): { readonly seconds: number; readonly parent: number } => {
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return { seconds: (Number(fields[11]) + Number(fields[12])) / 100, parent: Number(fields[1]) }
}

/** The server's processes: the one spawned and its children (the workers, under a primary). */
const serverProcesses = (pid: number): ReadonlyArray<number> => {
  const children = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        return cpuOf(p).parent === pid
      } catch {
        return false
      }
    })
  return [pid, ...children]
}

/** What one run measured. */
interface Figures {
  readonly perSecond: number
  /** CPU time of the server's processes per signature (ms) */
  readonly cpuMsEach: number
  /** each worker's share of the workers' CPU time (%) */
  readonly shares: ReadonlyArray<number>
  /** the primary's CPU time per signature (ms; 0 without one) */
  readonly primaryMsEach: number
}

/** One run: a server with `workers` workers, `N` signatures. */
const run = async (workers: number, postgresUrl: string | undefined): Promise<Figures> => {
  const masterKey = randomBytes(32)
  const schema = postgresUrl === undefined ? undefined : freshSchemaName()
  let admin: Engine | undefined
  if (postgresUrl !== undefined) {
    // Migrated before the workers start; the server reaches the schema through its search path.
    admin = await makeEngine({
      storage: StoragePostgres({ connectionString: postgresUrl, schema: schema! }),
      masterKey,
      logLevel: LogLevel.None,
      deliveries: { worker: false },
      housekeeping: false,
      settings: { ...settings, publicOrigin: "http://localhost" },
    })
  }
  const server = await spawnServer({
    SIGNET_ENVIRONMENT: "sandbox",
    SIGNET_WORKERS: String(workers),
    SIGNET_MASTER_KEY: masterKey.toString("hex"),
    // The bench measures signing, not the contract checks every test server makes.
    SIGNET_VALIDATE_RESPONSES: "0",
    ...(postgresUrl === undefined
      ? {}
      : { SIGNET_DATABASE: `${postgresUrl}${postgresUrl.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}` }),
  })
  try {
    admin ??= await makeEngine({
      ...storageFor(server.database),
      masterKey,
      logLevel: LogLevel.None,
      deliveries: { worker: false },
      housekeeping: false,
      settings: { ...settings, publicOrigin: server.origin },
    })
    const rp = await admin.run(registerRelyingParty({ name: "Bench RP", status: "approved", signingOrigins: [server.origin], plan: "business" }))
    await admin.run(
      administerRelyingParty(rp.rp.clientId, {
        _tag: "SetCustomAllowance",
        allowance: { signaturesPerDay: 1_000_000, documentsPerBatch: 10, requestsPerMinute: 1_000_000, highestLoa: "LOA-2" },
      }),
    )
    const api = `${server.origin}/api`
    const client = new SignetClient(api)
    client.mailbox = async (email) => {
      for (let tries = 0; tries < 200; tries++) {
        const code = server.stdout.findLast((l) => l.includes(`[sandbox mail] to ${email}:`))?.match(/code: (\d{8})/)?.[1]
        if (code !== undefined) return code
        await new Promise((r) => setTimeout(r, 50))
      }
      throw new Error(`no code for ${email}`)
    }
    const signers: Array<{ readonly passkey: SoftwarePasskey; readonly token: string }> = []
    for (let i = 0; i < SIGNERS; i++) {
      const passkey = SoftwarePasskey.create({ origin: server.origin })
      await enrol(client, passkey, { email: `bench-${i}@example.com` })
      signers.push({ passkey, token: (ok(await signIn(client, passkey, { clientId: rp.rp.clientId })) as TokenAnswer).access_token })
    }
    const sign = async (s: (typeof signers)[number]) => {
      const created = await client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        body: { documentHash: hash(), credentialId: s.passkey.credentialId },
        headers: { authorization: `Bearer ${s.token}` },
      })
      if (created.status !== 200) throw new Error(`creation failed: ${JSON.stringify(created.body)}`)
      const done = await client.raw("POST", `/v2/sign/auth/${created.body.requestId}`, {
        body: { assertion: s.passkey.assert({ challenge: created.body.challenge }, { includeUserHandle: false }) },
      })
      if (done.status !== 200) throw new Error(`completion failed: ${JSON.stringify(done.body)}`)
    }
    const each = Math.ceil(N / SIGNERS)
    await Promise.all(
      signers.map(async (s) => {
        for (let i = 0; i < WARMUP; i++) await sign(s)
      }),
    )
    const processes = serverProcesses(server.child.pid!)
    const cpuBefore = processes.map((p) => cpuOf(p).seconds)
    const started = performance.now()
    await Promise.all(
      signers.map(async (s) => {
        for (let i = 0; i < each; i++) await sign(s)
      }),
    )
    const seconds = (performance.now() - started) / 1000
    const used = processes.map((p, i) => cpuOf(p).seconds - cpuBefore[i]!)
    const total = used.reduce((a, b) => a + b, 0)
    // Under a primary, the workers are the children; the primary's own share is the relaying.
    const workerCpu = processes.length > 1 ? used.slice(1) : used
    const workerTotal = workerCpu.reduce((a, b) => a + b, 0)
    return {
      perSecond: (each * SIGNERS) / seconds,
      cpuMsEach: (total * 1000) / (each * SIGNERS),
      shares: workerCpu.map((c) => Math.round((100 * c) / Math.max(workerTotal, 0.001))),
      primaryMsEach: processes.length > 1 ? (used[0]! * 1000) / (each * SIGNERS) : 0,
    }
  } finally {
    await server.stop()
    await admin?.dispose()
    if (postgresUrl !== undefined && schema !== undefined) await dropSchema(postgresUrl, schema)
  }
}

const main = async () => {
  const postgres = STORAGES.includes("postgres") ? await findPostgres() : undefined
  const targets: ReadonlyArray<readonly [string, string | undefined]> = [
    ...(STORAGES.includes("sqlite") ? [["SQLite", undefined] as const] : []),
    ...(postgres !== undefined ? [["PostgreSQL", postgres] as const] : []),
  ]
  console.log(`Signet workers benchmark: ${SIGNERS} signers at once, ${N} create + complete per run over HTTP, Node ${process.version}\n`)
  for (const [name, url] of targets) {
    const figures = new Map<number, Array<Figures>>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const workers of WORKERS) {
        const before = loadavg()[0]!
        const f = await run(workers, url)
        figures.set(workers, [...(figures.get(workers) ?? []), f])
        console.log(
          `${name.padEnd(10)} ${String(workers).padStart(2)} worker(s)  ${f.perSecond.toFixed(1).padStart(7)} signatures/s  server CPU ${f.cpuMsEach.toFixed(1).padStart(5)} ms each  (primary ${f.primaryMsEach.toFixed(1)})  worker shares ${f.shares.join("/")} %   load ${before.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`,
        )
      }
    }
    const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
    console.log(
      `${name}: ${WORKERS.map((w) => `${w} worker(s) mean ${mean(figures.get(w)!.map((f) => f.perSecond)).toFixed(1)}/s, ${mean(figures.get(w)!.map((f) => f.cpuMsEach)).toFixed(1)} ms CPU each`).join("; ")}\n`,
    )
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
