/** Hash signing over real HTTP: sign in, sign a hash and a batch, verify every signature with openssl. */
import { StoragePostgres } from "@signet/adapters-postgres"
import { administerRelyingParty, registerRelyingParty, type Allowance } from "@signet/core"
import { enrol, ok, signIn, SoftwarePasskey, type ErrorBody, type PasskeyFault, type TokenAnswer } from "@signet/testkit"
import { ManualClock } from "@signet/testkit/models"
import { findPostgres, withFreshSchema } from "@signet/testkit/storage"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { opensslPrint, opensslVerifies } from "./test-support/openssl.ts"
import { SPEC_FAULT_MESSAGES } from "./test-support/fault-messages.ts"
import { freshMinuteWindow } from "./test-support/minute-window.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const SHA256 = "2.16.840.1.101.3.4.2.1"
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex")

interface Pending {
  readonly requestId: string
  readonly status: string
  readonly authUrl: string
  readonly challenge: string
}
interface Completed {
  readonly status: string
  readonly signature: string
  readonly timestamp: string
  readonly loa: string
}
interface BatchPending {
  readonly batchId: string
  readonly status: string
  readonly documentCount: number
  readonly authUrl: string
  readonly challenge: string
}
interface BatchDone {
  readonly status: string
  readonly results: ReadonlyArray<{ documentId: string; status: string; signature?: string; error?: string }>
}

const postgres = await findPostgres()
const STORAGES: ReadonlyArray<readonly [string, string | undefined]> = [["SQLite", undefined], ...(postgres ? [["PostgreSQL", postgres] as const] : [])]

