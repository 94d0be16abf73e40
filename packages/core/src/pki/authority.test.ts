import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, TestClock, TestContext } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { fromBase64 } from "../kernel/encoding.ts"
import { certificateAuthority } from "./authority.ts"
import { toPem } from "./cms.ts"
import type { StoredCertificate } from "./model.ts"
import { signingIdentityFor } from "./signer-certificate.ts"
import { pkiTestWorld, testUser, type PkiServices, type PkiTestWorld } from "./test-layers.ts"
import "reflect-metadata"
import * as x509 from "@peculiar/x509"

const run = <A>(world: PkiTestWorld, effect: Effect.Effect<A, never, PkiServices>) => Effect.runPromise(Effect.provide(effect, world.layer))
const parse = (c: StoredCertificate) => new x509.X509Certificate(new Uint8Array(fromBase64(c.der)!))

const dir = mkdtempSync(join(tmpdir(), "signet-pki-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const pemFile = (name: string, c: StoredCertificate) => {
  const path = join(dir, name)
  writeFileSync(path, toPem(fromBase64(c.der)!))
  return path
}

describe("certificateAuthority", () => {
  it("makes a sandbox root and issuing CA, and a signer certificate that openssl verifies up to the root", async () => {
    const world = pkiTestWorld()
    const before = Date.now()
    const user = testUser({ displayName: "Ada Lovelace, Countess", email: "ada@example.com" })
    const { ca, identity } = await run(world, Effect.all({ ca: certificateAuthority, identity: signingIdentityFor(user) }))

    const root = parse(ca.root)
    const issuing = parse(ca.issuing)
    const signer = parse(identity.certificate)

    // subjects, and the SANDBOX marking a reader sees
    expect(ca.root.subject).toBe("CN=Signet Sandbox Root CA, OU=SANDBOX, O=Signet")
    expect(ca.issuing.subject).toBe("CN=Signet Sandbox Issuing CA 1, OU=SANDBOX, O=Signet")
    // The display name is the user's claim and stays out; the proven e-mail is the name.
    expect(identity.certificate.subject).toBe("E=ada@example.com, CN=ada@example.com, OU=SANDBOX")
    expect(root.subjectName.getField("OU")).toEqual(["SANDBOX"])
    expect(issuing.subjectName.getField("OU")).toEqual(["SANDBOX"])
    expect(signer.subjectName.getField("OU")).toEqual(["SANDBOX"])
    expect(signer.subjectName.getField("CN")).toEqual(["ada@example.com"])
    expect(signer.subjectName.getField("E")).toEqual(["ada@example.com"])

    // root: self-signed CA
    expect(await root.isSelfSigned()).toBe(true)
    const rootBc = root.getExtension(x509.BasicConstraintsExtension)!
    expect([rootBc.ca, rootBc.critical, rootBc.pathLength]).toEqual([true, true, undefined])
    const rootKu = root.getExtension(x509.KeyUsagesExtension)!
    expect([rootKu.usages, rootKu.critical]).toEqual([x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true])
    const rootSki = root.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId
    expect(root.getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId).toBe(rootSki)
    expect(root.notAfter.getUTCFullYear() - root.notBefore.getUTCFullYear()).toBe(20)

    // issuing: signed by the root, CA with pathLen 0
    expect(await issuing.verify({ publicKey: root.publicKey, signatureOnly: true })).toBe(true)
    expect(issuing.issuer).toBe(root.subject)
    const issuingBc = issuing.getExtension(x509.BasicConstraintsExtension)!
    expect([issuingBc.ca, issuingBc.critical, issuingBc.pathLength]).toEqual([true, true, 0])
    expect(issuing.getExtension(x509.KeyUsagesExtension)!.usages).toBe(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign)
    expect(issuing.getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId).toBe(rootSki)
    expect(ca.issuing.issuerSerial).toBe(ca.root.serial)
    expect(issuing.notAfter.getTime()).toBeLessThanOrEqual(root.notAfter.getTime())

    // signer: end entity issued by the issuing CA
    expect(await signer.verify({ publicKey: issuing.publicKey, signatureOnly: true })).toBe(true)
    const signerBc = signer.getExtension(x509.BasicConstraintsExtension)!
    expect(signerBc.ca).toBe(false)
    const signerKu = signer.getExtension(x509.KeyUsagesExtension)!
    expect([signerKu.usages, signerKu.critical]).toEqual([x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true])
    expect(signer.getExtension(x509.SubjectAlternativeNameExtension)!.names.toJSON()).toEqual([{ type: "email", value: "ada@example.com" }])
    expect(signer.getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId).toBe(issuing.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId)
    expect(identity.chain.map((c) => c.serial)).toEqual([ca.issuing.serial])
    expect(identity.certificate.issuerSerial).toBe(ca.issuing.serial)

    // serials: 16 bytes, positive, stored as the certificate's lower-case hex
    for (const [stored, cert] of [
      [ca.root, root],
      [ca.issuing, issuing],
      [identity.certificate, signer],
    ] as const) {
      expect(stored.serial).toMatch(/^[4-7][0-9a-f]{31}$/)
      expect(cert.serialNumber.toLowerCase()).toBe(stored.serial)
      expect(stored.notBefore).toBe(cert.notBefore.getTime())
      expect(stored.notAfter).toBe(cert.notAfter.getTime())
    }
    // times from the clock, notBefore 5 minutes back, signer valid 2 years
    expect(identity.certificate.notBefore).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 5 * 60_000)
    expect(identity.certificate.notBefore).toBeLessThanOrEqual(Date.now() - 5 * 60_000)
    expect(signer.notAfter.getUTCFullYear() - new Date(identity.certificate.createdAt).getUTCFullYear()).toBe(2)

    // keys in the KeyStore under the environment's ids
    expect(ca.root.keyId).toBe("sandbox/ca/root/1")
    expect(ca.issuing.keyId).toBe("sandbox/ca/issuing/1")
    expect(identity.keyId).toBe(`sandbox/signer/${user.id}/1`)
    expect([...world.keys.keys()].sort()).toEqual([ca.issuing.keyId, ca.root.keyId, identity.keyId].sort())

    // an independent verifier agrees
    const out = execFileSync(
      "openssl",
      [
        "verify",
        "-x509_strict",
        "-CAfile",
        pemFile("root.pem", ca.root),
        "-untrusted",
        pemFile("issuing.pem", ca.issuing),
        pemFile("signer.pem", identity.certificate),
      ],
      { encoding: "utf8" },
    )
    expect(out).toMatch(/signer\.pem: OK/)
    expect(() =>
      execFileSync("openssl", ["verify", "-CAfile", pemFile("issuing-only.pem", ca.issuing), pemFile("signer2.pem", identity.certificate)], { stdio: "pipe" }),
    ).toThrow()
  })

  it("in production the subjects carry no sandbox marking", async () => {
    const world = pkiTestWorld({ environment: "production" })
    const { ca, identity } = await run(world, Effect.all({ ca: certificateAuthority, identity: signingIdentityFor(testUser()) }))
    expect(ca.root.subject).toBe("CN=Signet Root CA, O=Signet")
    expect(ca.issuing.subject).toBe("CN=Signet Issuing CA 1, O=Signet")
    expect(identity.certificate.subject).toBe("E=ada@example.com, CN=ada@example.com")
    expect(ca.root.keyId).toBe("production/ca/root/1")
    for (const c of [ca.root, ca.issuing, identity.certificate]) expect(parse(c).subject).not.toMatch(/sandbox/i)
  })

  it("is idempotent and race-safe: concurrent first uses end with one root and one issuing CA", async () => {
    const world = pkiTestWorld()
    const all = await run(
      world,
      Effect.all(
        Array.from({ length: 6 }, () => certificateAuthority),
        { concurrency: "unbounded" },
      ),
    )
    expect(new Set(all.map((ca) => ca.root.serial)).size).toBe(1)
    expect(new Set(all.map((ca) => ca.issuing.serial)).size).toBe(1)
    expect(new Set(all.map((ca) => ca.root.der)).size).toBe(1)
    expect([...world.certificates.values()].map((c) => c.kind).sort()).toEqual(["issuing", "root"])
    expect(world.signatures()).toBeGreaterThan(2) // the racers really raced: several issued, one was kept
    const again = await run(world, certificateAuthority)
    expect(again).toEqual(all[0])
  })

  it("replaces a revoked issuing CA with the next generation and keeps the root", async () => {
    const world = pkiTestWorld()
    const first = await run(world, certificateAuthority)
    world.certificates.set(first.issuing.serial, { ...first.issuing, status: "revoked", revokedAt: Date.now(), revocationReason: "test" })
    const second = await run(world, certificateAuthority)
    expect(second.root).toEqual(first.root)
    expect(second.issuing.serial).not.toBe(first.issuing.serial)
    expect(second.issuing.keyId).toBe("sandbox/ca/issuing/2")
    expect(second.issuing.subject).toBe("CN=Signet Sandbox Issuing CA 2, OU=SANDBOX, O=Signet")
  })

  it("takes its times from Effect's Clock, and encodes dates from 2050 as GeneralizedTime", async () => {
    const world = pkiTestWorld()
    const at = Date.UTC(2040, 0, 1, 12, 0, 0, 123)
    const { ca, identity } = await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(at)
        return yield* Effect.all({ ca: certificateAuthority, identity: signingIdentityFor(testUser()) })
      }).pipe(Effect.provide(world.layer), Effect.provide(TestContext.TestContext)),
    )
    expect(ca.root.notBefore).toBe(Date.UTC(2040, 0, 1, 11, 55, 0))
    expect(ca.root.notAfter).toBe(Date.UTC(2060, 0, 1, 12, 0, 0))
    expect(ca.issuing.notAfter).toBe(Date.UTC(2050, 0, 1, 12, 0, 0))
    expect(identity.certificate.notAfter).toBe(Date.UTC(2042, 0, 1, 12, 0, 0))
    expect(ca.root.createdAt).toBe(at)
    expect(parse(ca.root).notAfter.getTime()).toBe(ca.root.notAfter)
    const verify = (attime: number) =>
      execFileSync(
        "openssl",
        [
          "verify",
          "-x509_strict",
          "-attime",
          String(attime),
          "-CAfile",
          pemFile("r2040.pem", ca.root),
          "-untrusted",
          pemFile("i2040.pem", ca.issuing),
          pemFile("s2040.pem", identity.certificate),
        ],
        { encoding: "utf8", stdio: "pipe" },
      )
    expect(verify(Date.UTC(2041, 0, 1) / 1000)).toMatch(/OK/)
    expect(() => verify(Date.UTC(2043, 0, 1) / 1000)).toThrow() // the signer certificate has expired
  })
})
