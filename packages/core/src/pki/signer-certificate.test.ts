import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { fromBase64 } from "../kernel/encoding.ts"
import { Certificates } from "./ports.ts"
import { signingIdentityFor, signerSubject } from "./signer-certificate.ts"
import { pkiTestWorld, testUser, type PkiServices, type PkiTestWorld } from "./test-layers.ts"
import "reflect-metadata"
import * as x509 from "@peculiar/x509"

const run = <A>(world: PkiTestWorld, effect: Effect.Effect<A, never, PkiServices>) => Effect.runPromise(Effect.provide(effect, world.layer))

describe("signingIdentityFor", () => {
  it("gives the same certificate every time, even to concurrent first uses (CA included)", async () => {
    const world = pkiTestWorld()
    const user = testUser()
    const racers = await run(
      world,
      Effect.all(
        Array.from({ length: 6 }, () => signingIdentityFor(user)),
        { concurrency: "unbounded" },
      ),
    )
    expect(new Set(racers.map((i) => i.certificate.serial)).size).toBe(1)
    expect(new Set(racers.map((i) => i.certificate.der)).size).toBe(1)
    expect(new Set(racers.map((i) => i.chain[0]!.serial)).size).toBe(1)
    expect([...world.certificates.values()].map((c) => c.kind).sort()).toEqual(["issuing", "root", "signer"])
    const signaturesAfterRace = world.signatures()
    expect(signaturesAfterRace).toBeGreaterThan(3) // the racers really raced: several issued, one was kept
    const later = await run(world, signingIdentityFor(user))
    expect(later).toEqual(racers[0])
    expect(world.signatures()).toBe(signaturesAfterRace) // nothing new was issued
  })

  it("gives different users different keys and certificates", async () => {
    const world = pkiTestWorld()
    const [a, b] = await run(world, Effect.all([signingIdentityFor(testUser()), signingIdentityFor(testUser())], { concurrency: "unbounded" }))
    expect(a!.keyId).not.toBe(b!.keyId)
    expect(a!.certificate.serial).not.toBe(b!.certificate.serial)
    expect(a!.chain[0]!.serial).toBe(b!.chain[0]!.serial)
  })

  it("issues a new key generation when the certificate is revoked", async () => {
    const world = pkiTestWorld()
    const user = testUser()
    const first = await run(world, signingIdentityFor(user))
    await run(
      world,
      Effect.flatMap(Certificates, (c) => c.revoke(first.certificate.serial, Date.now(), "keyCompromise")),
    )
    const second = await run(world, signingIdentityFor(user))
    expect(second.keyId).toBe(`sandbox/signer/${user.id}/2`)
    expect(second.certificate.serial).not.toBe(first.certificate.serial)
    expect(second.certificate.status).toBe("valid")
    expect(await run(world, signingIdentityFor(user))).toEqual(second)
  })

  it("issues a new certificate when the user's certified e-mail changed", async () => {
    const world = pkiTestWorld()
    const user = testUser({ email: "old@example.com" })
    const first = await run(world, signingIdentityFor(user))
    const second = await run(world, signingIdentityFor({ ...user, email: "new@example.com" }))
    expect(second.certificate.serial).not.toBe(first.certificate.serial)
    expect(second.certificate.subject).toMatch(/E=new@example.com/)
  })

  it("names a proven e-mail (a non-ASCII one in a UTF8String CN of at most 64 characters, not in E)", () => {
    const long = `${"zoë".repeat(30)}@exämple.com`
    const dn = signerSubject("production", { id: "u1", email: long, emailVerifiedAt: 1 })
    expect(dn.map((a) => a.type)).toEqual(["CN"])
    expect(Array.from(dn[0]!.value)).toHaveLength(64)
    expect(signerSubject("sandbox", { id: "u1", email: "x@y.z", emailVerifiedAt: 1 })).toEqual([
      { type: "OU", value: "SANDBOX" },
      { type: "CN", value: "x@y.z" },
      { type: "E", value: "x@y.z" },
    ])
  })

  it("certifies nothing the user merely claimed: an unproven e-mail and any display name stay out", async () => {
    const world = pkiTestWorld()
    const user = testUser({ displayName: "Chief Executive Officer, Bank Example Ltd", email: "ceo@bank.example", emailVerifiedAt: null })
    const identity = await run(world, signingIdentityFor(user))
    const cert = new x509.X509Certificate(new Uint8Array(fromBase64(identity.certificate.der)!))
    expect(cert.subjectName.getField("CN")).toEqual([`Signet account ${user.id}`])
    expect(cert.subjectName.getField("E")).toEqual([])
    expect(cert.getExtension(x509.SubjectAlternativeNameExtension)).toBeNull()
    expect(identity.certificate.subject).not.toMatch(/Chief|bank/i)
    // Once the e-mail is proven, the next use certifies it (a new key generation).
    const proven = await run(world, signingIdentityFor({ ...user, emailVerifiedAt: 1 }))
    expect(proven.certificate.serial).not.toBe(identity.certificate.serial)
    expect(proven.certificate.subject).toBe("E=ceo@bank.example, CN=ceo@bank.example, OU=SANDBOX")
  })
})
