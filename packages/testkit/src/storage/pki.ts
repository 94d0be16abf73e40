/** Storage conformance of the pki module: key records and certificates. */
import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Certificates, KeyRecords, type StoredCertificate } from "@signet/core"
import { FAR_FUTURE_MS, sampleStoredKey } from "./fixtures.ts"
import { conformanceSuite } from "./suite.ts"

/** The pki module's repositories against the storage contract. */
export const pkiConformance = conformanceSuite<KeyRecords | Certificates>()("pki", ({ test, uniqueViolation }) => {
  describe("KeyRecords", () => {
    test("insert, find and list (oldest first) round-trip; a taken key id is a UniqueViolation", () =>
      Effect.gen(function* () {
        const keys = yield* KeyRecords
        const late = sampleStoredKey({ keyId: "key_late", createdAt: FAR_FUTURE_MS })
        const early = sampleStoredKey({ keyId: "key_early", algorithm: "RS256", createdAt: 1 })
        expect(yield* keys.list()).toEqual([])
        yield* keys.insert(late)
        yield* keys.insert(early)
        expect(yield* keys.findById("key_late")).toEqual(Option.some(late))
        expect(yield* keys.findById("key_none")).toEqual(Option.none())
        expect(yield* keys.list()).toEqual([early, late])
        expect((yield* uniqueViolation(keys.insert(sampleStoredKey({ keyId: "key_late", createdAt: 5 })))).what).toBe("key id")
        expect(yield* keys.list()).toEqual([early, late])
      }))
  })

  describe("Certificates", () => {
    const cert = (over: Partial<StoredCertificate> = {}): StoredCertificate => ({
      serial: "0a1b",
      kind: "signer",
      environment: "sandbox",
      userId: "u1",
      keyId: "sandbox/signer/u1/1",
      subject: "CN=Ada, OU=SANDBOX",
      issuerSerial: "99",
      der: "MIIB",
      notBefore: 1_700_000_000_000,
      notAfter: FAR_FUTURE_MS,
      status: "valid",
      revokedAt: null,
      revocationReason: null,
      createdAt: 1_700_000_000_000,
      ...over,
    })
    test("round-trips, finds the oldest valid CA of a kind and environment, lists a user's newest first", () =>
      Effect.gen(function* () {
        const certs = yield* Certificates
        yield* certs.insert(cert())
        yield* certs.insert(cert({ serial: "0a1c", createdAt: 1_800_000_000_000 }))
        yield* certs.insert(cert({ serial: "01", kind: "root", userId: null, issuerSerial: null, createdAt: 5 }))
        yield* certs.insert(cert({ serial: "02", kind: "root", userId: null, issuerSerial: null, createdAt: 6 }))
        yield* certs.insert(cert({ serial: "03", kind: "root", userId: null, issuerSerial: null, environment: "production", createdAt: 1 }))
        expect(yield* certs.findBySerial("0a1b")).toEqual(Option.some(cert()))
        expect(Option.map(yield* certs.findCurrentCa("root", "sandbox"), (c) => c.serial)).toEqual(Option.some("01"))
        expect(yield* certs.findCurrentCa("issuing", "sandbox")).toEqual(Option.none())
        expect((yield* certs.listByUser("u1")).map((c) => c.serial)).toEqual(["0a1c", "0a1b"])
        yield* uniqueViolation(certs.insert(cert()))
      }))
    test("finds the current root and issuing CA together, each as findCurrentCa does", () =>
      Effect.gen(function* () {
        const certs = yield* Certificates
        const serials = (cas: { readonly root: Option.Option<{ readonly serial: string }>; readonly issuing: Option.Option<{ readonly serial: string }> }) => ({
          root: Option.getOrNull(Option.map(cas.root, (c) => c.serial)),
          issuing: Option.getOrNull(Option.map(cas.issuing, (c) => c.serial)),
        })
        expect(serials(yield* certs.findCurrentCas("sandbox"))).toEqual({ root: null, issuing: null })
        yield* certs.insert(cert({ serial: "0a1b", createdAt: 1 }))
        yield* certs.insert(cert({ serial: "02", kind: "root", userId: null, issuerSerial: null, createdAt: 6 }))
        yield* certs.insert(cert({ serial: "01", kind: "root", userId: null, issuerSerial: null, createdAt: 6 }))
        yield* certs.insert(cert({ serial: "03", kind: "root", userId: null, issuerSerial: null, environment: "production", createdAt: 1 }))
        yield* certs.insert(cert({ serial: "04", kind: "tsa", userId: null, issuerSerial: "01", createdAt: 2 }))
        // a root and no issuing CA yet; same creation time: the lower serial is current
        expect(serials(yield* certs.findCurrentCas("sandbox"))).toEqual({ root: "01", issuing: null })
        yield* certs.insert(cert({ serial: "12", kind: "issuing", userId: null, issuerSerial: "01", createdAt: 8 }))
        yield* certs.insert(cert({ serial: "11", kind: "issuing", userId: null, issuerSerial: "01", createdAt: 9 }))
        expect(serials(yield* certs.findCurrentCas("sandbox"))).toEqual({ root: "01", issuing: "12" })
        // a revoked CA is not current; the next oldest valid one is
        yield* certs.revoke("01", 10, "keyCompromise")
        yield* certs.revoke("12", 10, "keyCompromise")
        expect(serials(yield* certs.findCurrentCas("sandbox"))).toEqual({ root: "02", issuing: "11" })
        expect(serials(yield* certs.findCurrentCas("production"))).toEqual({ root: "03", issuing: null })
        for (const environment of ["sandbox", "production"]) {
          const together = serials(yield* certs.findCurrentCas(environment))
          const apart = serials({ root: yield* certs.findCurrentCa("root", environment), issuing: yield* certs.findCurrentCa("issuing", environment) })
          expect(together).toEqual(apart)
        }
      }))
    test("revoke marks a valid certificate once and records when and why", () =>
      Effect.gen(function* () {
        const certs = yield* Certificates
        yield* certs.insert(cert())
        yield* certs.revoke("0a1b", 1_900_000_000_000, "keyCompromise")
        yield* certs.revoke("0a1b", 2_000_000_000_000, "superseded")
        expect(yield* certs.findBySerial("0a1b")).toEqual(
          Option.some(cert({ status: "revoked", revokedAt: 1_900_000_000_000, revocationReason: "keyCompromise" })),
        )
      }))
  })
})
