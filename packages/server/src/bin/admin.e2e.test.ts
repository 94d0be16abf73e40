/** The admin CLI and the server binary, run as a user runs them. */
import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { bytesSource, dssContents, scanPdfSignatures, toPem } from "@signet/core"
import { pdfsig, samplePdf } from "@signet/testkit/pdf"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { startExternalProvider } from "../../../adapters-http/src/test-support/external-provider.ts"

const run = promisify(execFile)
// The built CLI (vitest's global setup builds it), run with node as `pnpm admin` runs it.
const node = process.execPath
const bin = (name: string) => new URL(`../../dist/bin/${name}.js`, import.meta.url).pathname
const env = {
  ...process.env,
  SIGNET_DATABASE: join(mkdtempSync(join(tmpdir(), "signet-cli-")), "cli.db"),
  SIGNET_MASTER_KEY: "cd".repeat(32),
  SIGNET_ENVIRONMENT: "sandbox",
}
const admin = async (...args: Array<string>) => JSON.parse((await run(node, [bin("admin"), ...args], { env })).stdout) as Record<string, unknown>

describe("admin CLI", () => {
  it("creates an RP, shows its secrets once, and administers it", async () => {
    const created = await admin("rp", "create", "--name", "Acme", "--origin", "https://app.acme.example", "--plan", "business", "--max-loa", "LOA-4")
    expect(created).toMatchObject({ name: "Acme", status: "pending", plan: "business", maxLoa: "LOA-4", signingOrigins: ["https://app.acme.example"] })
    expect(created["clientSecret"]).toMatch(/^sk_sbx_/)
    expect(created["sscSecret"]).toMatch(/^ssc_sbx_/)
    expect(created).not.toHaveProperty("clientSecretHash")
    const id = created["clientId"] as string
    expect(await admin("rp", "approve", id)).toMatchObject({ status: "approved" })
    expect(await admin("rp", "set-kyc-verified", id, "true")).toMatchObject({ kycVerified: true })
    expect(created).toMatchObject({ idTokenSignedResponseAlg: "RS256" })
    expect(await admin("rp", "set-id-token-alg", id, "ES256")).toMatchObject({ idTokenSignedResponseAlg: "ES256" })
    expect(await admin("rp", "suspend", id)).toMatchObject({ status: "suspended" })
    const rotated = await admin("rp", "rotate-secrets", id, "ssc")
    expect(rotated["sscSecret"]).toMatch(/^ssc_sbx_/)
    expect(rotated).not.toHaveProperty("clientSecret")
    const shown = await admin("rp", "show", id)
    expect(shown).toMatchObject({ clientId: id, status: "suspended", kycVerified: true })
    expect(shown).not.toHaveProperty("sscSecret")
    expect(await admin("rp", "kyc", id, "on", "--scope", "shared")).toMatchObject({ clientId: id, enabled: true, identityScope: "shared" })
  }, 120_000)

  it("a refused move or an unknown RP is a clear error with exit code 1", async () => {
    const created = await admin("rp", "create", "--name", "Pending Co")
    await expect(run(node, [bin("admin"), "rp", "suspend", created["clientId"] as string], { env })).rejects.toMatchObject({
      code: 1,
      stderr: "signet admin: RP in status pending cannot be suspended\n",
    })
    await expect(run(node, [bin("admin"), "rp", "show", "rp_sbx_nobody"], { env })).rejects.toMatchObject({
      code: 1,
      stderr: "signet admin: RP rp_sbx_nobody not found\n",
    })
    await expect(run(node, [bin("admin"), "rp", "set-id-token-alg", created["clientId"] as string, "HS256"], { env })).rejects.toMatchObject({ code: 1 })
    await expect(run(node, [bin("admin"), "cert", "revoke", "0abc", "keyCompromise"], { env })).rejects.toMatchObject({
      code: 1,
      stderr: "signet admin: Certificate not found\n",
    })
  }, 60_000)
})

describe("admin CLI for the RP platform", () => {
  it("makes an administrator token, records an organisation check and rotates with or without grace", async () => {
    const { adminToken } = await admin("token")
    expect(adminToken).toMatch(/^adm_[A-Za-z0-9_-]{43}$/)
    expect((await admin("token"))["adminToken"]).not.toBe(adminToken)
    const id = (await admin("rp", "create", "--name", "Org Co", "--approve"))["clientId"] as string
    const checked = await admin(
      "rp",
      "org-check",
      id,
      "verified",
      "--legal-name",
      "Org Co Ltd",
      "--registration-number",
      "PVT-1",
      "--country",
      "ke",
      "--document",
      "certificate_of_incorporation=CI/1",
      "--checked-by",
      "Ops",
    )
    expect(checked).toMatchObject({
      kycVerified: true,
      check: { status: "verified", country: "KE", checkedBy: "Ops", documents: [{ kind: "certificate_of_incorporation", reference: "CI/1" }] },
    })
    const graced = await admin("rp", "rotate-secrets", id, "ssc")
    expect(Date.parse(graced["previousValidUntil"] as string) - Date.now()).toBeGreaterThan(23 * 3600_000)
    expect(await admin("rp", "rotate-secrets", id, "ssc", "--no-grace")).toMatchObject({ previousValidUntil: null, previousSecretsValidUntil: { ssc: null } })
  }, 90_000)
})

