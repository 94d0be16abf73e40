/**
 * An RP's contact account revokes a certificate of one of its users: the holder and OCSP see it
 * revoked; nobody else can; a certificate that also signed for another RP is not one RP's to
 * revoke (issue 13 item 10); a timestamped signature made before a revocation stays valid.
 */
import { administerRelyingParty, registerRelyingParty } from "@signet/core"
import { enrol, ok, signIn, signInAtConsole, SoftwarePasskey, stepUp, type TokenAnswer } from "@signet/testkit"
import { execFile } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

interface Certificate {
  serial: string
  status: string
  revokedAt: string | null
  revocationReason: string | null
  pem: string
  chainPem: Array<string>
}

describe("revocation by the RP contact account", () => {
  let env: RunningEngine
  let rpB: string
  const passkeys: Record<string, SoftwarePasskey> = {}
  const tokens: Record<string, string> = {}
  // tokens issued to Signet's console (scope `certificates`): how holders read their certificates
  const consoleTokens: Record<string, string> = {}
  const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

  beforeAll(async () => {
    env = await startEngine()
    const created = await env.engine.run(
      registerRelyingParty({
        name: "Other RP",
        status: "approved",
        signingOrigins: [env.origin],
        maxLoa: "LOA-4",
        plan: "business",
      }),
    )
    rpB = created.rp.clientId
    const ids: Record<string, string> = {}
    for (const who of ["holder", "batcher", "otherHolder", "contactA", "contactB", "stranger"]) {
      passkeys[who] = SoftwarePasskey.create({ origin: env.origin })
      ids[who] = (await enrol(env.client, passkeys[who], { email: `${who.toLowerCase()}@example.com`, displayName: who })).userId
    }
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId: ids["contactA"]! }))
    await env.engine.run(administerRelyingParty(rpB, { _tag: "SetContact", userId: ids["contactB"]! }))
    // each contact's token is issued to its own RP (RP administration needs that binding)
    for (const who of Object.keys(passkeys)) {
      const clientId = who === "otherHolder" || who === "contactB" ? rpB : env.rp.clientId
      tokens[who] = (ok(await signIn(env.client, passkeys[who]!, { clientId })) as TokenAnswer).access_token
      consoleTokens[who] = await signInAtConsole(env.client, passkeys[who]!)
    }
  })
  afterAll(async () => env?.stop())

  const as = (who: string) => ({ authorization: `Bearer ${tokens[who]}` })
  const signSingle = async (who: string, token = tokens[who]!, signatureFormat?: string) => {
    const documentHash = sha256(randomBytes(16))
    const pending = ok(
      await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        headers: { authorization: `Bearer ${token}` },
        body: { documentHash, credentialId: passkeys[who]!.credentialId, ...(signatureFormat ? { signatureFormat } : {}) },
      }),
    )
    const done = ok(
      await env.client.raw<{ signature: string }>("POST", `/v2/sign/auth/${pending.requestId}`, {
        body: { assertion: passkeys[who]!.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
      }),
    )
    return { documentHash, signature: done.signature }
  }
  const certificates = async (who: string) =>
    ok(await env.client.raw<Array<Certificate>>("GET", "/v2/certificates", { headers: { authorization: `Bearer ${consoleTokens[who]}` } }))
  // Every caller brings a fresh passkey approval of its own, so a refusal is the model's, not a missing step-up.
  const revoke = async (who: string, clientId: string, serial: string, reason = "affiliationChanged") =>
    env.client.raw<Certificate>("POST", `/v2/relying-parties/${clientId}/certificates/${serial}/revoke`, {
      headers: { ...as(who), "signet-step-up": await stepUp(env.client, passkeys[who]!, tokens[who]!, "revoke-certificate") },
      body: { reason },
    })

  it("the contact revokes its user's certificate: the holder and openssl ocsp see it revoked with the reason; it never signs again", async () => {
    await signSingle("holder")
    const [cert] = await certificates("holder")
    const revoked = ok(await revoke("contactA", env.rp.clientId, cert!.serial.toUpperCase()))
    expect(revoked).toMatchObject({ serial: cert!.serial, status: "revoked", revocationReason: "affiliationChanged" })
    expect(
      ok(await env.client.raw<Certificate>("GET", `/v2/certificates/${cert!.serial}`, { headers: { authorization: `Bearer ${consoleTokens["holder"]}` } })),
    ).toMatchObject({ status: "revoked", revocationReason: "affiliationChanged" })

    const dir = mkdtempSync(join(tmpdir(), "signet-rp-revoke-"))
    writeFileSync(join(dir, "signer.pem"), cert!.pem)
    writeFileSync(join(dir, "issuing.pem"), cert!.chainPem[0]!)
    writeFileSync(join(dir, "root.pem"), ok(await env.client.raw<{ root: { pem: string } }>("GET", "/v2/ca")).root.pem)
    // Asynchronous: openssl calls back into this process's server, which must keep running.
    const answer = await new Promise<string>((resolve) => {
      execFile(
        "openssl",
        [
          "ocsp",
          "-issuer",
          join(dir, "issuing.pem"),
          "-cert",
          join(dir, "signer.pem"),
          "-url",
          `${env.client.baseUrl}/v2/ocsp`,
          "-CAfile",
          join(dir, "root.pem"),
          "-VAfile",
          join(dir, "issuing.pem"),
        ],
        { timeout: 20_000 },
        (_e, stdout, stderr) => resolve(`${stdout}${stderr}`),
      )
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
    const batch = ok(
      await env.client.raw<{ batchId: string; challenge: string }>("POST", "/v2/sign/batch", {
        headers: as("batcher"),
        body: { credentialId: passkeys["batcher"]!.credentialId, documents },
      }),
    )
    ok(
      await env.client.raw("POST", `/v2/sign/batch/${batch.batchId}/auth`, {
        body: { assertion: passkeys["batcher"]!.assert({ challenge: batch.challenge }, { includeUserHandle: false }) },
      }),
    )
    const [cert] = await certificates("batcher")
    expect(await revoke("contactB", rpB, cert!.serial)).toMatchObject({ status: 404, body: { error: "Certificate not found" } })
    expect(ok(await revoke("contactA", env.rp.clientId, cert!.serial, "privilegeWithdrawn"))).toMatchObject({
      status: "revoked",
      revocationReason: "privilegeWithdrawn",
    })
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
    expect(await revoke("contactA", env.rp.clientId, cert!.serial, "because")).toMatchObject({
      status: 400,
      body: { error: "reason must be one of unspecified, keyCompromise, affiliationChanged, superseded, cessationOfOperation, privilegeWithdrawn" },
    })
    // a user who signed only for RP B is not RP A's
    await signSingle("otherHolder")
    const [foreign] = await certificates("otherHolder")
    expect(await revoke("contactA", env.rp.clientId, foreign!.serial)).toMatchObject({ status: 404, body: { error: "Certificate not found" } })
    expect(await revoke("contactA", env.rp.clientId, "00ff")).toMatchObject({ status: 404, body: { error: "Certificate not found" } })
    expect(
      await env.client.raw("POST", `/v2/relying-parties/${env.rp.clientId}/certificates/${cert!.serial}/revoke`, { body: { reason: "unspecified" } }),
    ).toMatchObject({ status: 401 })
    expect((await certificates("holder"))[0]).toMatchObject({ serial: cert!.serial, status: "valid" })
    expect((await certificates("otherHolder"))[0]!.status).toBe("valid")
  })

  it("without a fresh passkey approval the contact cannot revoke (403), and a proof is spent once", async () => {
    await signSingle("holder")
    const [cert] = await certificates("holder")
    const url = `/v2/relying-parties/${env.rp.clientId}/certificates/${cert!.serial}/revoke`
    expect(await env.client.raw(url.startsWith("/") ? "POST" : "POST", url, { headers: as("contactA"), body: { reason: "unspecified" } })).toMatchObject({
      status: 403,
      body: { error: "Fresh passkey approval required: revoke-certificate" },
    })
    // a proof for another action, or another user's proof, does not do
    const decryptProof = await stepUp(env.client, passkeys["contactA"]!, tokens["contactA"]!, "decrypt")
    expect(
      await env.client.raw("POST", url, { headers: { ...as("contactA"), "signet-step-up": decryptProof }, body: { reason: "unspecified" } }),
    ).toMatchObject({ status: 403 })
    const strangersProof = await stepUp(env.client, passkeys["stranger"]!, tokens["stranger"]!, "revoke-certificate")
    expect(
      await env.client.raw("POST", url, { headers: { ...as("contactA"), "signet-step-up": strangersProof }, body: { reason: "unspecified" } }),
    ).toMatchObject({ status: 403 })
    expect((await certificates("holder"))[0]).toMatchObject({ serial: cert!.serial, status: "valid" })
    const proof = await stepUp(env.client, passkeys["contactA"]!, tokens["contactA"]!, "revoke-certificate")
    expect(await env.client.raw("POST", url, { headers: { ...as("contactA"), "signet-step-up": proof }, body: { reason: "unspecified" } })).toMatchObject({
      status: 200,
      body: { status: "revoked" },
    })
    expect(await env.client.raw("POST", url, { headers: { ...as("contactA"), "signet-step-up": proof }, body: { reason: "unspecified" } })).toMatchObject({
      status: 403,
      body: { error: "Fresh passkey approval required: revoke-certificate" },
    })
  })

  it("issue 13 item 10: a certificate that also signed for another RP is not one RP's contact's to revoke; signatures for the other RP stay valid", async () => {
    // one user, one certificate, signing for RP A and for RP B (a token issued to each)
    passkeys["shared"] = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, passkeys["shared"], { email: "shared@example.com", displayName: "Shared Signer" })
    const atA = (ok(await signIn(env.client, passkeys["shared"], { clientId: env.rp.clientId })) as TokenAnswer).access_token
    const atB = (ok(await signIn(env.client, passkeys["shared"], { clientId: rpB })) as TokenAnswer).access_token
    consoleTokens["shared"] = await signInAtConsole(env.client, passkeys["shared"])
    await signSingle("shared", atA)
    const forB = await signSingle("shared", atB, "CAdES-BASELINE-T")
    const [cert] = await certificates("shared")
    expect((await certificates("shared")).length).toBe(1)
    // RP A's contact may not cut off RP B: 403, nothing revoked
    expect(await revoke("contactA", env.rp.clientId, cert!.serial)).toMatchObject({
      status: 403,
      body: { error: "Certificate also signed for other relying parties; only its holder or an administrator can revoke it" },
    })
    expect((await certificates("shared"))[0]).toMatchObject({ serial: cert!.serial, status: "valid" })
    expect(await env.client.raw("POST", "/v2/validate", { body: { signature: forB.signature, documentHash: forB.documentHash } })).toMatchObject({
      status: 200,
      body: { valid: true, revocation: { status: "valid", signedBeforeRevocation: null } },
    })

    // the holder revokes it (with a step-up): B's timestamped signature, proven before the revocation, stays valid
    const untimed = await signSingle("shared", atB)
    await new Promise((resolve) => setTimeout(resolve, 1100)) // the TSA's time has one-second resolution
    const holderProof = await stepUp(env.client, passkeys["shared"], consoleTokens["shared"], "revoke-certificate")
    expect(
      await env.client.raw("POST", `/v2/certificates/${cert!.serial}/revoke`, {
        headers: { authorization: `Bearer ${consoleTokens["shared"]}`, "signet-step-up": holderProof },
        body: { reason: "superseded" },
      }),
    ).toMatchObject({ status: 200, body: { status: "revoked" } })
    const timed = ok(
      await env.client.raw<{ valid: boolean; revocation: Record<string, unknown>; problems: Array<string> }>("POST", "/v2/validate", {
        body: { signature: forB.signature, documentHash: forB.documentHash },
      }),
    )
    expect(timed).toMatchObject({ valid: true, revocation: { status: "revoked", signedBeforeRevocation: true } })
    // without a timestamp nothing proves when it was made: not valid (EU DSS: INDETERMINATE / REVOKED_NO_POE), whatever signing time it claims
    const claimed = ok(
      await env.client.raw<{ valid: boolean; revocation: Record<string, unknown>; problems: Array<string> }>("POST", "/v2/validate", {
        body: { signature: untimed.signature, documentHash: untimed.documentHash },
      }),
    )
    expect(claimed).toMatchObject({ valid: false, revocation: { status: "revoked", signedBeforeRevocation: false } })
    expect(claimed.problems).toContain("the signer's certificate is revoked and no timestamp proves the signature existed before the revocation")
  })
})
