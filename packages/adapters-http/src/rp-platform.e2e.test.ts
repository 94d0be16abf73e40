/**
 * The RP platform over HTTP: self-service registration, approval by an administrator, the
 * contact's own RPs only, organisation KYC unlocking LOA-4, and secret rotation with a grace
 * period measured by the engine's (manual) clock.
 */
import { DEFAULT_SECRET_GRACE_SECONDS } from "@signet/core"
import { enrol, ok, signInAtConsole, SoftwarePasskey, stepUp } from "@signet/testkit"
import { ManualClock } from "@signet/testkit/models"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const ADMIN_TOKEN = "adm_test_0123456789abcdefghijklmnopqrstuvwxyz"
const hash = (s: string) => createHash("sha256").update(s).digest("hex")

interface Registered {
  clientId: string
  clientSecret: string
  sscSecret: string
  status: string
  [k: string]: unknown
}

describe("RP self-service, administration, organisation KYC and secret rotation", () => {
  let env: RunningEngine
  const clock = new ManualClock(Date.now())
  const contacts: Record<"a" | "b", { token: string; email: string; passkey?: SoftwarePasskey }> = { a: { token: "", email: "" }, b: { token: "", email: "" } }

  // A contact administers its RPs through Signet's console: its token is issued to the console client.
  const contact = async (email: string) => {
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, passkey, { email })
    return { token: await signInAtConsole(env.client, passkey), email, passkey }
  }
  const as = (who: "a" | "b") => ({ authorization: `Bearer ${contacts[who].token}` })
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const sscToken = (clientId: string, sscSecret: string, loa: "LOA-2" | "LOA-4" = "LOA-2", signerEmail?: string) => {
    clock.advance(1_000)
    return env.client.raw<Record<string, unknown>>("POST", "/ssc/token", {
      body: { clientId, clientSecret: sscSecret, documentHash: hash(`doc ${clock.now}`), loa, ...(signerEmail ? { signerEmail } : {}) },
    })
  }
  const register = async (who: "a" | "b", body: Record<string, unknown>) => {
    clock.advance(60_000)
    const answer = await env.client.raw<Registered>("POST", "/v2/relying-parties", { body, headers: as(who) })
    expect(answer.status).toBe(201)
    return answer.body
  }
  const command = (clientId: string, body: Record<string, unknown>) =>
    env.client.raw<Record<string, unknown>>("POST", `/admin/api/relying-parties/${clientId}/commands`, { body, headers: admin })

  beforeAll(async () => {
    env = await startEngine({ clock, adminToken: ADMIN_TOKEN })
    contacts.a = await contact("contact.a@example.com")
    contacts.b = await contact("contact.b@example.com")
  })
  afterAll(async () => env?.stop())

  it("registration is pending, /ssc/token refuses it with the spec's message, an administrator approves, then it works", async () => {
    const rp = await register("a", {
      name: "Acme Pay",
      redirectUris: ["https://acme.example/callback"],
      signingOrigins: [env.origin],
      requestedPlan: "business",
    })
    expect(rp).toMatchObject({
      name: "Acme Pay",
      status: "pending",
      redirectUris: ["https://acme.example/callback"],
      signingOrigins: [env.origin],
      requestedPlan: "business",
      plan: null,
      kycVerified: false,
      webauthnRpId: "localhost",
      environment: "sandbox",
    })
    expect(rp.clientId).toMatch(/^rp_sbx_/)
    expect(rp.clientSecret).toMatch(/^sk_sbx_/)
    expect(rp.sscSecret).toMatch(/^ssc_sbx_/)
    expect(JSON.stringify(rp)).not.toContain("Hash")
    // secrets are shown once: a read never has them
    const read = ok(await env.client.raw<Record<string, unknown>>("GET", `/v2/relying-parties/${rp.clientId}`, { headers: as("a") }))
    expect(read).not.toHaveProperty("clientSecret")
    expect(read).not.toHaveProperty("sscSecret")

    expect(await sscToken(rp.clientId, rp.sscSecret)).toMatchObject({ status: 403, body: { error: "RP registration not approved. Status: pending" } })

    // the admin API wants the administrator token
    expect(await env.client.raw("POST", `/admin/api/relying-parties/${rp.clientId}/commands`, { body: { _tag: "Approve" } })).toMatchObject({
      status: 401,
      body: { error: "Administrator token required" },
    })
    expect(await env.client.raw("POST", `/admin/api/relying-parties/${rp.clientId}/commands`, { body: { _tag: "Approve" }, headers: as("a") })).toMatchObject({
      status: 401,
      body: { error: "Administrator token required" },
    })
    expect(await sscToken(rp.clientId, rp.sscSecret)).toMatchObject({ status: 403 })

    expect(await command(rp.clientId, { _tag: "Approve" })).toMatchObject({ status: 200, body: { status: "approved" } })
    const issued = await sscToken(rp.clientId, rp.sscSecret)
    expect(issued.status).toBe(200)
    expect(typeof issued.body["token"]).toBe("string")
    // the admin list shows it with today's usage counted by the signing endpoints
    const listed = ok(await env.client.raw<Array<Record<string, unknown>>>("GET", "/admin/api/relying-parties", { headers: admin }))
    expect(listed.find((r) => r["clientId"] === rp.clientId)).toMatchObject({ status: "approved", usage: { signaturesToday: 1, signaturesPerDay: 100 } })

    expect(await command(rp.clientId, { _tag: "Suspend" })).toMatchObject({ status: 200, body: { status: "suspended" } })
    expect(await sscToken(rp.clientId, rp.sscSecret)).toMatchObject({ status: 403, body: { error: "RP registration not approved. Status: suspended" } })
    expect(await command(rp.clientId, { _tag: "Reject" })).toMatchObject({ status: 409, body: { error: "RP in status suspended cannot be rejected" } })
  })

  it("another account can neither see nor change the RP (404); the contact changes what a contact may", async () => {
    const rp = await register("a", { name: "Private Co", signingOrigins: ["https://private.example"] })
    const notFound = { status: 404, body: { error: `RP ${rp.clientId} not found` } }
    expect(await env.client.raw("GET", `/v2/relying-parties/${rp.clientId}`, { headers: as("b") })).toMatchObject(notFound)
    expect(await env.client.raw("PATCH", `/v2/relying-parties/${rp.clientId}`, { body: { name: "Hijacked" }, headers: as("b") })).toMatchObject(notFound)
    expect(await env.client.raw("POST", `/v2/relying-parties/${rp.clientId}/rotate-secrets`, { body: { which: "both" }, headers: as("b") })).toMatchObject(
      notFound,
    )
    expect(await env.client.raw("GET", `/v2/relying-parties/${rp.clientId}/organisation`, { headers: as("b") })).toMatchObject(notFound)
    expect(await env.client.raw("GET", "/v2/relying-parties/rp_sbx_doesnotexist", { headers: as("a") })).toMatchObject({
      status: 404,
      body: { error: "RP rp_sbx_doesnotexist not found" },
    })
    const listB = ok(await env.client.raw<Array<{ clientId: string }>>("GET", "/v2/relying-parties", { headers: as("b") }))
    expect(listB.map((r) => r.clientId)).not.toContain(rp.clientId)
    const listA = ok(await env.client.raw<Array<{ clientId: string }>>("GET", "/v2/relying-parties", { headers: as("a") }))
    expect(listA.map((r) => r.clientId)).toContain(rp.clientId)
    expect(await env.client.raw("GET", "/v2/relying-parties")).toMatchObject({ status: 401, body: { error: "Missing Authorization header" } })

    // name, redirect URIs and origins any time; the WebAuthn RP id only while pending
    const patched = await env.client.raw("PATCH", `/v2/relying-parties/${rp.clientId}`, {
      body: { name: "Private Co Ltd", redirectUris: ["http://localhost:8080/cb"], webauthnRpId: "private.example" },
      headers: as("a"),
    })
    expect(patched).toMatchObject({
      status: 200,
      body: { name: "Private Co Ltd", redirectUris: ["http://localhost:8080/cb"], webauthnRpId: "private.example" },
    })
    expect(
      await env.client.raw("PATCH", `/v2/relying-parties/${rp.clientId}`, { body: { redirectUris: ["http://evil.example/cb"] }, headers: as("a") }),
    ).toMatchObject({
      status: 400,
      body: { error: "redirect URI http://evil.example/cb must be an absolute https URL (http only for localhost) without fragment" },
    })
    await command(rp.clientId, { _tag: "Approve" })
    expect(await env.client.raw("PATCH", `/v2/relying-parties/${rp.clientId}`, { body: { webauthnRpId: "other.example" }, headers: as("a") })).toMatchObject({
      status: 409,
      body: { error: "webauthnRpId can only be changed while the registration is pending" },
    })
    // a refused change changed nothing
    expect(ok(await env.client.raw<Record<string, unknown>>("GET", `/v2/relying-parties/${rp.clientId}`, { headers: as("a") }))).toMatchObject({
      name: "Private Co Ltd",
      webauthnRpId: "private.example",
      redirectUris: ["http://localhost:8080/cb"],
    })
  })

  it("the ID-token algorithm: RS256 unless the RP chose, ES256 on request, any time; no other algorithm is accepted", async () => {
    const rp = await register("a", { name: "Alg Co" })
    expect(ok(await env.client.raw<Record<string, unknown>>("GET", `/v2/relying-parties/${rp.clientId}`, { headers: as("a") }))).toMatchObject({
      idTokenSignedResponseAlg: "RS256",
    })
    const chosen = await register("a", { name: "Alg Co ES", idTokenSignedResponseAlg: "ES256" })
    expect(chosen).toMatchObject({ idTokenSignedResponseAlg: "ES256" })
    await command(rp.clientId, { _tag: "Approve" })
    expect(
      await env.client.raw("PATCH", `/v2/relying-parties/${rp.clientId}`, { body: { idTokenSignedResponseAlg: "ES256" }, headers: as("a") }),
    ).toMatchObject({ status: 200, body: { idTokenSignedResponseAlg: "ES256" } })
    // `none` and HS256 (keyed with the client secret) would let whoever knows the secret, or no one, forge ID tokens
    for (const alg of ["none", "HS256", "PS256"]) {
      expect((await env.client.raw("PATCH", `/v2/relying-parties/${rp.clientId}`, { body: { idTokenSignedResponseAlg: alg }, headers: as("a") })).status).toBe(
        400,
      )
    }
    expect(
      await env.client.raw("PATCH", `/v2/relying-parties/${rp.clientId}`, { body: { idTokenSignedResponseAlg: "RS256" }, headers: as("b") }),
    ).toMatchObject({ status: 404 })
    expect(await command(rp.clientId, { _tag: "SetIdTokenAlgorithm", alg: "RS256" })).toMatchObject({
      status: 200,
      body: { idTokenSignedResponseAlg: "RS256" },
    })
  })

  it("LOA-4 is refused before the organisation's KYC and allowed after it, on a Business plan", async () => {
    const rp = await register("a", { name: "Bank Ltd", signingOrigins: [env.origin], requestedPlan: "business" })
    await command(rp.clientId, { _tag: "Approve" })
    // without a plan allowing LOA-4 the plan caps it
    expect(await sscToken(rp.clientId, rp.sscSecret, "LOA-4", contacts.a.email)).toMatchObject({
      status: 403,
      body: { error: "Requested LOA LOA-4 exceeds RP maximum LOA-2" },
    })
    await command(rp.clientId, { _tag: "SetPlan", plan: "business" })
    expect(await sscToken(rp.clientId, rp.sscSecret, "LOA-4", contacts.a.email)).toMatchObject({
      status: 403,
      body: { error: "LOA-4 requires KYC-verified RP" },
    })

    // the contact submits the organisation's details: a submission alone unlocks nothing
    const details = {
      legalName: "Bank Ltd",
      registrationNumber: "PVT-2026-00042",
      country: "ke",
      documents: [{ kind: "certificate_of_incorporation", reference: "CI/2026/42" }],
    }
    const submitted = await env.client.raw("POST", `/v2/relying-parties/${rp.clientId}/organisation`, { body: details, headers: as("a") })
    expect(submitted).toMatchObject({ status: 200, body: { status: "submitted", country: "KE", submittedBy: expect.any(String), checkedBy: null } })
    expect(await sscToken(rp.clientId, rp.sscSecret, "LOA-4", contacts.a.email)).toMatchObject({
      status: 403,
      body: { error: "LOA-4 requires KYC-verified RP" },
    })

    // a verification must name the documents checked
    const checkUrl = `/admin/api/relying-parties/${rp.clientId}/organisation-checks`
    expect(
      await env.client.raw("POST", checkUrl, { body: { ...details, documents: [], outcome: "verified", checkedBy: "R. Admin" }, headers: admin }),
    ).toMatchObject({ status: 400, body: { error: "a verification names at least one checked document" } })
    const checked = await env.client.raw<Record<string, Record<string, unknown>>>("POST", checkUrl, {
      body: { ...details, outcome: "verified", checkedBy: "R. Admin", note: "registry extract seen" },
      headers: admin,
    })
    expect(checked).toMatchObject({
      status: 200,
      body: { relyingParty: { kycVerified: true }, check: { status: "verified", checkedBy: "R. Admin", registrationNumber: "PVT-2026-00042" } },
    })
    const allowed = await sscToken(rp.clientId, rp.sscSecret, "LOA-4", contacts.a.email)
    expect(allowed).toMatchObject({ status: 200, body: { loa: "LOA-4", credentialBound: true } })

    // the record keeps both entries, for the contact and the administrator
    const record = ok(await env.client.raw<Array<Record<string, unknown>>>("GET", `/v2/relying-parties/${rp.clientId}/organisation`, { headers: as("a") }))
    expect(record.map((c) => c["status"])).toEqual(["submitted", "verified"])
    const adminRead = ok(await env.client.raw<{ organisationChecks: Array<unknown> }>("GET", `/admin/api/relying-parties/${rp.clientId}`, { headers: admin }))
    expect(adminRead.organisationChecks).toHaveLength(2)

    // a rejecting check withdraws the verification
    await env.client.raw("POST", checkUrl, {
      body: { ...details, outcome: "rejected", checkedBy: "R. Admin", note: "registration struck off" },
      headers: admin,
    })
    expect(await sscToken(rp.clientId, rp.sscSecret, "LOA-4", contacts.a.email)).toMatchObject({
      status: 403,
      body: { error: "LOA-4 requires KYC-verified RP" },
    })
  })

  it("the OpenAPI document carries the request and answer schemas of the self-service and admin paths", async () => {
    const doc = ok(
      await env.client.raw<{
        paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, unknown> }>>
      }>("GET", "/openapi.json"),
    )
    const register = doc.paths["/v2/relying-parties"]?.["post"]
    expect(JSON.stringify(register?.requestBody)).toContain("redirectUris")
    expect(JSON.stringify(register?.responses)).toContain("sscSecret")
    expect(JSON.stringify(doc.paths["/v2/relying-parties/{clientId}"]?.["patch"]?.requestBody)).toContain("webauthnRpId")
    expect(JSON.stringify(doc.paths["/admin/api/relying-parties/{clientId}/commands"]?.["post"]?.requestBody)).toContain("SetRedirectUris")
    expect(JSON.stringify(doc.paths["/admin/api/relying-parties/{clientId}/organisation-checks"]?.["post"]?.requestBody)).toContain("registrationNumber")
    expect(JSON.stringify(doc.paths["/admin/api/relying-parties"]?.["get"]?.responses)).toContain("signaturesToday")
    expect(doc.paths["/admin"]).toBeUndefined()
  })

  it("a rotated secret keeps working for the grace period and stops after it (test clock)", async () => {
    const rp = await register("a", { name: "Rotating Co", signingOrigins: [env.origin] })
    await command(rp.clientId, { _tag: "Approve" })
    clock.advance(60_000)
    const rotated = await env.client.raw<{ clientSecret: string; sscSecret: string; previousValidUntil: string }>(
      "POST",
      `/v2/relying-parties/${rp.clientId}/rotate-secrets`,
      {
        body: { which: "both" },
        headers: { ...as("a"), "signet-step-up": await stepUp(env.client, contacts.a.passkey!, contacts.a.token, "rotate-secrets") },
      },
    )
    expect(rotated.status).toBe(200)
    const graceEnds = Date.parse(rotated.body.previousValidUntil)
    expect(graceEnds).toBe(clock.now + DEFAULT_SECRET_GRACE_SECONDS * 1000)
    expect(rotated.body.clientSecret).not.toBe(rp.clientSecret)
    const basic = (secret: string) =>
      env.client.raw<{ error?: string }>("POST", "/kyc/customers/erase", {
        body: { customerId: "nobody" },
        headers: { authorization: `Basic ${Buffer.from(`${rp.clientId}:${secret}`).toString("base64")}` },
      })

    // within the grace period: old and new both work
    clock.now = graceEnds - 60_000
    expect(await sscToken(rp.clientId, rp.sscSecret)).toMatchObject({ status: 200 })
    expect(await sscToken(rp.clientId, rotated.body.sscSecret)).toMatchObject({ status: 200 })
    expect((await basic(rp.clientSecret)).body.error).not.toBe("invalid_client")
    expect((await basic(rotated.body.clientSecret)).body.error).not.toBe("invalid_client")
    expect(await basic("sk_sbx_wrong")).toMatchObject({ status: 401, body: { error: "invalid_client" } })

    // after it: only the new ones
    clock.now = graceEnds
    expect(await sscToken(rp.clientId, rp.sscSecret)).toMatchObject({ status: 403, body: { error: "Invalid client credentials" } })
    expect(await sscToken(rp.clientId, rotated.body.sscSecret)).toMatchObject({ status: 200 })
    expect(await basic(rp.clientSecret)).toMatchObject({ status: 401, body: { error: "invalid_client" } })
    expect((await basic(rotated.body.clientSecret)).body.error).not.toBe("invalid_client")

    // an administrator's rotation after a leak ends the replaced secret at once
    const leaked = ok(
      await env.client.raw<{ sscSecret: string; previousValidUntil: null }>("POST", `/admin/api/relying-parties/${rp.clientId}/rotate-secrets`, {
        body: { which: "ssc", grace: false },
        headers: admin,
      }),
    )
    expect(leaked.previousValidUntil).toBeNull()
    expect(await sscToken(rp.clientId, rotated.body.sscSecret)).toMatchObject({ status: 403, body: { error: "Invalid client credentials" } })
    expect(await sscToken(rp.clientId, leaked.sscSecret)).toMatchObject({ status: 200 })
  })
})