describe("admin CLI: identity providers", () => {
  it("adds an engine-wide provider after real discovery (secret from the environment, never printed), lists and removes it", async () => {
    const op = await startExternalProvider("http://localhost:3000/api/idp/callback", {})
    try {
      const loopback = { ...env, SIGNET_WEBHOOKS_ALLOW_LOOPBACK: "true", SIGNET_IDP_CLIENT_SECRET: op.clientSecret }
      const idp = async (...args: Array<string>) => JSON.parse((await run(node, [bin("admin"), "idp", ...args], { env: loopback })).stdout) as unknown
      const added = (await idp("add", "--issuer", op.issuer, "--client-id", op.clientId, "--name", "Example ID", "--scope", "email")) as Record<string, unknown>
      expect(added).toMatchObject({ issuer: op.issuer, clientId: op.clientId, name: "Example ID", scopes: ["openid", "email"], ownerClientId: null })
      expect(JSON.stringify(added)).not.toContain(op.clientSecret)
      expect(await idp("list")).toEqual([added])
      await expect(
        run(node, [bin("admin"), "idp", "add", "--issuer", `${op.issuer}/other`, "--client-id", "x", "--name", "Wrong"], { env: loopback }),
      ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/^signet admin: Identity provider unavailable: .*answered 404/) })
      expect(await idp("remove", added["id"] as string)).toEqual({ removed: true })
      expect(await idp("list")).toEqual([])
    } finally {
      await op.stop()
    }
  }, 240_000)
})

describe("server binary", () => {
  it("refuses to start without a master key outside demo mode", async () => {
    const { SIGNET_MASTER_KEY: _, ...noKey } = env
    await expect(run(node, [bin("server")], { env: { ...noKey, SIGNET_PORT: "0" } })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^signet: SIGNET_MASTER_KEY is not set/),
    })
  }, 60_000)
})

describe("admin CLI: PDF archive renewal", () => {
  it("pdf timestamp: archive renewal of a PDF twice; both document timestamps verify with openssl ts against the root kept in /DSS", async () => {
    const dir = mkdtempSync(join(tmpdir(), "signet-cli-pdf-"))
    const input = join(dir, "in.pdf")
    writeFileSync(input, await samplePdf({ xrefStream: true }))
    expect(await admin("pdf", "timestamp", input, join(dir, "once.pdf"))).toMatchObject({ output: join(dir, "once.pdf") })
    await admin("pdf", "timestamp", join(dir, "once.pdf"), join(dir, "twice.pdf"))
    const twice = new Uint8Array(readFileSync(join(dir, "twice.pdf")))
    const listed = await pdfsig(join(dir, "twice.pdf"))
    expect(listed.signatures.map((s) => [s.field, s.signer, s.wholeDocument])).toEqual([
      ["Signature1", "Signet Sandbox Timestamping Authority", false],
      ["Signature2", "Signet Sandbox Timestamping Authority", true],
    ])
    // The renewal put the first timestamp's chain, root included, into /DSS: each certificate once.
    const dss = await Effect.runPromise(dssContents(bytesSource(twice)))
    const hex = dss.certificates.map((c) => Buffer.from(c).toString("hex"))
    expect(new Set(hex).size).toBe(hex.length)
    const chain = join(dir, "chain.pem")
    writeFileSync(chain, dss.certificates.map((c) => toPem(c)).join(""))
    const scan = await Effect.runPromise(scanPdfSignatures(bytesSource(twice)))
    for (const [i, stamp] of scan.signatures.entries()) {
      const [, a, b, c] = stamp.byteRange as [number, number, number, number]
      writeFileSync(join(dir, `ranges${i}.bin`), Buffer.concat([twice.subarray(0, a), twice.subarray(b, b + c)]))
      writeFileSync(join(dir, `token${i}.der`), stamp.cms!)
      const verified = await run("openssl", [
        "ts",
        "-verify",
        "-data",
        join(dir, `ranges${i}.bin`),
        "-in",
        join(dir, `token${i}.der`),
        "-token_in",
        "-CAfile",
        chain,
      ])
      expect(verified.stdout).toContain("Verification: OK")
    }
  }, 120_000)
})
