/** Identity verification over real HTTP on SQLite and PostgreSQL: every path of the machine and every KYC message of the spec. */
import { StoragePostgres } from "@signet/adapters-postgres"
import { configureKyc, KycAudit, KycImages, KycVerifications, registerRelyingParty } from "@signet/core"
import { forgedId, passport, passportBadMrz, plainJpeg, selfie, unusableSelfie } from "@signet/testkit/kyc"
import { ManualClock } from "@signet/testkit/models"
import { findPostgres, withFreshSchema } from "@signet/testkit/storage"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const postgres = await findPostgres()
const STORAGES: ReadonlyArray<readonly [string, string | undefined]> = [["SQLite", undefined], ...(postgres ? [["PostgreSQL", postgres] as const] : [])]

type Json = Record<string, unknown>

describe.each(STORAGES)("KYC over HTTP on %s", (_name, databaseUrl) => {
  let env: RunningEngine
  let basic: string
  const clock = new ManualClock(Date.parse("2026-10-01T09:00:00Z"))
  let n = 0
  const phone = () => `+2547${String(12000000 + ++n).padStart(8, "0")}`

  beforeAll(async () => {
    env = await startEngine({ clock, ...(databaseUrl === undefined ? {} : { storage: withFreshSchema(databaseUrl, StoragePostgres) }) })
    await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
    basic = `Basic ${btoa(`${env.rp.clientId}:${env.rp.clientSecret}`)}`
  })
  afterAll(async () => env?.stop())
  // A fresh rate-limit window per test: the per-IP limits are tested on their own.
  beforeEach(() => clock.advance(61_000))

  const post = (path: string, body: unknown, auth: string | null = basic) =>
    env.client.raw<Json>("POST", path, { body, ...(auth === null ? {} : { headers: { authorization: auth } }) })
  const start = (customer_id: string, phone_number: string, extra: Json = {}) => post("/kyc/verifications", { customer_id, phone_number, ...extra })
  const liveCapture = async (customer_id: string, frame: string) => {
    const session = await post("/kyc/customers/liveness-session", { customer_id })
    expect(session.status).toBe(200)
    const token = session.body["token"] as string
    const captured = await post("/kyc/faceapi", { frames: [frame] }, `Bearer ${token}`)
    expect(captured).toMatchObject({ status: 200, body: { status: "confirmed" } })
    return captured.body["transactionId"] as string
  }

  it("start → document → liveness session → capture → face → verified → compare", async () => {
    const customer = `alice-${n}@example.com`
    const tel = phone()
    const started = await start(customer, tel, { rp_urn: `urn:shop:${env.rp.clientId}:42` })
    expect(started).toMatchObject({ status: 200, body: { customer_id: customer, phone_number: tel, status: "pending", created: true, enrolled: false } })
    expect((await start(customer, tel)).body).toMatchObject({ created: false, status: "pending" })

    const doc = await post("/kyc/customers/document", { customer_id: customer, images: [passport("alice")] })
    expect(doc).toMatchObject({
      status: 200,
      body: {
        customer_id: customer,
        status: "document_verified",
        verified_name: "OTIENO, Grace Akinyi",
        doc_type: "passport",
        doc_number: "AK1234567",
        personal_number: "12345678",
        doc_expiry: "2034-01-01",
        nationality: "KEN",
        face_match_score: null,
        liveness_score: null,
        reasons: [],
        selfie: null,
      },
    })

    const session = await post("/kyc/customers/liveness-session", { customer_id: customer })
    expect(session).toMatchObject({
      status: 200,
      body: { url: "/api/kyc/faceapi", expiresIn: 600, customer_id: customer, rp_urn: `urn:shop:${env.rp.clientId}:42` },
    })
    const transactionId = await liveCapture(customer, selfie("alice", 0.93))
    const face = await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: transactionId, return_selfie: 1 })
    expect(face).toMatchObject({ status: 200, body: { status: "verified", face_match_score: 0.95, liveness_score: 0.93, reasons: [] } })
    expect((face.body["selfie"] as Json)["content_type"]).toBe("image/jpeg")
    expect(typeof (face.body["selfie"] as Json)["data"]).toBe("string")
    // The transaction is one-time, and the verification is done.
    expect(await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: transactionId })).toMatchObject({
      status: 409,
      body: { error: "This verification is already verified" },
    })
    expect(await post("/kyc/customers/document", { customer_id: customer, image: passport() })).toMatchObject({
      status: 409,
      body: { error: "This verification is already verified" },
    })

    const read = await post("/kyc/customers/verification", { customer_id: customer, return_selfie: true })
    expect(read.body).toMatchObject({ status: "verified" })
    expect(read.body["selfie"]).not.toBeNull()
    expect((await post("/kyc/customers/verification", { customer_id: customer })).body["selfie"]).toBeNull()
    expect((await start(customer, tel)).body).toMatchObject({ created: false, enrolled: true, status: "verified" })

    const matching = await post("/kyc/customers/compare", {
      customer_id: customer,
      checks: {
        personal_number: "12345678",
        date_of_birth: "15/01/1990",
        full_name: "OTIENO, Grace Akinyi",
        image: selfie("alice"),
      },
    })
    expect(matching).toMatchObject({
      status: 200,
      body: {
        customer_id: customer,
        enrolled: true,
        matches: { customer_id: true, personal_number: true, date_of_birth: true, full_name: true },
        face: { match: true, similarity: 0.95 },
      },
    })
    const mismatch = await post("/kyc/customers/compare", {
      customer_id: customer,
      checks: { date_of_birth: "16/01/1990", full_name: "OTIENO, Grace", image: selfie("mallory") },
    })
    expect(mismatch.body).toMatchObject({ matches: { customer_id: true, date_of_birth: false, full_name: false }, face: { match: false, similarity: 0.1 } })
    expect(Object.keys(mismatch.body["matches"] as Json).sort()).toEqual(["customer_id", "date_of_birth", "full_name"])
    // spec: face.similarity is a number, also when no image was sent (then 0, unchecked, no match)
    const noImage = await post("/kyc/customers/compare", { customer_id: customer, checks: { full_name: "OTIENO, Grace Akinyi" } })
    expect(noImage).toMatchObject({ status: 200, body: { face: { match: false, similarity: 0, checked: false } } })
    expect(typeof (noImage.body["face"] as Json)["similarity"]).toBe("number")

    // Images rest encrypted: no stored ciphertext holds the marker's text.
    const stored = await env.engine.run(
      Effect.gen(function* () {
        const v = Option.getOrThrow(yield* (yield* KycVerifications).findByCustomer(env.rp.clientId, customer))
        const images = [...(yield* (yield* KycImages).listFor(v.id, "document")), ...(yield* (yield* KycImages).listFor(v.id, "selfie"))]
        return { v, audit: yield* (yield* KycAudit).listFor(v.id), images }
      }),
    )
    expect(stored.audit.map((a) => a.action)).toEqual([
      "started",
      "document_submitted",
      "liveness_session_opened",
      "liveness_session_opened",
      "liveness_captured",
      "face_submitted",
    ])
    expect(stored.v.selfieImageId).not.toBeNull()
    expect(stored.images.length).toBe(2)
    for (const image of stored.images) expect(Buffer.from(image.ciphertext, "base64").toString("latin1")).not.toContain("SIGNET-SANDBOX")

    expect(await post("/kyc/customers/erase", { customer_id: customer })).toMatchObject({ status: 200, body: { customer_id: customer, erased: true } })
    expect(await post("/kyc/customers/verification", { customer_id: customer })).toMatchObject({ status: 404, body: { error: "KYC verification not found" } })
  })

  it("reaches needs_review at a borderline face, and a reviewer moves it on", async () => {
    const customer = phone()
    await start(customer, customer)
    await post("/kyc/customers/document", { customer_id: customer, images: [passport("bob")] })
    const tx = await liveCapture(customer, selfie("bob", 0.9, 0.7))
    const face = await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: tx })
    expect(face).toMatchObject({ status: 200, body: { status: "needs_review", face_match_score: 0.7, reasons: ["face_match_borderline"], selfie: null } })
    expect(await post("/kyc/customers/compare", { customer_id: customer, checks: {} })).toMatchObject({
      status: 409,
      body: { error: `No verified identity on file for customer_id ${customer}; complete document and live face capture first` },
    })
    expect(await post("/kyc/customers/review", { customer_id: customer, decision: "approve" })).toMatchObject({ status: 200, body: { status: "verified" } })
    expect(await post("/kyc/customers/review", { customer_id: customer, decision: "approve" })).toMatchObject({
      status: 409,
      body: { error: "Only a verification in needs_review can be reviewed; this one is verified" },
    })
  })

  it("asks for a new selfie when the matcher cannot use it, and keeps the verification open", async () => {
    const customer = phone()
    await start(customer, customer)
    await post("/kyc/customers/document", { customer_id: customer, images: [passport("dave")] })
    const turned = await liveCapture(customer, unusableSelfie("face_turned", "dave"))
    expect(await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: turned })).toMatchObject({
      status: 200,
      body: { status: "document_verified", face_match_score: null, reasons: ["selfie_face_turned"] },
    })
    // the capture is spent; a new one settles it
    expect((await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: turned })).status).toBe(404)
    const good = await liveCapture(customer, selfie("dave", 0.9))
    expect((await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: good })).body).toMatchObject({ status: "verified", reasons: [] })
    // compare: an unusable photo is not compared, and the answer says which and why
    expect((await post("/kyc/customers/compare", { customer_id: customer, checks: { image: unusableSelfie("face_too_dark", "dave") } })).body).toMatchObject({
      face: { match: false, similarity: 0, checked: false, unusable: { side: "probe", reason: "face_too_dark" } },
    })
  })

  it("fails on a bad MRZ, a forged document, a spoof and a mismatch; a new document restarts", async () => {
    const customer = phone()
    await start(customer, customer)
    expect(await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: "x" })).toMatchObject({
      status: 409,
      body: { error: "Submit the document before the liveness step" },
    })
    expect((await post("/kyc/customers/document", { customer_id: customer, images: [passportBadMrz()] })).body).toMatchObject({
      status: "failed",
      reasons: ["document_not_authentic", "mrz_check_failed"],
    })
    expect(await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: "x" })).toMatchObject({
      status: 409,
      body: { error: "Resubmit the document before the liveness step" },
    })
    expect((await post("/kyc/customers/document", { customer_id: customer, images: [forgedId(), plainJpeg()] })).body).toMatchObject({
      status: "failed",
      reasons: ["document_not_authentic"],
    })
    expect((await post("/kyc/customers/document", { customer_id: customer, image: plainJpeg() })).body).toMatchObject({
      status: "failed",
      reasons: ["document_not_authentic"],
    })
    expect((await post("/kyc/customers/document", { customer_id: customer, images: [passport("carol", { expiryDate: "200101" })] })).body).toMatchObject({
      status: "failed",
      reasons: ["document_expired"],
    })
    expect((await post("/kyc/customers/document", { customer_id: customer, images: [passport("carol")] })).body).toMatchObject({ status: "document_verified" })
    const spoof = await liveCapture(customer, selfie("carol", 0.49))
    expect((await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: spoof })).body).toMatchObject({
      status: "failed",
      liveness_score: 0.49,
      reasons: ["liveness_failed"],
    })
    await post("/kyc/customers/document", { customer_id: customer, images: [passport("carol")] })
    const other = await liveCapture(customer, selfie("mallory", 0.9))
    expect((await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: other })).body).toMatchObject({
      status: "failed",
      face_match_score: 0.1,
      reasons: ["face_mismatch"],
    })
  })

  it("liveness sessions: a new one invalidates the old token; transactions are bound to their verification", async () => {
    const a = phone()
    const b = phone()
    await start(a, a)
    await start(b, b)
    await post("/kyc/customers/document", { customer_id: a, images: [passport("alice")] })
    await post("/kyc/customers/document", { customer_id: b, images: [passport("alice")] })
    const first = (await post("/kyc/customers/liveness-session", { customer_id: a })).body["token"] as string
    await post("/kyc/customers/liveness-session", { customer_id: a })
    expect(await post("/kyc/faceapi", { frames: [selfie()] }, `Bearer ${first}`)).toMatchObject({ status: 404, body: { error: "KYC verification not found" } })
    expect(await post("/kyc/faceapi", { frames: [selfie()] }, null)).toMatchObject({ status: 404, body: { error: "KYC verification not found" } })
    const txOfB = await liveCapture(b, selfie())
    expect(await post("/kyc/customers/face", { customer_id: a, livenessTransactionId: txOfB })).toMatchObject({
      status: 404,
      body: { error: "KYC verification not found" },
    })
    expect(await post("/kyc/customers/face", { customer_id: a, livenessTransactionId: "unknown" })).toMatchObject({
      status: 404,
      body: { error: "KYC verification not found" },
    })
    // Tokens expire after 600 s.
    const token = (await post("/kyc/customers/liveness-session", { customer_id: a })).body["token"] as string
    clock.advance(600_000)
    expect(await post("/kyc/faceapi", { frames: [selfie()] }, `Bearer ${token}`)).toMatchObject({ status: 404, body: { error: "KYC verification not found" } })
  })

  it("every identifier message of the spec, with its status", async () => {
    const e = (status: number, error: string) => ({ status, body: { error } })
    expect(await post("/kyc/verifications", { customer_id: "a@b.co", phone_number: "+254712000001" }, null)).toMatchObject(e(401, "invalid_client"))
    expect(await post("/kyc/verifications", {}, `Basic ${btoa(`${env.rp.clientId}:wrong`)}`)).toMatchObject(e(401, "invalid_client"))
    expect(await post("/kyc/verifications", { phone_number: "+254712000001" })).toMatchObject(e(422, "customer_id is required"))
    expect(await post("/kyc/verifications", { customer_id: "x@y.co" })).toMatchObject(e(422, "phone_number is required"))
    expect(await start("x@y.co", "0712345678")).toMatchObject(e(422, "phone_number 0712345678 must include a country code (e.g. +254...)"))
    expect(await start("x@y.co", "+25471")).toMatchObject(e(422, "phone_number +25471 has the wrong number of digits for its country"))
    expect(await start("x@y.co", "+15550100000")).toMatchObject(e(422, "phone_number +15550100000 is not in a number range in use"))
    expect(await start("x@localhost", "+254712000001")).toMatchObject(e(422, "customer_id x@localhost is an e-mail address without a top-level domain"))
    // Issue 13, item 16: NUL, a bidi override and fullwidth look-alikes are refused; the message shows them escaped.
    const unsafe = "contains control, bidirectional, invisible or compatibility (e.g. fullwidth) characters"
    expect(await start("ceo@bank.example\u0000x", "+254712000001")).toMatchObject(e(422, `customer_id ceo@bank.example\\u{0}x ${unsafe}`))
    expect(await start("moc.elpmaxe@\u202Eeoc", "+254712000001")).toMatchObject(e(422, `customer_id moc.elpmaxe@\\u{202e}eoc ${unsafe}`))
    expect(await start("\uFF43\uFF45\uFF4F@bank.example", "+254712000001")).toMatchObject(
      e(422, `customer_id \\u{ff43}\\u{ff45}\\u{ff4f}@bank.example ${unsafe}`),
    )
    expect(await post("/kyc/customers/document", { customer_id: "x@y.co", images: [] })).toMatchObject(e(422, "At least one document image is required"))
    expect(await post("/kyc/customers/face", { customer_id: "x@y.co" })).toMatchObject(e(422, "A liveness transaction id is required"))
    expect(await post("/kyc/customers/verification", { rp_urn: "7" })).toMatchObject(e(422, "customer_id is required"))
    expect(await post("/kyc/customers/verification", { customer_id: "nobody@y.co" })).toMatchObject(e(404, "KYC verification not found"))

    const owner = `owner-${n}@example.com`
    const tel = phone()
    const urn = `urn:shop:${env.rp.clientId}:${n}`
    await start(owner, tel, { rp_urn: urn })
    expect(await start(`other-${n}@example.com`, tel)).toMatchObject(
      e(409, `phone_number ${tel} already belongs to another customer: it is registered to another customer_id`),
    )
    const tel2 = phone()
    expect(await start(owner, tel2)).toMatchObject(
      e(409, `phone_number ${tel2} already belongs to another customer: customer_id ${owner} holds another phone number`),
    )
    expect(await start(owner, tel, { rp_urn: "other-urn" })).toMatchObject(
      e(409, `phone_number ${tel} already belongs to another customer: customer_id ${owner} holds another rp_urn`),
    )
    expect(await start(`third-${n}@example.com`, tel2, { rp_urn: urn })).toMatchObject(
      e(409, `phone_number ${tel2} already belongs to another customer: rp_urn ${urn} is held by another customer`),
    )
    expect(await post("/kyc/customers/verification", { customer_id: owner, rp_urn: "99" })).toMatchObject(
      e(409, `rp_urn 99 does not belong to this customer_id: this customer_id holds another rp_urn`),
    )
    expect(await post("/kyc/customers/verification", { customer_id: owner, rp_urn: "urn:shop:rp_sbx_other:1" })).toMatchObject(
      e(403, "rp_urn urn:shop:rp_sbx_other:1 belongs to another RP"),
    )
    expect((await post("/kyc/customers/verification", { customer_id: owner, rp_urn: urn })).status).toBe(200)
  })

  it("403 when KYC is not enabled for the RP; 413 above 15 MiB; 429 past 20 per minute per IP", async () => {
    const other = await env.engine.run(registerRelyingParty({ name: "No KYC", status: "approved" }))
    expect(
      await post("/kyc/verifications", { customer_id: "a@b.co", phone_number: "+254712000001" }, `Basic ${btoa(`${other.rp.clientId}:${other.clientSecret}`)}`),
    ).toMatchObject({ status: 403, body: { error: "KYC is not enabled for this RP" } })
    const big = await post("/kyc/customers/document", { customer_id: "a@b.co", image: "A".repeat(16 * 1024 * 1024) })
    expect(big.status).toBe(413)
    const answers: Array<number> = []
    for (let i = 0; i < 21; i++) answers.push((await post("/kyc/customers/liveness-session", { customer_id: "nobody@b.co" })).status)
    expect(answers.slice(0, 20).every((s) => s === 404)).toBe(true)
    expect(await post("/kyc/customers/liveness-session", { customer_id: "nobody@b.co" })).toMatchObject({
      status: 429,
      body: { error: "Rate limit exceeded. Please try again later." },
    })
  })
})
