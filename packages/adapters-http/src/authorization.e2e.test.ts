/**
 * Issue 13 item 3 over HTTP: a user's token that RP Y obtained (client_id Y, scope `openid
 * basic`: the claims the code flow's token endpoint and passkey sign-in mint alike) let Y change
 * RP X's redirect URIs, rotate X's secret, decrypt the user's files, revoke the user's
 * certificates and read X's usage. Each attempt is replayed, even with a fresh passkey approval
 * of the user, and must be refused with nothing changed. Also: step-up proofs are bound to
 * user, client and action and used once; security events reach the audit table.
 */
import { administerRelyingParty, AuditLog, Certificates, RelyingParties, registerRelyingParty } from "@signet/core"
import { enrol, ok, signIn, signInAtConsole, SoftwarePasskey, stepUp, type TokenAnswer } from "@signet/testkit"
import { Effect, Option } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

describe("issue 13 item 3: a token issued to RP Y reaches neither RP X nor the user's files", () => {
  let env: RunningEngine
  let rpY: string
  let user: SoftwarePasskey, contactX: SoftwarePasskey
  let tokenAtY: string, userConsole: string, contactAtX: string
  let fileId: string, serial: string

  const bearer = (t: string, proof?: string) => ({ authorization: `Bearer ${t}`, ...(proof ? { "signet-step-up": proof } : {}) })
  const rpX = () => env.engine.run(Effect.flatMap(RelyingParties, (r) => r.findByClientId(env.rp.clientId)).pipe(Effect.map(Option.getOrThrow)))

  beforeAll(async () => {
    env = await startEngine()
    rpY = (await env.engine.run(registerRelyingParty({ name: "RP Y", status: "approved", signingOrigins: [env.origin], maxLoa: "LOA-4", plan: "business" }))).rp
      .clientId
    user = SoftwarePasskey.create({ origin: env.origin })
    contactX = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, user, { email: "user@example.com", displayName: "User" })
    const contactId = (await enrol(env.client, contactX, { email: "contact.x@example.com" })).userId
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId: contactId }))
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetRedirectUris", uris: ["https://x.example/cb"] }))
    tokenAtY = (ok(await signIn(env.client, user, { clientId: rpY })) as TokenAnswer).access_token
    contactAtX = (ok(await signIn(env.client, contactX, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    userConsole = await signInAtConsole(env.client, user)
    fileId = ok(
      await env.client.raw<{ id: string }>("POST", "/v2/files", {
        headers: bearer(userConsole),
        body: { name: "private.txt", content: Buffer.from("private").toString("base64") },
      }),
    ).id
    // the user signs once at Y: a signer certificate exists
    const pending = ok(
      await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        headers: bearer(tokenAtY),
        body: { documentHash: createHash("sha256").update(randomBytes(8)).digest("hex"), credentialId: user.credentialId },
      }),
    )
    ok(
      await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
        body: { assertion: user.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
      }),
    )
    serial = ok(await env.client.raw<Array<{ serial: string }>>("GET", "/v2/certificates", { headers: bearer(userConsole) }))[0]!.serial
  })
  afterAll(async () => env?.stop())

  it("Y cannot change X's redirect URIs, rotate X's secret (even with the user's fresh passkey approval) or read X's usage: 404, X unchanged", async () => {
    const before = await rpX()
    expect(
      await env.client.raw("PATCH", `/v2/relying-parties/${env.rp.clientId}`, {
        headers: bearer(tokenAtY),
        body: { redirectUris: ["https://attacker.example/cb"] },
      }),
    ).toMatchObject({ status: 404, body: { error: `RP ${env.rp.clientId} not found` } })
    const proof = await stepUp(env.client, user, tokenAtY, "rotate-secrets")
    expect(
      await env.client.raw("POST", `/v2/relying-parties/${env.rp.clientId}/rotate-secrets`, { headers: bearer(tokenAtY, proof), body: { which: "client" } }),
    ).toMatchObject({ status: 404 })
    for (const path of [`/rp/usage/${env.rp.clientId}`, `/rp/rate-limits/${env.rp.clientId}`, `/v2/relying-parties/${env.rp.clientId}`]) {
      expect((await env.client.raw("GET", path, { headers: bearer(tokenAtY) })).status, path).toBe(404)
    }
    expect(await env.client.raw("GET", "/v2/relying-parties", { headers: bearer(tokenAtY) })).toMatchObject({
      status: 403,
      body: { error: "This operation needs a token issued to the Signet console" },
    })
    expect(await env.client.raw("POST", "/v2/relying-parties", { headers: bearer(tokenAtY), body: { name: "Registered in the user's name" } })).toMatchObject({
      status: 403,
    })
    const after = await rpX()
    expect(after).toEqual(before)
  })

  it("even X's own contact with a token issued to Y gets nothing of X; with a token issued to X it rotates only after a step-up", async () => {
    const contactAtY = (ok(await signIn(env.client, contactX, { clientId: rpY })) as TokenAnswer).access_token
    expect((await env.client.raw("GET", `/rp/usage/${env.rp.clientId}`, { headers: bearer(contactAtY) })).status).toBe(404)
    expect((await env.client.raw("GET", `/rp/usage/${env.rp.clientId}`, { headers: bearer(contactAtX) })).status).toBe(200)
    expect(
      await env.client.raw("POST", `/v2/relying-parties/${env.rp.clientId}/rotate-secrets`, { headers: bearer(contactAtX), body: { which: "client" } }),
    ).toMatchObject({ status: 403, body: { error: "Fresh passkey approval required: rotate-secrets" } })
    // a proof taken through another client (the console) is not this token's
    const viaConsole = await stepUp(env.client, contactX, await signInAtConsole(env.client, contactX), "rotate-secrets")
    expect(
      (
        await env.client.raw("POST", `/v2/relying-parties/${env.rp.clientId}/rotate-secrets`, {
          headers: bearer(contactAtX, viaConsole),
          body: { which: "client" },
        })
      ).status,
    ).toBe(403)
    const rotated = await env.client.raw<{ clientSecret: string }>("POST", `/v2/relying-parties/${env.rp.clientId}/rotate-secrets`, {
      headers: bearer(contactAtX, await stepUp(env.client, contactX, contactAtX, "rotate-secrets")),
      body: { which: "client" },
    })
    expect(rotated.status).toBe(200)
    expect(rotated.body.clientSecret).toMatch(/^sk_sbx_/)
    const events = await env.engine.run(Effect.flatMap(AuditLog, (a) => a.recent(50)))
    expect(events.find((e) => e.action === "rp.secrets-rotated")).toMatchObject({
      subject: env.rp.clientId,
      actorClientId: env.rp.clientId,
      detail: { which: "client" },
    })
    expect(events.filter((e) => e.action === "step-up.approved").length).toBeGreaterThanOrEqual(2)
  })

  it("Y cannot decrypt, read or list the user's files, nor revoke the user's certificate, even with the user's fresh passkey approval", async () => {
    const decryptProof = await stepUp(env.client, user, tokenAtY, "decrypt")
    expect(await env.client.raw("POST", "/decrypt", { headers: bearer(tokenAtY, decryptProof), body: { fileId } })).toMatchObject({
      status: 403,
      body: { error: "Token lacks required scope: files" },
    })
    for (const path of ["/v2/files", `/v2/files/${fileId}`, "/v2/encryption-certificate", "/v2/certificates", `/v2/certificates/${serial}`]) {
      expect((await env.client.raw("GET", path, { headers: bearer(tokenAtY) })).status, path).toBe(403)
    }
    const revokeProof = await stepUp(env.client, user, tokenAtY, "revoke-certificate")
    expect(
      await env.client.raw("POST", `/v2/certificates/${serial}/revoke`, { headers: bearer(tokenAtY, revokeProof), body: { reason: "keyCompromise" } }),
    ).toMatchObject({ status: 403, body: { error: "Token lacks required scope: certificates" } })
    // nor as "RP Y's contact" of X's or Y's certificates: Y's user is not Y's contact
    expect(
      (
        await env.client.raw("POST", `/v2/relying-parties/${rpY}/certificates/${serial}/revoke`, {
          headers: bearer(tokenAtY, revokeProof),
          body: { reason: "keyCompromise" },
        })
      ).status,
    ).toBe(404)
    const stored = await env.engine.run(Effect.flatMap(Certificates, (c) => c.findBySerial(serial)).pipe(Effect.map(Option.getOrThrow)))
    expect(stored.status).toBe("valid")
  })

  it("the user through Signet's console decrypts only with a fresh approval of its own, once; a step-up ceremony of another user or client is refused", async () => {
    expect(await env.client.raw("POST", "/decrypt", { headers: bearer(userConsole), body: { fileId } })).toMatchObject({
      status: 403,
      body: { error: "Fresh passkey approval required: decrypt" },
    })
    // a proof Y's token obtained does not work for the console's token (bound to the client)
    const yProof = await stepUp(env.client, user, tokenAtY, "decrypt")
    expect((await env.client.raw("POST", "/decrypt", { headers: bearer(userConsole, yProof), body: { fileId } })).status).toBe(403)
    const proof = await stepUp(env.client, user, userConsole, "decrypt")
    expect(await env.client.raw("POST", "/decrypt", { headers: bearer(userConsole, proof), body: { fileId } })).toMatchObject({
      status: 200,
      body: { content: Buffer.from("private").toString("base64") },
    })
    expect((await env.client.raw("POST", "/decrypt", { headers: bearer(userConsole, proof), body: { fileId } })).status).toBe(403)
    // another user's token cannot finish this user's step-up ceremony
    const started = ok(
      await env.client.raw<{ stepUpId: string; options: { challenge: string } }>("POST", "/v2/step-up/challenge", {
        headers: bearer(userConsole),
        body: { action: "decrypt" },
      }),
    )
    expect(
      await env.client.raw("POST", "/v2/step-up/verify", {
        headers: bearer(contactAtX),
        body: { stepUpId: started.stepUpId, assertion: contactX.assert(started.options) },
      }),
    ).toMatchObject({ status: 410, body: { error: "Operation expired or not found" } })
    const events = await env.engine.run(Effect.flatMap(AuditLog, (a) => a.recent(100)))
    expect(events.some((e) => e.action === "file.decrypted" && e.subject === fileId && e.actorClientId === "signet-console")).toBe(true)
  })
})
