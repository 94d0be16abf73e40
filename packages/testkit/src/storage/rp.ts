/** Storage conformance of the rp module: relying parties and their organisation checks. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { RelyingParties, RpOrganisationChecks } from "@signet/core"
import { bareRelyingParty, FAR_FUTURE_MS, sampleRelyingParty } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

/** The rp module's repositories against the storage contract. */
export const rpConformance = conformanceSuite<RelyingParties | RpOrganisationChecks>()("rp", ({ test, uniqueViolation }) => {
  describe("RelyingParties", () => {
    test("insert assigns an id and every field round-trips by id and by client id", () =>
      Effect.gen(function* () {
        const rps = yield* RelyingParties
        const input = sampleRelyingParty()
        const rp = yield* rps.insert(input)
        expect(rp).toEqual({ ...input, id: rp.id })
        expect(Number.isInteger(rp.id)).toBe(true)
        expect(yield* rps.findById(rp.id)).toEqual(Option.some(rp))
        expect(yield* rps.findByClientId(input.clientId)).toEqual(Option.some(rp))
      }))

    test("null fields, an empty origin list and false flags round-trip", () =>
      Effect.gen(function* () {
        const rps = yield* RelyingParties
        const input = bareRelyingParty()
        const rp = yield* rps.insert(input)
        expect(rp).toEqual({ ...input, id: rp.id })
        expect(yield* rps.findById(rp.id)).toEqual(Option.some(rp))
      }))

    test("a taken client id is a UniqueViolation and changes nothing", () =>
      Effect.gen(function* () {
        const rps = yield* RelyingParties
        const first = yield* rps.insert(sampleRelyingParty())
        const e = yield* uniqueViolation(rps.insert(sampleRelyingParty({ name: "other" })))
        expect(e.what).toBe("client id")
        expect(yield* rps.list()).toEqual([first])
      }))

    test("update replaces every field but the id; an unknown id is a no-op", () =>
      Effect.gen(function* () {
        const rps = yield* RelyingParties
        const rp = yield* rps.insert(sampleRelyingParty())
        const changed = {
          ...bareRelyingParty({ clientId: "sbx_client_renamed", createdAt: rp.createdAt, updatedAt: FAR_FUTURE_MS + 99 }),
          id: rp.id,
        }
        yield* rps.update(changed)
        expect(yield* rps.findById(rp.id)).toEqual(Option.some(changed))
        expect(yield* rps.findByClientId(rp.clientId)).toEqual(Option.none())
        yield* rps.update({ ...changed, id: rp.id + 1000, name: "ghost" })
        yield* rps.update({ ...changed, id: FAR_FUTURE_MS, name: "ghost" })
        expect(yield* rps.list()).toEqual([changed])
      }))

    test("list is oldest first; unknown ids and client ids are None", () =>
      Effect.gen(function* () {
        const rps = yield* RelyingParties
        const late = yield* rps.insert(sampleRelyingParty({ clientId: "c_late", createdAt: 3000 }))
        const early = yield* rps.insert(sampleRelyingParty({ clientId: "c_early", createdAt: 1000 }))
        const middle = yield* rps.insert(sampleRelyingParty({ clientId: "c_middle", createdAt: 2000 }))
        expect(new Set([late.id, early.id, middle.id]).size).toBe(3)
        expect(yield* rps.list()).toEqual([early, middle, late])
        expect(yield* rps.findById(late.id + early.id + middle.id + 1)).toEqual(Option.none())
        expect(yield* rps.findById(FAR_FUTURE_MS)).toEqual(Option.none())
        expect(yield* rps.findById(-1)).toEqual(Option.none())
        expect(yield* rps.findByClientId("nope")).toEqual(Option.none())
      }))

    test("list is empty on a new store", () =>
      Effect.gen(function* () {
        expect(yield* (yield* RelyingParties).list()).toEqual([])
      }))
  })

  describe("RpOrganisationChecks", () => {
    test("entries append, round-trip every field and list per RP oldest first", () =>
      Effect.gen(function* () {
        const checks = yield* RpOrganisationChecks
        const submitted = yield* checks.insert({
          clientId: "rp_a",
          status: "submitted",
          legalName: "Ärzte «Nord» 署名 Ltd",
          registrationNumber: "PVT-2026/42",
          country: "KE",
          documents: [
            { kind: "certificate_of_incorporation", reference: "CI/42" },
            { kind: "tax_registration", reference: "P051234567X" },
          ],
          submittedBy: "usr_contact",
          checkedBy: null,
          note: null,
          createdAt: FAR_FUTURE_MS,
        })
        yield* checks.insert({ ...submitted, clientId: "rp_b", createdAt: 1 })
        const verified = yield* checks.insert({
          clientId: "rp_a",
          status: "verified",
          legalName: "Ärzte «Nord» 署名 Ltd",
          registrationNumber: "PVT-2026/42",
          country: "KE",
          documents: [],
          submittedBy: null,
          checkedBy: "R. Admin",
          note: "registry extract seen",
          createdAt: FAR_FUTURE_MS + 5,
        })
        expect(verified.id).toBeGreaterThan(submitted.id)
        expect(yield* checks.listByClientId("rp_a")).toEqual([submitted, verified])
        expect(yield* checks.listByClientId("rp_none")).toEqual([])
      }))
  })
})