describe.each(STORAGES)("hash signing on %s", (_name, databaseUrl) => {
  let env: RunningEngine
  let rootPem: string
  let passkey: SoftwarePasskey
  let token: string
  const newEngine = () => startEngine(databaseUrl === undefined ? {} : { storage: withFreshSchema(databaseUrl, StoragePostgres) })

  beforeAll(async () => {
    env = await newEngine()
    passkey = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, passkey, { email: "signer@example.com", displayName: "Ada Signer" })
    token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    rootPem = ok(await env.client.raw<{ root: { pem: string } }>("GET", "/v2/ca")).root.pem
  })
  afterAll(async () => env?.stop())

  const bearer = (t = token) => ({ authorization: `Bearer ${t}` })
  const create = (body: Record<string, unknown>, t = token) => env.client.raw<Pending | ErrorBody>("POST", "/v2/sign/single", { body, headers: bearer(t) })
  const approve = (pending: Pending, fault?: PasskeyFault, who = passkey) =>
    env.client.raw<Completed | ErrorBody>("POST", `/v2/sign/auth/${pending.requestId}`, {
      body: { assertion: who.assert({ challenge: pending.challenge }, { ...(fault ? { fault } : {}), includeUserHandle: false }) },
    })

  it("signs a document hash: pending, then completed with a CMS signature openssl verifies for that document only", async () => {
    const document = randomBytes(2048)
    const pending = ok(await create({ documentHash: sha256(document), credentialId: passkey.credentialId, documentName: "contract.pdf" })) as Pending
    expect(pending.status).toBe("pending_auth")
    expect(pending.requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(pending.authUrl).toBe(`/api/v2/sign/auth/${pending.requestId}`)
    const done = await approve(pending)
    expect(done.status).toBe(200)
    const completed = done.body as Completed
    expect(completed.status).toBe("completed")
    expect(completed.loa).toBe("LOA-2")
    expect(completed.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/)
    expect(opensslVerifies(completed.signature, document, rootPem)).toBe(true)
    expect(opensslVerifies(completed.signature, randomBytes(2048), rootPem)).toBe(false)
    // processed: a second completion is 404
    expect(await approve(pending)).toMatchObject({ status: 404, body: { error: "Signing request not found or already processed" } })
  })

  it("leaves the signing-time attribute out for the PAdES family only", async () => {
    const attributesOf = async (signatureFormat: string) => {
      const pending = ok(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId, signatureFormat })) as Pending
      return opensslPrint((ok(await approve(pending)) as Completed).signature)
    }
    for (const format of ["PAdES", "PAdES-BASELINE-B"]) {
      const printed = await attributesOf(format)
      expect(printed).toContain("messageDigest")
      expect(printed).not.toContain("signingTime")
    }
    for (const format of ["CAdES-BASELINE-B", "CMS"]) expect(await attributesOf(format)).toContain("signingTime")
  })

  it("signs a batch of three with one bad hash: partial, results matched to ids, each signature verifies", async () => {
    const docs = [randomBytes(100), randomBytes(200)]
    const created = await env.client.raw<BatchPending | ErrorBody>("POST", "/v2/sign/batch", {
      headers: bearer(),
      body: {
        credentialId: passkey.credentialId,
        documents: [
          { id: "invoice-1", hash: sha256(docs[0]!), hash_algo: SHA256 },
          { id: "broken", hash: "not-a-hash", hash_algo: SHA256 },
          { id: "invoice-2", hash: sha256(docs[1]!), hash_algo: SHA256 },
        ],
      },
    })
    const pending = ok(created) as BatchPending
    expect(pending).toMatchObject({ status: "pending_auth", documentCount: 3, authUrl: `/api/v2/sign/batch/${pending.batchId}/auth` })
    const done = ok(
      await env.client.raw<BatchDone | ErrorBody>("POST", `/v2/sign/batch/${pending.batchId}/auth`, {
        body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
      }),
    ) as BatchDone
    expect(done.status).toBe("partial")
    expect(done.results.map((r) => [r.documentId, r.status])).toEqual([
      ["invoice-1", "signed"],
      ["broken", "failed"],
      ["invoice-2", "signed"],
    ])
    expect(done.results[1]).toEqual({ documentId: "broken", status: "failed", error: "Invalid document hash" })
    expect(opensslVerifies(done.results[0]!.signature!, docs[0]!, rootPem)).toBe(true)
    expect(opensslVerifies(done.results[2]!.signature!, docs[1]!, rootPem)).toBe(true)
    expect(opensslVerifies(done.results[0]!.signature!, docs[1]!, rootPem)).toBe(false)
    const again = await env.client.raw("POST", `/v2/sign/batch/${pending.batchId}/auth`, {
      body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
    })
    expect(again).toMatchObject({ status: 404, body: { error: "Signing request not found or already processed" } })
  })

  it("signs SHA-384 and SHA-512 document hashes of a batch and fails an unknown hash algorithm alone", async () => {
    const doc = randomBytes(300)
    const documents = [
      { id: "s384", hash: createHash("sha384").update(doc).digest("hex"), hash_algo: "2.16.840.1.101.3.4.2.2" },
      { id: "s512", hash: createHash("sha512").update(doc).digest("hex"), hash_algo: "2.16.840.1.101.3.4.2.3" },
      { id: "md5", hash: createHash("md5").update(doc).digest("hex"), hash_algo: "1.2.840.113549.2.5" },
    ]
    const pending = ok(
      await env.client.raw<BatchPending | ErrorBody>("POST", "/v2/sign/batch", { headers: bearer(), body: { credentialId: passkey.credentialId, documents } }),
    ) as BatchPending
    const done = ok(
      await env.client.raw<BatchDone | ErrorBody>("POST", `/v2/sign/batch/${pending.batchId}/auth`, {
        body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
      }),
    ) as BatchDone
    expect(done.status).toBe("partial")
    expect(done.results[2]).toEqual({ documentId: "md5", status: "failed", error: "Unsupported hash algorithm" })
    expect(opensslVerifies(done.results[0]!.signature!, doc, rootPem)).toBe(true)
    expect(opensslVerifies(done.results[1]!.signature!, doc, rootPem)).toBe(true)
  })

  it("shows a pending request or batch to the signing frame by its id, and no longer once processed", async () => {
    const hash = sha256(randomBytes(8))
    const pending = ok(await create({ documentHash: hash, credentialId: passkey.credentialId, documentName: "nda.pdf" })) as Pending
    const view = ok(
      await env.client.raw<{ challenge: string; authUrl: string; credentialId: string; documents: Array<{ name: string | null; hash: string }> }>(
        "GET",
        `/v2/sign/requests/${pending.requestId}`,
      ),
    )
    expect(view).toMatchObject({
      challenge: pending.challenge,
      authUrl: pending.authUrl,
      credentialId: passkey.credentialId,
      documents: [{ name: "nda.pdf", hash }],
    })
    const documents = [
      { id: "a", hash: sha256(randomBytes(4)), hash_algo: SHA256 },
      { id: "b", hash: sha256(randomBytes(4)), hash_algo: SHA256 },
    ]
    const batch = ok(
      await env.client.raw<BatchPending | ErrorBody>("POST", "/v2/sign/batch", { headers: bearer(), body: { credentialId: passkey.credentialId, documents } }),
    ) as BatchPending
    const batchView = ok(
      await env.client.raw<{ kind: string; challenge: string; documents: Array<{ id: string; hash: string }> }>("GET", `/v2/sign/batch/${batch.batchId}`),
    )
    expect(batchView.kind).toBe("batch")
    expect(batchView.challenge).toBe(batch.challenge)
    expect(batchView.documents.map((d) => [d.id, d.hash])).toEqual(documents.map((d) => [d.id, d.hash]))
    expect((await approve(pending)).status).toBe(200)
    expect(await env.client.raw("GET", `/v2/sign/requests/${pending.requestId}`)).toMatchObject({
      status: 404,
      body: { error: "Signing request not found or already processed" },
    })
  })

  it("the pending challenge is standard base64 (spec), single and batch; a passkey signs its bytes and the request completes", async () => {
    const single = ok(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId })) as Pending
    const batch = ok(
      await env.client.raw<BatchPending | ErrorBody>("POST", "/v2/sign/batch", {
        headers: bearer(),
        body: { credentialId: passkey.credentialId, documents: [{ id: "a", hash: sha256(randomBytes(8)), hash_algo: SHA256 }] },
      }),
    ) as BatchPending
    for (const challenge of [single.challenge, batch.challenge]) {
      // 32 bytes: 44 characters with one "=" of padding, never "-" or "_"
      expect(challenge).toMatch(/^[A-Za-z0-9+/]{43}=$/)
      expect(Buffer.from(challenge, "base64").length).toBe(32)
    }
    // the browser puts the same bytes in clientDataJSON as base64url
    const assertion = passkey.assert({ challenge: Buffer.from(single.challenge, "base64").toString("base64url") }, { includeUserHandle: false })
    expect((await env.client.raw("POST", `/v2/sign/auth/${single.requestId}`, { body: { assertion } })).status).toBe(200)
  })

  it("approves with client data of several KiB (members a browser added), and refuses it signed over other bytes", async () => {
    // past 2 KiB the client data's SHA-256 is no longer computed in the request's thread (kernel/digest.ts)
    const extraClientData = { other_keys_can_be_added_here: "x".repeat(4096) }
    const good = ok(await create({ documentHash: "cd".repeat(32), credentialId: passkey.credentialId })) as Pending
    const assertion = passkey.assert({ challenge: good.challenge }, { includeUserHandle: false, extraClientData })
    expect(Buffer.from(assertion.response.clientDataJSON, "base64url").length).toBeGreaterThan(4096)
    const done = await env.client.raw<Completed | ErrorBody>("POST", `/v2/sign/auth/${good.requestId}`, { body: { assertion } })
    expect(done.status).toBe(200)
    expect((done.body as Completed).status).toBe("completed")
    const bad = ok(await create({ documentHash: "ce".repeat(32), credentialId: passkey.credentialId })) as Pending
    const forged = passkey.assert({ challenge: bad.challenge }, { includeUserHandle: false, extraClientData, fault: "badSignature" })
    const refused = await env.client.raw<ErrorBody>("POST", `/v2/sign/auth/${bad.requestId}`, { body: { assertion: forged } })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ error: "Passkey signature verification failed" })
  })

  it("judges callbackUrl by the address guard at creation, single and batch (issue 13 item 15)", async () => {
    const documents = [{ id: "d1", hash: "ab".repeat(32), hash_algo: SHA256 }]
    // (loopback names are for the unit tests: this engine has the loopback development switch on)
    for (const callbackUrl of [
      "https://metadata.google.internal./cb",
      "https://[2002:a9fe:a9fe::1]/cb",
      "https://[fec0::1]/cb",
      "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/cb",
      "https://[64:ff9b:1::a9fe:a9fe]/cb",
      "https://169.254.169.254/latest/meta-data/",
      "https://10.0.0.1/",
      "http://10.0.0.1/cb",
      "https://intranet/cb",
    ]) {
      const single = await create({ documentHash: "ab".repeat(32), credentialId: passkey.credentialId, callbackUrl })
      const batch = await env.client.raw<ErrorBody>("POST", "/v2/sign/batch", {
        headers: bearer(),
        body: { credentialId: passkey.credentialId, documents, callbackUrl },
      })
      for (const r of [single, batch]) {
        expect([callbackUrl, r.status]).toEqual([callbackUrl, 400])
        expect((r.body as ErrorBody).error).toMatch(/^callbackUrl (points at|must be an https URL)/)
      }
    }
    // this engine has the loopback development switch on: a callback on the developer's machine is taken
    expect(ok(await create({ documentHash: "ab".repeat(32), credentialId: passkey.credentialId, callbackUrl: "http://127.0.0.1:9/cb" }))).toMatchObject({
      status: "pending_auth",
    })
  })

  it("answers the spec's messages for bad creations", async () => {
    expect(await create({ credentialId: passkey.credentialId })).toMatchObject({ status: 400, body: { error: "documentHash and credentialId required" } })
    expect(await create({ documentHash: "ab".repeat(32) })).toMatchObject({ status: 400, body: { error: "documentHash and credentialId required" } })
    expect(await create({ documentHash: "ab".repeat(32), credentialId: "someone-elses" })).toMatchObject({
      status: 404,
      body: { error: "No signing credential found for user" },
    })
    expect(await create({ documentHash: "xyz", credentialId: passkey.credentialId })).toMatchObject({
      status: 400,
      body: { error: "documentHash must be a hex SHA-256 (64 hexadecimal characters)" },
    })
    expect(await create({ documentHash: "ab".repeat(32), credentialId: passkey.credentialId, signatureFormat: "XAdES" })).toMatchObject({
      status: 400,
      body: { error: "signatureFormat must be one of CAdES-BASELINE-B | CAdES-BASELINE-T | CMS | PAdES-BASELINE-B | PAdES-BASELINE-T | PAdES" },
    })
    expect(await create({ documentHash: "ab".repeat(32), credentialId: passkey.credentialId, callbackUrl: "http://rp.example/cb" })).toMatchObject({
      status: 400,
      body: { error: "callbackUrl must be an https URL" },
    })
    expect(await create({ documentHash: "ab".repeat(32), credentialId: passkey.credentialId, rpOrigin: "https://evil.example" })).toMatchObject({
      status: 403,
      body: { error: "RP origin not authorized: https://evil.example" },
    })
    expect(await env.client.raw("POST", "/v2/sign/single", { body: {} })).toMatchObject({ status: 401, body: { error: "Missing Authorization header" } })
    const unknown = await env.client.raw("POST", "/v2/sign/auth/00000000-0000-4000-8000-000000000000", {
      body: { assertion: passkey.assert({ challenge: "AAAA" }) },
    })
    expect(unknown).toMatchObject({ status: 404, body: { error: "Signing request not found or already processed" } })
    const unknownBatch = await env.client.raw("POST", "/v2/sign/batch/00000000-0000-4000-8000-000000000000/auth", {
      body: { assertion: passkey.assert({ challenge: "AAAA" }) },
    })
    expect(unknownBatch).toMatchObject({ status: 404, body: { error: "Signing request not found or already processed" } })
    expect((await env.client.raw("POST", "/v2/sign/batch", { body: { documents: [] }, headers: bearer() })).status).toBe(400)
  })

  it("refuses each broken assertion with its own 403, and one request's approval never completes another", async () => {
    for (const [fault, message] of SPEC_FAULT_MESSAGES) {
      const pending = ok(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId })) as Pending
      expect(await approve(pending, fault), fault).toMatchObject({ status: 403, body: { error: message } })
      // still pending: the genuine approval goes through
      expect((await approve(pending)).status).toBe(200)
    }
    const a = ok(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId })) as Pending
    const b = ok(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId })) as Pending
    const forA = passkey.assert({ challenge: a.challenge }, { includeUserHandle: false })
    expect(await env.client.raw("POST", `/v2/sign/auth/${b.requestId}`, { body: { assertion: forA } })).toMatchObject({
      status: 403,
      body: { error: "Challenge mismatch — dynamic linking failed" },
    })
  })

  it("answers the RP and token checks on creation", async () => {
    const client = ok(await env.client.clientToken(env.rp.clientId, env.rp.clientSecret)) as TokenAnswer
    expect(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId }, client.access_token)).toMatchObject({
      status: 401,
      body: { error: "Token missing subject claim" },
    })
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "Suspend" }))
    try {
      expect(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId })).toMatchObject({
        status: 403,
        body: { error: "RP registration not approved. Status: suspended" },
      })
    } finally {
      await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "Approve" }))
    }
  })

  it("refuses an assertion whose counter went backwards", async () => {
    const pending = ok(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId })) as Pending
    expect(await approve(pending, "counterBackwards")).toMatchObject({
      status: 403,
      body: { error: "Passkey signature counter did not increase — possible cloned authenticator" },
    })
  })

  it("fails a request after five refused assertions", async () => {
    const pending = ok(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId })) as Pending
    for (let i = 0; i < 5; i++) expect((await approve(pending, "otherChallenge")).status).toBe(403)
    expect(await approve(pending)).toMatchObject({ status: 404, body: { error: "Signing request not found or already processed" } })
  })

  it("another user's passkey cannot approve, and a user cannot sign with another's credential", async () => {
    const other = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, other, { email: "other@example.com" })
    const otherToken = (ok(await signIn(env.client, other, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    const pending = ok(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId })) as Pending
    expect(await approve(pending, undefined, other)).toMatchObject({ status: 403, body: { error: "Credential not registered" } })
    expect(await create({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId }, otherToken)).toMatchObject({
      status: 404,
      body: { error: "No signing credential found for user" },
    })
  })

  it("LOA above the RP maximum is 403, LOA-4 needs a KYC-verified RP", async () => {
    const hash = sha256(randomBytes(8))
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetMaxLoa", loa: "LOA-2" }))
    expect(await create({ documentHash: hash, credentialId: passkey.credentialId, loa: "LOA-4" })).toMatchObject({
      status: 403,
      body: { error: "Requested LOA LOA-4 exceeds RP maximum LOA-2" },
    })
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetMaxLoa", loa: "LOA-4" }))
    expect(await create({ documentHash: hash, credentialId: passkey.credentialId, loa: "LOA-4" })).toMatchObject({
      status: 403,
      body: { error: "LOA-4 requires KYC-verified RP" },
    })
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetKycVerified", kycVerified: true }))
    const pending = ok(await create({ documentHash: hash, credentialId: passkey.credentialId, loa: "LOA-4" })) as Pending
    expect((ok(await approve(pending)) as Completed).loa).toBe("LOA-4")
  })

  describe("quotas", () => {
    const withAllowance = async (allowance: Allowance) => {
      const rp = await env.engine.run(registerRelyingParty({ name: "Quota RP", status: "approved", signingOrigins: [env.origin] }))
      await env.engine.run(administerRelyingParty(rp.rp.clientId, { _tag: "SetCustomAllowance", allowance }))
      const t = (ok(await signIn(env.client, passkey, { clientId: rp.rp.clientId })) as TokenAnswer).access_token
      return t
    }
    const allowance = (over: Partial<Allowance>): Allowance => ({
      signaturesPerDay: 1000,
      documentsPerBatch: 10,
      requestsPerMinute: 1000,
      highestLoa: "LOA-2",
      ...over,
    })
    const doc = () => ({ documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId })

    it("the daily allowance: 429 with used, maximum and reset time", async () => {
      const t = await withAllowance(allowance({ signaturesPerDay: 2 }))
      expect((await create(doc(), t)).status).toBe(200)
      expect((await create(doc(), t)).status).toBe(200)
      const refused = await create(doc(), t)
      expect(refused.status).toBe(429)
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
      expect(refused.body).toEqual({ error: `Daily signing limit exceeded (2/2 used, resets at ${tomorrow}T00:00:00.000Z)` })
    })

    it("the per-minute window: 429 Rate limit exceeded", async () => {
      // one minute window for the whole burst: the counter turns over with the calendar minute
      await freshMinuteWindow()
      const t = await withAllowance(allowance({ requestsPerMinute: 2 }))
      await create(doc(), t)
      await create(doc(), t)
      expect(await create(doc(), t)).toMatchObject({ status: 429, body: { error: "Rate limit exceeded. Please try again later." } })
    })

    it("the batch size: 429 Batch size <n> exceeds maximum <max>", async () => {
      const documents = Array.from({ length: 11 }, (_, i) => ({ id: `d${i}`, hash: sha256(randomBytes(4)), hash_algo: SHA256 }))
      const r = await env.client.raw("POST", "/v2/sign/batch", { headers: bearer(), body: { credentialId: passkey.credentialId, documents } })
      expect(r).toMatchObject({ status: 429, body: { error: "Batch size 11 exceeds maximum 10" } })
    })

    it("200 parallel creations against an allowance of 100 grant exactly 100", async () => {
      const t = await withAllowance(allowance({ signaturesPerDay: 100 }))
      const answers = await Promise.all(Array.from({ length: 200 }, () => create(doc(), t)))
      const statuses = answers.map((a) => a.status)
      expect(statuses.filter((s) => s === 200).length).toBe(100)
      expect(statuses.filter((s) => s === 429).length).toBe(100)
    }, 60_000)
  })
})

