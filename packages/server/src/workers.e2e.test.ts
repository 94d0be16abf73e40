/**
 * Every core (issue 17, item 3), on the server binary with `SIGNET_WORKERS=2`, on SQLite and on
 * PostgreSQL: the daily quota stays exact when 200 creations race over both workers; an event
 * stream held by one worker hears a completion made on the other within a second (on SQLite
 * through the primary's relay, on PostgreSQL through LISTEN/NOTIFY); and SIGTERM to the primary
 * drains both workers and ends in exit 0.
 */
import { StoragePostgres } from "@signet/adapters-postgres"
import { administerRelyingParty, registerRelyingParty } from "@signet/core"
import { enrol, ok, SignetClient, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { dropSchema, findPostgres, freshSchemaName } from "@signet/testkit/storage"
import { LogLevel } from "effect"
import pg from "pg"
import { createHash, randomBytes } from "node:crypto"
import { Agent, request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeEngine, type Engine } from "@signet/adapters-http"
import { WORKER_HEADER } from "./cluster.ts"
import { storageFor } from "./storage.ts"
import { spawnServer, type ServerProcess } from "./test-support/server-process.ts"
import { exchange } from "./test-support/signer.ts"

const postgres = await findPostgres()
const STORAGES: ReadonlyArray<readonly [string, string | undefined]> = [["SQLite", undefined], ...(postgres ? [["PostgreSQL", postgres] as const] : [])]

const sha256 = () => createHash("sha256").update(randomBytes(16)).digest("hex")

/** An event stream read as it comes: its text so far, the worker holding it, and a wait for a frame. */
const openStream = (url: string, token: string) =>
  new Promise<{ worker: string; text: () => string; ended: Promise<void>; waitFor: (needle: string, ms: number) => Promise<number>; close: () => void }>(
    (resolve, reject) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      let text = ""
      const waiters: Array<() => void> = []
      const req = request(url, { agent, headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`))
        res.setEncoding("utf8")
        const ended = new Promise<void>((done) => {
          res.on("end", () => done())
          res.on("close", () => done())
        })
        res.on("data", (chunk: string) => {
          text += chunk
          for (const w of waiters.splice(0)) w()
        })
        resolve({
          worker: String(res.headers[WORKER_HEADER]),
          text: () => text,
          ended,
          // Resolves with the moment (performance.now()) the frame naming `needle` arrived.
          waitFor: (needle, ms) =>
            new Promise<number>((found, fail) => {
              const timer = setTimeout(() => fail(new Error(`no frame with ${needle} within ${ms} ms; stream so far:\n${text}`)), ms)
              const check = () => {
                if (text.includes(needle)) {
                  clearTimeout(timer)
                  found(performance.now())
                } else waiters.push(check)
              }
              check()
            }),
          close: () => {
            req.destroy()
            agent.destroy()
          },
        })
      })
      req.on("error", reject)
      req.end()
    },
  )

/** SIGNET_DATABASE_POOL of the PostgreSQL run: 200 parallel creations share two connections per worker. */
const POOL = 2

describe.each(STORAGES)("two workers on %s", (storageName, postgresUrl) => {
  let server: ServerProcess
  let admin: Engine
  let schema: string | undefined
  let api: string
  let client: SignetClient
  const passkey = { current: undefined as SoftwarePasskey | undefined }

  beforeAll(async () => {
    // PostgreSQL: a fresh schema, migrated by the administering engine; the server reaches it through its search path.
    schema = postgresUrl === undefined ? undefined : freshSchemaName()
    const pgStorage = postgresUrl === undefined ? undefined : StoragePostgres({ connectionString: postgresUrl, schema: schema! })
    // Its application name tells the server's connections apart in pg_stat_activity.
    const pgDatabase =
      postgresUrl === undefined
        ? undefined
        : `${postgresUrl}${postgresUrl.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}&application_name=${schema}`
    // One master key for the administering engine and the server: whichever makes the engine's keys first seals them.
    const masterKey = randomBytes(32)
    const settings = { environment: "sandbox", basePath: "/api", accessTokenTtlSeconds: 3600, ceremonyTtlSeconds: 300, sessionTtlSeconds: 3600 } as const
    if (pgStorage !== undefined) {
      // Migrate before the workers start, so they find the schema ready.
      admin = await makeEngine({
        storage: pgStorage,
        masterKey,
        logLevel: LogLevel.None,
        deliveries: { worker: false },
        housekeeping: false,
        settings: { ...settings, publicOrigin: "http://localhost" },
      })
    }
    server = await spawnServer({
      SIGNET_ENVIRONMENT: "sandbox",
      SIGNET_WORKERS: "2",
      SIGNET_SHUTDOWN_GRACE_MS: "5000",
      SIGNET_MASTER_KEY: masterKey.toString("hex"),
      ...(pgDatabase === undefined ? {} : { SIGNET_DATABASE: pgDatabase, SIGNET_DATABASE_POOL: String(POOL) }),
    })
    if (pgStorage === undefined) {
      // Administration in process on the same database (the admin CLI's way), without a delivery worker.
      admin = await makeEngine({
        ...storageFor(server.database),
        masterKey,
        logLevel: LogLevel.None,
        deliveries: { worker: false },
        housekeeping: false,
        settings: { ...settings, publicOrigin: server.origin },
      })
    }
    // The primary forks the other workers once worker 1 serves: wait until all of them do.
    for (let waited = 0; !server.stdout.some((l) => l.includes('"message":"workers serving"')); waited += 50) {
      if (waited > 30_000) throw new Error("the workers did not all start within 30 s")
      await new Promise((r) => setTimeout(r, 50))
    }
    api = `${server.origin}/api`
    client = new SignetClient(api)
    // The sandbox workers print each code they "send" on the primary's stdout.
    client.mailbox = async (email) => {
      for (let tries = 0; tries < 60; tries++) {
        const code = server.stdout.findLast((l) => l.includes(`[sandbox mail] to ${email.toLowerCase()}:`))?.match(/code: (\d{8})/)?.[1]
        if (code !== undefined) return code
        await new Promise((r) => setTimeout(r, 50))
      }
      throw new Error(`no code for ${email} in the server's output`)
    }
    passkey.current = SoftwarePasskey.create({ origin: server.origin })
    await enrol(client, passkey.current, { email: `workers-${storageName.toLowerCase()}@example.com` })
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await admin?.dispose()
    if (postgresUrl !== undefined && schema !== undefined) await dropSchema(postgresUrl, schema)
  })

  /** A token for a new approved RP whose daily allowance is `signaturesPerDay`. */
  const tokenForRp = async (signaturesPerDay: number) => {
    const rp = await admin.run(registerRelyingParty({ name: "Workers RP", status: "approved", signingOrigins: [server.origin], plan: "business" }))
    await admin.run(
      administerRelyingParty(rp.rp.clientId, {
        _tag: "SetCustomAllowance",
        allowance: { signaturesPerDay, documentsPerBatch: 10, requestsPerMinute: 10_000, highestLoa: "LOA-2" },
      }),
    )
    return (ok(await signIn(client, passkey.current!, { clientId: rp.rp.clientId })) as TokenAnswer).access_token
  }

  it("200 parallel creations over both workers against an allowance of 100 grant exactly 100", async () => {
    const token = await tokenForRp(100)
    // Each request on a connection of its own: the cluster hands new connections to the workers in
    // turn, so both take part (a pooled client may keep reusing connections that reached one worker).
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => {
        const agent = new Agent({ keepAlive: false })
        return exchange(
          agent,
          `${api}/v2/sign/single`,
          "POST",
          { documentHash: sha256(), credentialId: passkey.current!.credentialId },
          {
            authorization: `Bearer ${token}`,
          },
        ).then((r) => {
          agent.destroy()
          return { status: r.status, worker: r.headers[WORKER_HEADER] as string | undefined, body: r.text }
        })
      }),
    )
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((s) => s === 200).length).toBe(100)
    expect(statuses.filter((s) => s === 429).length).toBe(100)
    // Both workers took part: the race was between processes, not only within one.
    const byWorker = new Map<string | undefined, number>()
    for (const a of answers) byWorker.set(a.worker, (byWorker.get(a.worker) ?? 0) + 1)
    expect([...byWorker.keys()].sort()).toEqual(["1", "2"])
    if (postgresUrl !== undefined) {
      // SIGNET_DATABASE_POOL held under that load. Per worker: its storage pool, and the event bus's
      // 4 publishing connections and 1 listening one (docs/operations.md#workers). A pool of 10, the
      // library's default, took about 10 per worker here.
      const probe = new pg.Client({ connectionString: postgresUrl })
      await probe.connect()
      try {
        const { rows } = await probe.query<{ readonly n: string }>("select count(*) as n from pg_stat_activity where application_name = $1", [schema])
        expect(Number(rows[0]!.n)).toBeGreaterThan(0)
        expect(Number(rows[0]!.n)).toBeLessThanOrEqual(2 * (POOL + 5))
      } finally {
        await probe.end()
      }
    }
  }, 90_000)

  it("an event stream on one worker hears completions made on the other within a second", async () => {
    const token = await tokenForRp(1000)
    const stream = await openStream(`${api}/v2/events`, token)
    try {
      // A connection that reached the other worker: the cluster hands new connections out in turn.
      const otherWorker = async (): Promise<Agent> => {
        for (let tries = 0; tries < 20; tries++) {
          const agent = new Agent({ keepAlive: true, maxSockets: 1 })
          const probe = await exchange(agent, `${api}/health`, "GET")
          if (probe.headers[WORKER_HEADER] !== undefined && probe.headers[WORKER_HEADER] !== stream.worker) return agent
          agent.destroy()
        }
        throw new Error(`no connection reached a worker other than ${stream.worker}`)
      }
      await stream.waitFor("event: connected", 5000)
      const latencies: Array<number> = []
      // Three in a row, so a stream's three-second re-read cannot pass for the bus.
      for (let i = 0; i < 3; i++) {
        const other = await otherWorker()
        const created = await exchange(
          other,
          `${api}/v2/sign/single`,
          "POST",
          { documentHash: sha256(), credentialId: passkey.current!.credentialId },
          { authorization: `Bearer ${token}` },
        )
        expect(created.status).toBe(200)
        const pending = JSON.parse(created.text) as { requestId: string; challenge: string }
        const done = await exchange(other, `${api}/v2/sign/auth/${pending.requestId}`, "POST", {
          assertion: passkey.current!.assert({ challenge: pending.challenge }, { includeUserHandle: false }),
        })
        const completedAt = performance.now()
        other.destroy()
        expect(done.status).toBe(200)
        // The completion was made by the worker that does not hold the stream.
        expect(done.headers[WORKER_HEADER]).not.toBe(stream.worker)
        const heard = await stream.waitFor(`"id":"${pending.requestId}","status":"signed"`, 5000)
        latencies.push(Math.max(0, heard - completedAt))
      }
      console.log(`[workers] ${storageName}: cross-worker event latency after the completion's answer: ${latencies.map((l) => l.toFixed(0)).join(", ")} ms`)
      for (const latency of latencies) expect(latency).toBeLessThan(1000)
    } finally {
      stream.close()
    }
  }, 60_000)

  it("SIGTERM to the primary: both workers drain (the stream ends with its reconnect hint), exit 0", async () => {
    const token = await tokenForRp(1000)
    const stream = await openStream(`${api}/v2/events`, token)
    await stream.waitFor("event: connected", 5000)
    server.child.kill("SIGTERM")
    expect(await server.exited).toBe(0)
    await stream.ended
    expect(stream.text()).toMatch(/retry: \d+\n\n$/)
    const lines = server.stdout.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>)
    const stopped = lines.filter((l) => l["message"] === "stopped")
    expect(stopped.map((l) => l["worker"]).sort()).toEqual([1, 2])
    for (const l of stopped) expect(l).toMatchObject({ signal: "SIGTERM", requestsFinished: true, requestsCut: 0, workerStopped: true })
    expect(lines.find((l) => l["message"] === "workers stopped")).toMatchObject({ signal: "SIGTERM", workers: 2, exitCodes: [0, 0] })
  }, 60_000)
})
