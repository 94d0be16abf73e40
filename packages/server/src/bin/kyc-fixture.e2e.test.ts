/** `pnpm admin kyc-fixture`: the files it writes give, on a sandbox engine over HTTP, the outcome its index names. */
import { configureKyc } from "@signet/core"
import { ManualClock } from "@signet/testkit/models"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "../../../adapters-http/src/test-support/running-engine.ts"

const run = promisify(execFile)
// The built CLI (vitest's global setup builds it), run with node as `pnpm admin` runs it.
const admin = new URL("../../dist/bin/admin.js", import.meta.url).pathname

interface Entry {
  readonly file: string
  readonly kind: "document" | "selfie"
  readonly status: string
  readonly reasons: ReadonlyArray<string>
}

describe("pnpm admin kyc-fixture", () => {
  let env: RunningEngine
  // The KYC calls are limited per minute: each customer below starts in a fresh window.
  const clock = new ManualClock(Date.now())
  let dir: string
  let files: ReadonlyArray<Entry>
  beforeAll(async () => {
    dir = join(mkdtempSync(join(tmpdir(), "signet-fixtures-")), "kyc-fixtures")
    const printed = JSON.parse((await run(process.execPath, [admin, "kyc-fixture", dir])).stdout) as { dir: string; files: ReadonlyArray<Entry> }
    expect(printed.dir).toBe(dir)
    files = printed.files
    env = await startEngine({ clock })
    await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
  })
  afterAll(async () => env?.stop())

  let n = 0
  const basic = () => ({ authorization: `Basic ${btoa(`${env.rp.clientId}:${env.rp.clientSecret}`)}` })
  const post = async (path: string, body: unknown, headers: Record<string, string> = basic()) => {
    const answer = await env.client.raw<Record<string, unknown>>("POST", path, { body, headers })
    expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200)
    return answer.body
  }
  const image = (file: string) => readFileSync(join(dir, file)).toString("base64")
  const customer = async () => {
    clock.advance(61_000)
    const id = `fixture-${++n}@example.com`
    await post("/kyc/verifications", { customer_id: id, phone_number: `+25471200${String(1000 + n)}` })
    return id
  }

  it("writes a passport, an ID card and selfies for each outcome, with an index, as JPEGs carrying the sandbox marker", () => {
    const names = files.map((f) => f.file)
    expect(names).toEqual(expect.arrayContaining(["passport.jpg", "id-card.jpg", "selfie.jpg"]))
    expect(new Set(files.map((f) => f.status))).toEqual(new Set(["document_verified", "failed", "verified", "needs_review"]))
    expect(JSON.parse(readFileSync(join(dir, "fixtures.json"), "utf8"))).toHaveLength(files.length)
    for (const f of files) {
      const bytes = readFileSync(join(dir, f.file))
      expect([bytes[0], bytes[1]], f.file).toEqual([0xff, 0xd8])
      if (f.file !== "unreadable.jpg") expect(bytes.subarray(0, 2048).toString("latin1"), f.file).toContain("SIGNET-SANDBOX {")
    }
  })

  it("each document gives the status and reasons its index names", async () => {
    for (const f of files.filter((f) => f.kind === "document")) {
      const verdict = await post("/kyc/customers/document", { customer_id: await customer(), images: [image(f.file)] })
      expect({ file: f.file, status: verdict["status"], reasons: verdict["reasons"] }).toEqual({ file: f.file, status: f.status, reasons: f.reasons })
    }
  })

  it("each selfie, after passport.jpg, gives the status and reasons its index names", async () => {
    for (const f of files.filter((f) => f.kind === "selfie")) {
      const id = await customer()
      await post("/kyc/customers/document", { customer_id: id, images: [image("passport.jpg")] })
      const session = await post("/kyc/customers/liveness-session", { customer_id: id })
      const captured = await post("/kyc/faceapi", { frames: [image(f.file)] }, { authorization: `Bearer ${session["token"] as string}` })
      const verdict = await post("/kyc/customers/face", { customer_id: id, livenessTransactionId: captured["transactionId"] })
      expect({ file: f.file, status: verdict["status"], reasons: verdict["reasons"] }).toEqual({ file: f.file, status: f.status, reasons: f.reasons })
    }
  })
})
