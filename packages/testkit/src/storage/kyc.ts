/** Storage conformance of the kyc module: verifications, liveness captures, encrypted images, the audit log and per-RP settings. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { KycAudit, type KycAuditEntry, type KycCapture, KycCaptures, type KycImage, KycImages, type KycVerification, KycVerifications } from "@signet/core"
import { FAR_FUTURE_MS } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

const sampleVerification = (overrides: Partial<KycVerification> = {}): KycVerification => ({
  id: "kyc_1",
  clientId: "rp_a",
  customerId: "cust-1",
  phoneNumber: "+254712345678",
  rpUrn: "urn:rp:ä-1",
  status: "document_verified",
  document: {
    docType: "P",
    docNumber: "AB123456",
    personalNumber: "",
    surname: "MÜLLER-ÖZ",
    givenNames: "ANNA 署名",
    dateOfBirth: "1990-01-31",
    docExpiry: null,
    nationality: "KEN",
  },
  livenessScore: 0.875,
  faceMatchScore: null,
  reasons: ["document_ok", "mrz_checksum_ok"],
  sessionTokenHash: "s".repeat(64),
  sessionExpiresAt: FAR_FUTURE_MS + 600_000,
  selfieImageId: null,
  createdAt: FAR_FUTURE_MS,
  updatedAt: FAR_FUTURE_MS,
  version: 1,
  ...overrides,
})

const sampleCapture = (overrides: Partial<KycCapture> = {}): KycCapture => ({
  id: "cap_1",
  verificationId: "kyc_1",
  livenessScore: 0.5,
  selfieImageId: "img_s",
  createdAt: FAR_FUTURE_MS,
  consumedAt: null,
  ...overrides,
})

const sampleImage = (overrides: Partial<KycImage> = {}): KycImage => ({
  id: "img_1",
  verificationId: "kyc_1",
  kind: "document",
  position: 0,
  contentType: "image/jpeg",
  ciphertext: "AAEC",
  createdAt: 1000,
  ...overrides,
})

/** The kyc module's repositories against the storage contract. */
export const kycConformance = conformanceSuite<KycVerifications | KycCaptures | KycImages | KycAudit>()("kyc", ({ test, uniqueViolation }) => {
  describe("KycVerifications", () => {
    test("a verification round-trips by id, customer, phone, rp_urn and session token; unknown ones are None", () =>
      Effect.gen(function* () {
        const repo = yield* KycVerifications
        const v = sampleVerification()
        yield* repo.insert(v)
        const bare = sampleVerification({
          id: "kyc_2",
          customerId: "cust-2",
          phoneNumber: "+254700000002",
          rpUrn: null,
          status: "pending",
          document: null,
          livenessScore: null,
          reasons: [],
          sessionTokenHash: null,
          sessionExpiresAt: null,
        })
        yield* repo.insert(bare)
        expect(yield* repo.findById("kyc_1")).toEqual(Option.some(v))
        expect(yield* repo.findById("kyc_2")).toEqual(Option.some(bare))
        expect(yield* repo.findByCustomer("rp_a", "cust-1")).toEqual(Option.some(v))
        expect(yield* repo.findByPhone("rp_a", "+254712345678")).toEqual(Option.some(v))
        expect(yield* repo.findByRpUrn("rp_a", "urn:rp:ä-1")).toEqual(Option.some(v))
        expect(yield* repo.findBySessionToken("s".repeat(64))).toEqual(Option.some(v))
        expect(yield* repo.findByCustomer("rp_b", "cust-1")).toEqual(Option.none())
        expect(yield* repo.findById("kyc_none")).toEqual(Option.none())
        expect(yield* repo.findBySessionToken("t".repeat(64))).toEqual(Option.none())
      }))

    test("customer id, phone number and rp_urn are each unique within an RP, not across RPs; null rp_urns never collide", () =>
      Effect.gen(function* () {
        const repo = yield* KycVerifications
        yield* repo.insert(sampleVerification({ rpUrn: null }))
        yield* repo.insert(sampleVerification({ id: "kyc_2", customerId: "cust-2", phoneNumber: "+254700000002", rpUrn: null }))
        yield* repo.insert(sampleVerification({ id: "kyc_3", customerId: "cust-3", phoneNumber: "+254700000003", rpUrn: "urn:3" }))
        const taken = (over: Partial<KycVerification>) =>
          uniqueViolation(repo.insert(sampleVerification({ id: "kyc_x", customerId: "cust-x", phoneNumber: "+254799999999", rpUrn: "urn:x", ...over })))
        expect((yield* taken({ customerId: "cust-1" })).what).toBe("customer_id")
        expect((yield* taken({ phoneNumber: "+254712345678" })).what).toBe("phone_number")
        expect((yield* taken({ rpUrn: "urn:3" })).what).toBe("rp_urn")
        expect(yield* repo.findById("kyc_x")).toEqual(Option.none())
        yield* repo.insert(sampleVerification({ id: "kyc_b", clientId: "rp_b", rpUrn: "urn:3" }))
        expect(Option.isSome(yield* repo.findByCustomer("rp_b", "cust-1"))).toBe(true)
      }))

    test("update stores only from the expected version, once when raced; a taken phone number is a UniqueViolation", () =>
      Effect.gen(function* () {
        const repo = yield* KycVerifications
        yield* repo.insert(sampleVerification())
        yield* repo.insert(sampleVerification({ id: "kyc_2", customerId: "cust-2", phoneNumber: "+254700000002", rpUrn: null }))
        const verified = sampleVerification({ status: "verified", faceMatchScore: 0.91, selfieImageId: "img_s", version: 2, updatedAt: FAR_FUTURE_MS + 1 })
        const failed = sampleVerification({ status: "failed", reasons: ["face_mismatch"], version: 2, updatedAt: FAR_FUTURE_MS + 1 })
        const results = yield* Effect.all([repo.update(verified, 1), repo.update(failed, 1)], { concurrency: 2 })
        expect(results.filter(Boolean)).toHaveLength(1)
        const stored = results[0] ? verified : failed
        expect(yield* repo.findById("kyc_1")).toEqual(Option.some(stored))
        expect(yield* repo.update(sampleVerification({ version: 2 }), 1)).toBe(false)
        const e = yield* uniqueViolation(repo.update({ ...stored, phoneNumber: "+254700000002", version: 3 }, 2))
        expect(e.what).toBe("phone_number")
        expect(yield* repo.findById("kyc_1")).toEqual(Option.some(stored))
      }))

    test("the verified identity of a customer at any RP is the most recently updated verified one", () =>
      Effect.gen(function* () {
        const repo = yield* KycVerifications
        yield* repo.insert(sampleVerification({ id: "kyc_old", clientId: "rp_a", status: "verified", updatedAt: 1000 }))
        yield* repo.insert(sampleVerification({ id: "kyc_new", clientId: "rp_b", status: "verified", updatedAt: 3000 }))
        yield* repo.insert(sampleVerification({ id: "kyc_pending", clientId: "rp_c", status: "needs_review", updatedAt: 5000 }))
        expect(Option.map(yield* repo.findVerifiedAnywhere("cust-1"), (v) => v.id)).toEqual(Option.some("kyc_new"))
        expect(yield* repo.findVerifiedAnywhere("cust-none")).toEqual(Option.none())
      }))

    test("remove deletes the verification with its captures and images, and nothing of another", () =>
      Effect.gen(function* () {
        const repo = yield* KycVerifications
        const captures = yield* KycCaptures
        const images = yield* KycImages
        yield* repo.insert(sampleVerification())
        yield* repo.insert(sampleVerification({ id: "kyc_2", customerId: "cust-2", phoneNumber: "+254700000002", rpUrn: null }))
        yield* captures.insert(sampleCapture())
        yield* captures.insert(sampleCapture({ id: "cap_2", verificationId: "kyc_2" }))
        yield* images.insert(sampleImage())
        yield* images.insert(sampleImage({ id: "img_2", verificationId: "kyc_2" }))
        yield* repo.remove("kyc_1")
        expect(yield* repo.findById("kyc_1")).toEqual(Option.none())
        expect(yield* captures.findById("cap_1")).toEqual(Option.none())
        expect(yield* images.findById("img_1")).toEqual(Option.none())
        expect(Option.isSome(yield* repo.findById("kyc_2"))).toBe(true)
        expect(yield* captures.findById("cap_2")).toEqual(Option.some(sampleCapture({ id: "cap_2", verificationId: "kyc_2" })))
        expect(yield* images.findById("img_2")).toEqual(Option.some(sampleImage({ id: "img_2", verificationId: "kyc_2" })))
      }))
  })

  describe("KycCaptures", () => {
    test("a capture round-trips and is consumed once, even when raced", () =>
      Effect.gen(function* () {
        const captures = yield* KycCaptures
        yield* captures.insert(sampleCapture())
        expect(yield* captures.findById("cap_1")).toEqual(Option.some(sampleCapture()))
        expect((yield* uniqueViolation(captures.insert(sampleCapture()))).what).toBe("capture id")
        const both = yield* Effect.all([captures.consume("cap_1", 7), captures.consume("cap_1", 8)], { concurrency: 2 })
        expect(both.filter(Boolean)).toHaveLength(1)
        const consumedAt = Option.getOrThrow(yield* captures.findById("cap_1")).consumedAt
        expect(consumedAt === 7 || consumedAt === 8).toBe(true)
        expect(yield* captures.consume("cap_1", 9)).toBe(false)
        expect(yield* captures.consume("cap_none", 9)).toBe(false)
      }))
  })

  describe("KycImages", () => {
    test("images list by position then age per kind, are removed per kind, and purge before a time", () =>
      Effect.gen(function* () {
        const images = yield* KycImages
        const back = sampleImage({ id: "img_back", position: 1, createdAt: 1000 })
        const frontLate = sampleImage({ id: "img_front_late", position: 0, createdAt: 3000 })
        const frontEarly = sampleImage({ id: "img_front_early", position: 0, createdAt: 2000 })
        const selfie = sampleImage({ id: "img_selfie", kind: "selfie", contentType: "image/png", createdAt: 4000 })
        for (const image of [back, frontLate, frontEarly, selfie]) yield* images.insert(image)
        expect((yield* uniqueViolation(images.insert(back))).what).toBe("image id")
        expect(yield* images.listFor("kyc_1", "document")).toEqual([frontEarly, frontLate, back])
        expect(yield* images.listFor("kyc_1", "selfie")).toEqual([selfie])
        expect(yield* images.listFor("kyc_none", "document")).toEqual([])
        yield* images.removeFor("kyc_1", "selfie")
        expect(yield* images.listFor("kyc_1", "selfie")).toEqual([])
        expect(yield* images.purgeBefore(2500)).toBe(2)
        expect(yield* images.listFor("kyc_1", "document")).toEqual([frontLate])
        expect(yield* images.purgeBefore(2500)).toBe(0)
      }))
  })

  describe("KycAudit", () => {
    test("entries list per verification oldest first; settings are saved and replaced per RP", () =>
      Effect.gen(function* () {
        const audit = yield* KycAudit
        const entry = (action: string, over: Partial<KycAuditEntry> = {}): KycAuditEntry => ({
          verificationId: "kyc_1",
          clientId: "rp_a",
          action,
          fromStatus: null,
          toStatus: "pending",
          reasons: [],
          at: 10,
          ...over,
        })
        yield* audit.append(entry("start"))
        yield* audit.append(entry("other", { verificationId: "kyc_2" }))
        // Same time: the order of appending decides.
        yield* audit.append(entry("document", { fromStatus: "pending", toStatus: "document_verified", reasons: ["mrz_ok", "ü"] }))
        expect(yield* audit.listFor("kyc_1")).toEqual([
          entry("start"),
          entry("document", { fromStatus: "pending", toStatus: "document_verified", reasons: ["mrz_ok", "ü"] }),
        ])
        expect(yield* audit.listFor("kyc_none")).toEqual([])
        expect(yield* audit.settingsOf("rp_a")).toEqual(Option.none())
        yield* audit.saveSettings({ clientId: "rp_a", enabled: true, identityScope: "shared", updatedAt: 5 })
        yield* audit.saveSettings({ clientId: "rp_b", enabled: true, identityScope: "rp", updatedAt: 5 })
        yield* audit.saveSettings({ clientId: "rp_a", enabled: false, identityScope: "rp", updatedAt: 6 })
        expect(yield* audit.settingsOf("rp_a")).toEqual(Option.some({ clientId: "rp_a", enabled: false, identityScope: "rp", updatedAt: 6 }))
        expect(yield* audit.settingsOf("rp_b")).toEqual(Option.some({ clientId: "rp_b", enabled: true, identityScope: "rp", updatedAt: 5 }))
      }))
  })
})
