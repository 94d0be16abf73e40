/** The storage contract and the model-based state-machine suites on the in-memory adapter. */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, type Layer, Option } from "effect"
import type { StorageServices } from "@signet/adapters-sql"
import { AuditLog, StepUpProofs, Storage, UniqueViolation, Users } from "@signet/core"
import { relyingPartyModel, signingModel, signingTokenModel, tokenFamilyModel } from "@signet/testkit/models"
import { sampleUser, storageConformance } from "@signet/testkit/storage"
import { StorageMemory } from "./index.ts"

// Every tag the SQL adapters provide, the in-memory store provides too: a repository added there without one here fails the typecheck.
const sameTagsAsSql: Layer.Layer<StorageServices> = StorageMemory
void sameTagsAsSql

storageConformance("memory", () => StorageMemory)

relyingPartyModel("memory", () => StorageMemory)
signingModel("memory", () => StorageMemory)
signingTokenModel("memory", () => StorageMemory)
tokenFamilyModel("memory", () => StorageMemory)

describe("StorageMemory beyond the shared contract", () => {
  it.effect("a statement outside a transaction waits for it to end: nobody reads its writes before the commit", () =>
    Effect.gen(function* () {
      const storage = yield* Storage
      const users = yield* Users
      const written = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const tx = yield* Effect.fork(
        storage.transaction(
          Effect.gen(function* () {
            yield* users.insert(sampleUser())
            yield* Deferred.succeed(written, undefined)
            yield* Deferred.await(release)
          }),
        ),
      )
      yield* Deferred.await(written)
      const reader = yield* Effect.fork(users.findById(sampleUser().id))
      yield* Effect.yieldNow()
      expect(yield* Fiber.poll(reader)).toEqual(Option.none())
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(tx)
      expect(yield* Fiber.join(reader)).toEqual(Option.some(sampleUser()))
    }).pipe(Effect.provide(StorageMemory)),
  )

  it.effect("a statement that fails on a unique key leaves nothing of itself behind", () =>
    Effect.gen(function* () {
      const users = yield* Users
      yield* users.insert(sampleUser())
      const taken = yield* Effect.flip(users.insert(sampleUser({ id: "usr_other" })))
      expect(taken).toEqual(new UniqueViolation({ what: "email" }))
      expect(yield* users.findById("usr_other")).toEqual(Option.none())
    }).pipe(Effect.provide(StorageMemory)),
  )

  it.effect("each build of the layer is a new, empty store", () =>
    Effect.gen(function* () {
      yield* Effect.provide(
        Effect.flatMap(Users, (u) => u.insert(sampleUser())),
        StorageMemory,
      )
      expect(
        yield* Effect.provide(
          Effect.flatMap(Users, (u) => u.findById(sampleUser().id)),
          StorageMemory,
        ),
      ).toEqual(Option.none())
    }),
  )

  it.effect("a step-up proof is spent once, only by its user, client and action, and not after it expired", () =>
    Effect.gen(function* () {
      const proofs = yield* StepUpProofs
      const base = { proofHash: "h1", userId: "u1", clientId: "c1", action: "decrypt" as const, createdAt: 1_000, expiresAt: 121_000 }
      yield* proofs.insert(base)
      yield* proofs.insert({ ...base, proofHash: "h2" })
      const spend = (over: Partial<{ userId: string; clientId: string; action: "decrypt" | "rotate-secrets"; now: number }>) =>
        proofs.consume({ proofHash: "h1", userId: "u1", clientId: "c1", action: "decrypt", now: 2_000, ...over })
      expect(yield* spend({ userId: "u2" })).toBe(false)
      expect(yield* spend({ clientId: "c2" })).toBe(false)
      expect(yield* spend({ action: "rotate-secrets" })).toBe(false)
      expect(yield* spend({ now: 121_000 })).toBe(false)
      const both = yield* Effect.all([spend({}), spend({})], { concurrency: 2 })
      expect(both.filter(Boolean)).toHaveLength(1)
      expect(yield* spend({})).toBe(false)
      expect(yield* proofs.purgeExpired(200_000)).toBe(2)
    }).pipe(Effect.provide(StorageMemory)),
  )

  it.effect("the audit trail keeps each event with its facts, newest first", () =>
    Effect.gen(function* () {
      const log = yield* AuditLog
      yield* log.append({
        id: "e1",
        at: 10,
        action: "certificate.revoked",
        actorUserId: "u1",
        actorClientId: "rp_sbx_x",
        subject: "ab01",
        detail: { reason: "keyCompromise", grace: true, none: null },
      })
      yield* log.append({ id: "e2", at: 20, action: "admin.rp-command", actorUserId: null, actorClientId: "admin", subject: "rp_sbx_x", detail: {} })
      expect((yield* log.recent(10)).map((e) => e.id)).toEqual(["e2", "e1"])
      expect((yield* log.recent(10))[1]?.detail).toEqual({ reason: "keyCompromise", grace: true, none: null })
      expect(yield* log.recent(1)).toHaveLength(1)
    }).pipe(Effect.provide(StorageMemory)),
  )
})