describe("request lifetime over HTTP", () => {
  it("a request or batch pending for more than five minutes answers 410, then and after", async () => {
    const clock = new ManualClock(Date.now())
    const env = await startEngine({ clock })
    try {
      const passkey = SoftwarePasskey.create({ origin: env.origin })
      await enrol(env.client, passkey, { email: "late@example.com" })
      const token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
      const headers = { authorization: `Bearer ${token}` }
      const pending = ok(
        await env.client.raw<Pending | ErrorBody>("POST", "/v2/sign/single", {
          headers,
          body: { documentHash: sha256(randomBytes(8)), credentialId: passkey.credentialId },
        }),
      ) as Pending
      const batch = ok(
        await env.client.raw<BatchPending | ErrorBody>("POST", "/v2/sign/batch", {
          headers,
          body: { credentialId: passkey.credentialId, documents: [{ id: "a", hash: sha256(randomBytes(8)), hash_algo: SHA256 }] },
        }),
      ) as BatchPending
      clock.advance(5 * 60_000 + 1)
      for (let i = 0; i < 2; i++) {
        const late = await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
          body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
        })
        expect(late).toMatchObject({ status: 410, body: { error: "Operation expired or not found" } })
        const lateBatch = await env.client.raw("POST", `/v2/sign/batch/${batch.batchId}/auth`, {
          body: { assertion: passkey.assert({ challenge: batch.challenge }, { includeUserHandle: false }) },
        })
        expect(lateBatch).toMatchObject({ status: 410, body: { error: "Operation expired or not found" } })
      }
    } finally {
      await env.stop()
    }
  })
})
