/**
 * `pnpm admin backup` and `restore` as an operator runs them: a backup taken by the CLI while the
 * engine signs, restored into a fresh directory, holds every signature completed and every
 * webhook delivery queued before the backup began; a restore is refused while the database is open.
 */
import { administerRelyingParty, SigningRequests } from "@signet/core"
import { enrol, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { Effect, Option } from "effect"
import { execFile } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "../../../adapters-http/src/test-support/running-engine.ts"
import { storageFor } from "../storage.ts"

const run = promisify(execFile)
const bin = new URL("../../dist/bin/admin.js", import.meta.url).pathname
const masterKey = randomBytes(32)
const admin = (database: string, ...args: Array<string>) =>
  run(process.execPath, [bin, ...args], {
    env: { ...process.env, SIGNET_DATABASE: database, SIGNET_MASTER_KEY: masterKey.toString("hex"), SIGNET_ENVIRONMENT: "sandbox" },
  })

/** The stored status of a signing request (None: not there). */
const statusOf = (env: RunningEngine, id: string) =>
  env.engine.run(
    Effect.map(
      Effect.flatMap(SigningRequests, (r) => r.findById(id)),
      (found) => Option.getOrUndefined(found)?.status,
    ),
  )

const engines: Array<RunningEngine> = []
afterAll(async () => {
  for (const e of engines) await e.stop().catch(() => {})
})

describe("SQLite backup and restore (admin CLI)", () => {
  it("a backup taken under signing load restores into a fresh directory with everything completed before it began", async () => {
    const live = join(mkdtempSync(join(tmpdir(), "signet-live-")), "signet.db")
    const env = await startEngine({ storage: storageFor(live).storage, masterKey, deliveries: { allowLoopbackHttp: true, worker: false } })
    engines.push(env)
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    const { userId } = await enrol(env.client, passkey, { email: "operator@example.com" })
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId }))
    const token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    const auth = { authorization: `Bearer ${token}` }
    // Deliveries stay queued (no worker): each completion leaves an outbox row to find again.
    ok(
      await env.client.raw("POST", "/v2/webhooks/register", {
        headers: auth,
        body: { url: "http://127.0.0.1:9/hook", events: ["sign.complete"], secret: `whsec_${randomBytes(32).toString("base64")}` },
      }),
    )
    const completed: Array<string> = []
    let approvals: Promise<void> = Promise.resolve()
    const signOne = async () => {
      const pending = ok(
        await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
          headers: auth,
          body: { documentHash: createHash("sha256").update(randomBytes(8)).digest("hex"), credentialId: passkey.credentialId },
        }),
      )
      // One authenticator: its signature counter must reach the server in order, so approvals take turns.
      approvals = approvals.then(async () => {
        ok(await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, { body: { assertion: passkey.assert({ challenge: pending.challenge }) } }))
      })
      await approvals
      completed.push(pending.requestId)
    }
    for (let i = 0; i < 10; i++) await signOne()
    // Two clients keep signing while the CLI, another process, copies the database.
    let loading = true
    const lane = async () => {
      for (let i = 0; loading && i < 25; i++) await signOne()
    }
    const load = Promise.all([lane(), lane()])
    await new Promise((r) => setTimeout(r, 200))
    const signedBefore = [...completed]
    const deliveriesBefore = ok(await env.client.raw<Array<{ id: number; status: string }>>("GET", "/v2/deliveries", { headers: auth })).map((d) => d.id)
    const backupFile = join(mkdtempSync(join(tmpdir(), "signet-backup-")), "signet-backup.db")
    const taken = JSON.parse((await admin(live, "backup", backupFile)).stdout) as { backup: { file: string; bytes: number; schema: string } }
    loading = false
    await load
    expect(taken.backup).toMatchObject({ file: backupFile, schema: expect.stringMatching(/^\d{4}_/) })
    expect(taken.backup.bytes).toBeGreaterThan(0)
    expect(signedBefore.length).toBeGreaterThanOrEqual(10)
    // the engine kept signing while the copy was taken
    expect(completed.length).toBeGreaterThan(signedBefore.length)
    expect(deliveriesBefore.length).toBeGreaterThanOrEqual(signedBefore.length)

    // A second backup to the same name is refused: a backup never overwrites.
    await expect(admin(live, "backup", backupFile)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("never overwrites") })
    // The live database cannot be restored over while the engine has it open; it is left as it was.
    await expect(admin(live, "restore", backupFile)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("in use by another process") })
    expect(await statusOf(env, completed.at(-1)!)).toBe("completed")
    // A damaged backup is refused before anything is touched.
    const damaged = join(mkdtempSync(join(tmpdir(), "signet-damaged-")), "damaged.db")
    writeFileSync(damaged, randomBytes(8192))
    const fresh = join(mkdtempSync(join(tmpdir(), "signet-restored-")), "signet.db")
    await expect(admin(fresh, "restore", damaged)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("nothing was changed") })

    const restored = JSON.parse((await admin(fresh, "restore", backupFile)).stdout) as { restored: { file: string } }
    expect(restored.restored.file).toBe(fresh)
    await env.stop()
    // The restored engine answers at the same origin (its RP's signing origin and the token's issuer).
    const again = await startEngine({ storage: storageFor(fresh).storage, masterKey, rp: env.rp, publicOrigin: env.origin, deliveries: { worker: false } })
    engines.push(again)
    for (const id of signedBefore) expect(await statusOf(again, id), id).toBe("completed")
    const deliveriesAfter = ok(await again.client.raw<Array<{ id: number }>>("GET", "/v2/deliveries", { headers: auth })).map((d) => d.id)
    expect(deliveriesAfter).toEqual(expect.arrayContaining(deliveriesBefore))
    // And it signs: the keys sealed under the master key came back with it.
    const after = ok(
      await again.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        headers: auth,
        body: { documentHash: "ab".repeat(32), credentialId: passkey.credentialId },
      }),
    )
    ok(await again.client.raw("POST", `/v2/sign/auth/${after.requestId}`, { body: { assertion: passkey.assert({ challenge: after.challenge }) } }))
  }, 180_000)

  it("on PostgreSQL the CLI points to pg_dump instead", async () => {
    await expect(admin("postgres://postgres@127.0.0.1:5432/test", "backup", "/tmp/never.db")).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("pg_dump"),
    })
  })
})
