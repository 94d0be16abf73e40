/** Storage conformance of the ssc module: operations of the signing-token flow. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { type SscOperation, SscOperations } from "@signet/core"
import { FAR_FUTURE_MS } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

const sampleOperation = (overrides: Partial<SscOperation> = {}): SscOperation => ({
  id: "op_1",
  clientId: "rp_sbx_1",
  tokenId: "jti-1",
  documentHash: "ab".repeat(32),
  documentName: "Contrat «été» 署名.pdf",
  loa: "LOA-2",
  mode: "anonymous",
  rpOrigin: "https://app.example.com",
  userId: null,
  credentialId: null,
  status: "pending_auth",
  nonce: "n".repeat(43),
  failedAttempts: 0,
  createdAt: FAR_FUTURE_MS,
  expiresAt: FAR_FUTURE_MS + 300_000,
  completedAt: null,
  signatureId: null,
  signature: null,
  certificateSerial: null,
  errorMessage: null,
  ...overrides,
})

/** The ssc module's repositories against the storage contract. */
export const sscConformance = conformanceSuite<SscOperations>()("ssc", ({ test, uniqueViolation }) => {
  describe("SscOperations", () => {
    test("an operation round-trips by id; a taken id is a UniqueViolation; unknown ids are None", () =>
      Effect.gen(function* () {
        const operations = yield* SscOperations
        yield* operations.insert(sampleOperation())
        expect(yield* operations.findById("op_1")).toEqual(Option.some(sampleOperation()))
        expect((yield* uniqueViolation(operations.insert(sampleOperation({ tokenId: "jti-2" })))).what).toBe("operation id")
        expect(yield* operations.findById("op_1")).toEqual(Option.some(sampleOperation()))
        expect(yield* operations.findById("op_2")).toEqual(Option.none())
      }))

    test("update stores the operation only from the expected status, once even when raced", () =>
      Effect.gen(function* () {
        const operations = yield* SscOperations
        yield* operations.insert(sampleOperation())
        const finalized = sampleOperation({
          status: "finalized",
          userId: "usr_1",
          credentialId: "cred-1",
          completedAt: FAR_FUTURE_MS + 5,
          signatureId: "sig_1",
          signature: "MIIB",
          certificateSerial: "0a1b",
          failedAttempts: 1,
        })
        const failed = sampleOperation({ status: "failed", errorMessage: "too many attempts", completedAt: FAR_FUTURE_MS + 5 })
        const results = yield* Effect.all([operations.update(finalized, "pending_auth"), operations.update(failed, "pending_auth")], { concurrency: 2 })
        expect(results.filter(Boolean)).toHaveLength(1)
        const stored = Option.getOrThrow(yield* operations.findById("op_1"))
        expect(stored).toEqual(results[0] ? finalized : failed)
        expect(yield* operations.update(sampleOperation({ status: "expired" }), "pending_auth")).toBe(false)
        expect(yield* operations.findById("op_1")).toEqual(Option.some(stored))
        expect(yield* operations.update(sampleOperation({ id: "op_none" }), "pending_auth")).toBe(false)
        expect(yield* operations.findById("op_none")).toEqual(Option.none())
      }))

    test("the RPs a certificate signed for are those of its finalized operations, each once", () =>
      Effect.gen(function* () {
        const operations = yield* SscOperations
        const signed = { status: "finalized" as const, certificateSerial: "0a1b", completedAt: FAR_FUTURE_MS + 1, signature: "MIIB" }
        yield* operations.insert(sampleOperation({ id: "op_a1", clientId: "rp_a", ...signed }))
        yield* operations.insert(sampleOperation({ id: "op_a2", clientId: "rp_a", ...signed }))
        yield* operations.insert(sampleOperation({ id: "op_b", clientId: "rp_b", ...signed }))
        yield* operations.insert(sampleOperation({ id: "op_c", clientId: "rp_c", ...signed, certificateSerial: "ffff" }))
        yield* operations.insert(sampleOperation({ id: "op_d", clientId: "rp_d", certificateSerial: "0a1b", status: "failed" }))
        expect([...(yield* operations.clientIdsSignedWith("0a1b"))].sort()).toEqual(["rp_a", "rp_b"])
        expect(yield* operations.clientIdsSignedWith("none")).toEqual([])
      }))
  })
})
