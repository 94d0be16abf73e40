/**
 * Identity verification end to end with the LOCAL adapters (MRZ OCR, face matching and
 * liveness from installed models), over real HTTP on SQLite, with every network fetch refused.
 */
import { configureKyc } from "@signet/core"
import { DISTINCT_FACES, encodeRgb, faceTile, KycProvidersLocal, toGrey, variant } from "@signet/kyc-local"
import { composeTd3 } from "@signet/core"
import { ALICE, encodeJpeg, renderDocument } from "@signet/testkit/kyc"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

type Json = Record<string, unknown>
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")

describe("KYC with the local adapters (offline models) over HTTP", () => {
  let env: RunningEngine
  let basic: string
  const realFetch = globalThis.fetch
  const fetched: Array<string> = []

  beforeAll(async () => {
    // Offline: any fetch that is not to this test's own loopback server fails the test.
    globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input)
      if (!url.startsWith("http://localhost:") && !url.startsWith("http://127.0.0.1:")) {
        fetched.push(url)
        return Promise.reject(new Error(`network fetch refused: ${url}`))
      }
      return realFetch(input, init)
    }) as typeof fetch
    env = await startEngine({ kycProviders: KycProvidersLocal })
    await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
    basic = `Basic ${btoa(`${env.rp.clientId}:${env.rp.clientSecret}`)}`
  })
  afterAll(async () => {
    globalThis.fetch = realFetch
    await env?.stop()
  })

  const post = (path: string, body: unknown, auth: string | null = basic) =>
    env.client.raw<Json>("POST", path, { body, ...(auth === null ? {} : { headers: { authorization: auth } }) })

  it("start → passport photo read by OCR → live frames with a head movement → face matched → verified", async () => {
    const person = DISTINCT_FACES[0]
    const photo = faceTile(person)
    const page = renderDocument("passport", {
      mrz: composeTd3({ issuingState: "KEN", ...ALICE }),
      visual: { surname: ALICE.surname, givenNames: ALICE.givenNames },
      photo: toGrey(photo),
    })
    const customer = "local-alice@example.com"
    expect((await post("/kyc/verifications", { customer_id: customer, phone_number: "+254712999001" })).status).toBe(200)

    const doc = await post("/kyc/customers/document", { customer_id: customer, images: [b64(encodeJpeg(page, 80))] })
    expect(doc).toMatchObject({
      status: 200,
      body: {
        status: "document_verified",
        verified_name: "OTIENO, Grace Akinyi",
        doc_type: "passport",
        doc_number: "AK1234567",
        doc_expiry: "2034-01-01",
        nationality: "KEN",
        reasons: [],
      },
    })

    const session = await post("/kyc/customers/liveness-session", { customer_id: customer })
    const token = session.body["token"] as string
    // a still photo does not meet the challenge
    const still = b64(encodeRgb(photo))
    expect(await post("/kyc/faceapi", { frames: [still, still, still] }, `Bearer ${token}`)).toMatchObject({
      status: 200,
      body: { status: "retry", reason: "challenge_not_met" },
    })
    // the head moves across the frames: shifted and closer
    const frames = [{}, { shiftX: 40 }, { shiftX: 80, scale: 1.15 }, { shiftX: 30, shiftY: 20 }].map((v) => b64(encodeRgb(variant(photo, v))))
    const captured = await post("/kyc/faceapi", { frames }, `Bearer ${token}`)
    expect(captured).toMatchObject({ status: 200, body: { status: "confirmed" } })

    const face = await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: captured.body["transactionId"], return_selfie: true })
    expect(face).toMatchObject({ status: 200, body: { status: "verified", reasons: [] } })
    expect(face.body["face_match_score"] as number).toBeGreaterThanOrEqual(0.75)
    expect(face.body["liveness_score"] as number).toBeGreaterThanOrEqual(0.5)
    expect(fetched).toEqual([])
  })

  it("another person's face fails the verification with face_mismatch", async () => {
    const page = renderDocument("passport", { mrz: composeTd3({ issuingState: "KEN", ...ALICE }), photo: toGrey(faceTile(DISTINCT_FACES[0])) })
    const customer = "local-mallory@example.com"
    await post("/kyc/verifications", { customer_id: customer, phone_number: "+254712999002" })
    expect((await post("/kyc/customers/document", { customer_id: customer, images: [b64(encodeJpeg(page, 80))] })).body["status"]).toBe("document_verified")
    const token = (await post("/kyc/customers/liveness-session", { customer_id: customer })).body["token"] as string
    const other = faceTile(DISTINCT_FACES[3])
    const frames = [{}, { shiftX: 40 }, { shiftX: 80, scale: 1.15 }].map((v) => b64(encodeRgb(variant(other, v))))
    const captured = await post("/kyc/faceapi", { frames }, `Bearer ${token}`)
    expect(captured.body["status"]).toBe("confirmed")
    const face = await post("/kyc/customers/face", { customer_id: customer, livenessTransactionId: captured.body["transactionId"] })
    expect(face).toMatchObject({ status: 200, body: { status: "failed", reasons: ["face_mismatch"] } })
    expect(fetched).toEqual([])
  })
})
