/**
 * `pnpm bench:workers`: signatures per second of the server binary with 1 and with 2 workers
 * (`SIGNET_WORKERS`), over HTTP on loopback, on SQLite and (when reachable) PostgreSQL.
 * Several signers, each with its own passkey, create and complete one request after another at the
 * same time (one passkey's approvals must stay in order: its signature counter). The runs alternate
 * 1, 2, 1, 2 workers so that a change in the machine's load touches both alike; each line gives the
 * load average next to the figure.
 *   BENCH_WORKERS=1,2  BENCH_ROUNDS=2  BENCH_SIGNERS=8  BENCH_N=320  BENCH_STORAGES=sqlite,postgres
 */
import { StoragePostgres } from "@signet/adapters-postgres"
import { administerRelyingParty, registerRelyingParty } from "@signet/core"
import { enrol, ok, SignetClient, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { LogLevel } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { loadavg } from "node:os"
import pg from "pg"
import { makeEngine, type Engine } from "@signet/adapters-http"
import { storageFor } from "../src/storage.ts"
import { spawnServer } from "../src/test-support/server-process.ts"

const WORKERS = (process.env["BENCH_WORKERS"] ?? "1,2").split(",").map(Number)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 2)
const SIGNERS = Number(process.env["BENCH_SIGNERS"] ?? 8)
const N = Number(process.env["BENCH_N"] ?? 320)
const WARMUP = 2
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

/** One run: a server with `workers` workers; answers signatures per second over `N` signatures. */
const run = async (workers: number, postgresUrl: string | undefined): Promise<number> => {
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
    const signers = []
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
    const started = performance.now()
    await Promise.all(
      signers.map(async (s) => {
        for (let i = 0; i < each; i++) await sign(s)
      }),
    )
    return (each * SIGNERS) / ((performance.now() - started) / 1000)
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
    const figures = new Map<number, Array<number>>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const workers of WORKERS) {
        const before = loadavg()[0]!
        const perSecond = await run(workers, url)
        figures.set(workers, [...(figures.get(workers) ?? []), perSecond])
        console.log(
          `${name.padEnd(10)} ${String(workers).padStart(2)} worker(s)  ${perSecond.toFixed(1).padStart(7)} signatures/s   load ${before.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`,
        )
      }
    }
    const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
    console.log(`${name}: ${WORKERS.map((w) => `${w} worker(s) mean ${mean(figures.get(w)!).toFixed(1)}/s`).join(", ")}\n`)
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
