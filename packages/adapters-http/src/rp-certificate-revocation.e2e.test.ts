/** An RP's contact account revokes a certificate of one of its users: the holder and OCSP see it revoked; nobody else can. */
import { administerRelyingParty, registerRelyingParty } from "@signet/core"
import { enrol, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { execFile } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

interface Certificate { serial: string; status: string; revokedAt: string | null; revocationReason: string | null; pem: string; chainPem: Array<string> }

describe("revocation by the RP contact account", () => {
  let env: RunningEngine
  let rpB: string
  const passkeys: Record<string, SoftwarePasskey> = {}
  const tokens: Record<string, string> = {}
  const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

  beforeAll(async () => {
    env = await startEngine()
    const created = await env.engine.run(registerRelyingParty({
      name: "Other RP", status: "approved", signingOrigins: [env.origin], maxLoa: "LOA-4", plan: "business",
    }))
    rpB = created.rp.clientId
    const ids: Record<string, string> = {}
    for (const who of ["holder", "batcher", "otherHolder", "contactA", "contactB", "stranger"]) {
      passkeys[who] = SoftwarePasskey.create({ origin: env.origin })
      ids[who] = (await enrol(env.client, passkeys[who], { email: `${who.toLowerCase()}@example.com`, displayName: who })).userId
    }
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId: ids["contactA"]! }))
    await env.engine.run(administerRelyingParty(rpB, { _tag: "SetContact", userId: ids["contactB"]! }))
    for (const who of Object.keys(passkeys)) {
      const clientId = who === "otherHolder" ? rpB : env.rp.clientId
      tokens[who] = (ok(await signIn(env.client, passkeys[who]!, { clientId })) as TokenAnswer).access_token
    }
  })
  afterAll(async () => env?.stop())

  const as = (who: string) => ({ authorization: `Bearer ${tokens[who]}` })
  const signSingle = async (who: string) => {
    const pending = ok(await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
      headers: as(who), body: { documentHash: sha256(randomBytes(16)), credentialId: passkeys[who]!.credentialId },
    }))
    ok(await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
      body: { assertion: passkeys[who]!.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
    }))
  }
  const certificates = async (who: string) => ok(await env.client.raw<Array<Certificate>>("GET", "/v2/certificates", { headers: as(who) }))
  const revoke = (who: string, clientId: string, serial: string, reason = "affiliationChanged") =>
    env.client.raw<Certificate>("POST", `/v2/relying-parties/${clientId}/certificates/${serial}/revoke`, { headers: as(who), body: { reason } })

  it("the contact revokes its user's certificate: the holder and openssl ocsp see it revoked with the reason; it never signs again", async () => {
    await signSingle("holder")
    const [cert] = await certificates("holder")
    const revoked = ok(await revoke("contactA", env.rp.clientId, cert!.serial.toUpperCase()))
    expect(revoked).toMatchObject({ serial: cert!.serial, status: "revoked", revocationReason: "affiliationChanged" })
    expect(ok(await env.client.raw<Certificate>("GET", `/v2/certificates/${cert!.serial}`, { headers: as("holder") })))
      .toMatchObject({ status: "revoked", revocationReason: "affiliationChanged" })

    const dir = mkdtempSync(join(tmpdir(), "signet-rp-revoke-"))
    writeFileSync(join(dir, "signer.pem"), cert!.pem)
    writeFileSync(join(dir, "issuing.pem"), cert!.chainPem[0]!)
    writeFileSync(join(dir, "root.pem"), ok(await env.client.raw<{ root: { pem: string } }>("GET", "/v2/ca")).root.pem)
    // Asynchronous: openssl calls back into this process's server, which must keep running.
    const answer = await new Promise<string>((resolve) => {
      execFile("openssl", ["ocsp", "-issuer", join(dir, "issuing.pem"), "-cert", join(dir, "signer.pem"), "-url", `${env.client.baseUrl}/v2/ocsp`,
        "-CAfile", join(dir, "root.pem"), "-VAfile", join(dir, "issuing.pem")], { timeout: 20_000 }, (_e, stdout, stderr) => resolve(`${stdout}${stderr}`))
    })
    expect(answer).toContain("Response verify OK")
    expect(answer).toMatch(/signer\.pem: revoked/)
    expect(answer).toMatch(/Reason: affiliationChanged/)

    await signSingle("holder")
    const after = await certificates("holder")
    expect(after.map((c) => c.status)).toEqual(["valid", "revoked"])
    expect(after[0]!.serial).not.toBe(cert!.serial)
  })

  it("a certificate that signed a batch of the RP is its user's too", async () => {
    const documents = [{ id: "a", hash: sha256(randomBytes(4)), hash_algo: "2.16.840.1.101.3.4.2.1" }]
    const batch = ok(await env.client.raw<{ batchId: string; challenge: string }>("POST", "/v2/sign/batch", {
      headers: as("batcher"), body: { credentialId: passkeys["batcher"]!.credentialId, documents },
    }))
    ok(await env.client.raw("POST", `/v2/sign/batch/${batch.batchId}/auth`, {
      body: { assertion: passkeys["batcher"]!.assert({ challenge: batch.challenge }, { includeUserHandle: false }) },
    }))
    const [cert] = await certificates("batcher")
    expect(await revoke("contactB", rpB, cert!.serial)).toMatchObject({ status: 404, body: { error: "Certificate not found" } })
    expect(ok(await revoke("contactA", env.rp.clientId, cert!.serial, "privilegeWithdrawn"))).toMatchObject({ status: "revoked", revocationReason: "privilegeWithdrawn" })
  })

  it("refuses another RP's contact, an unrelated user, the holder, and a certificate that never signed for the RP", async () => {
    await signSingle("holder")
    const [cert] = await certificates("holder")
    expect(cert!.status).toBe("valid")
    // another RP's contact: its own RP has no such user; RP A is not theirs
    expect(await revoke("contactB", rpB, cert!.serial)).toMatchObject({ status: 404, body: { error: "Certificate not found" } })
    expect(await revoke("contactB", env.rp.clientId, cert!.serial)).toMatchObject({ status: 404, body: { error: `RP ${env.rp.clientId} not found` } })
    expect(await revoke("stranger", env.rp.clientId, cert!.serial)).toMatchObject({ status: 404, body: { error: `RP ${env.rp.clientId} not found` } })
    expect(await revoke("holder", env.rp.clientId, cert!.serial)).toMatchObject({ status: 404, body: { error: `RP ${env.rp.clientId} not found` } })
    expect(await revoke("contactA", env.rp.clientId, cert!.serial, "because"))
      .toMatchObject({ status: 400, body: { error: "reason must be one of unspecified, keyCompromise, affiliationChanged, superseded, cessationOfOperation, privilegeWithdrawn" } })
    // a user who signed only for RP B is not RP A's
    await signSingle("otherHolder")
    const [foreign] = await certificates("otherHolder")
    expect(await revoke("contactA", env.rp.clientId, foreign!.serial)).toMatchObject({ status: 404, body: { error: "Certificate not found" } })
    expect(await revoke("contactA", env.rp.clientId, "00ff")).toMatchObject({ status: 404, body: { error: "Certificate not found" } })
    expect(await env.client.raw("POST", `/v2/relying-parties/${env.rp.clientId}/certificates/${cert!.serial}/revoke`, { body: { reason: "unspecified" } }))
      .toMatchObject({ status: 401 })
    expect((await certificates("holder"))[0]).toMatchObject({ serial: cert!.serial, status: "valid" })
    expect((await certificates("otherHolder"))[0]!.status).toBe("valid")
  })
})
