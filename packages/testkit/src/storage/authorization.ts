/** Storage conformance of the authorization module: single-use step-up proofs and the audit trail. */
import { describe, expect } from "@effect/vitest"
import { Effect } from "effect"
import { AuditLog, StepUpProofs } from "@signet/core"
import { conformanceSuite } from "./suite.ts"

/** The authorization module's repositories against the storage contract. */
export const authorizationConformance = conformanceSuite<StepUpProofs | AuditLog>()("authorization", ({ test }) => {
  describe("StepUpProofs and AuditLog", () => {
    test("a step-up proof is spent once, only by its user, client and action, and not after it expired", () =>
      Effect.gen(function* () {
        const proofs = yield* StepUpProofs
        const base = { proofHash: "h1", userId: "u1", clientId: "c1", action: "decrypt" as const, createdAt: 1_000, expiresAt: 121_000 }
        yield* proofs.insert(base)
        yield* proofs.insert({ ...base, proofHash: "h2" })
        const spend = (over: Partial<{ proofHash: string; userId: string; clientId: string; action: "decrypt" | "rotate-secrets"; now: number }>) =>
          proofs.consume({ proofHash: "h1", userId: "u1", clientId: "c1", action: "decrypt", now: 2_000, ...over })
        expect(yield* spend({ userId: "u2" })).toBe(false)
        expect(yield* spend({ clientId: "c2" })).toBe(false)
        expect(yield* spend({ action: "rotate-secrets" })).toBe(false)
        expect(yield* spend({ now: 121_000 })).toBe(false)
        // two at once: exactly one wins
        const both = yield* Effect.all([spend({}), spend({})], { concurrency: 2 })
        expect(both.filter(Boolean)).toHaveLength(1)
        expect(yield* spend({})).toBe(false)
        expect(yield* proofs.purgeExpired(200_000)).toBe(2)
      }))

    test("the audit trail keeps each event with its facts, newest first", () =>
      Effect.gen(function* () {
        const log = yield* AuditLog
        yield* log.append({
          id: "e1",
          at: 10,
          action: "certificate.revoked",
          actorUserId: "u1",
          actorClientId: "rp_sbx_x",
          subject: "ab01",
          detail: { reason: "keyCompromise", revokedAt: 10, grace: true, none: null },
        })
        yield* log.append({ id: "e2", at: 20, action: "admin.rp-command", actorUserId: null, actorClientId: "admin", subject: "rp_sbx_x", detail: {} })
        expect(yield* log.recent(10)).toEqual([
          { id: "e2", at: 20, action: "admin.rp-command", actorUserId: null, actorClientId: "admin", subject: "rp_sbx_x", detail: {} },
          {
            id: "e1",
            at: 10,
            action: "certificate.revoked",
            actorUserId: "u1",
            actorClientId: "rp_sbx_x",
            subject: "ab01",
            detail: { reason: "keyCompromise", revokedAt: 10, grace: true, none: null },
          },
        ])
        expect(yield* log.recent(1)).toHaveLength(1)
      }))
  })
})
