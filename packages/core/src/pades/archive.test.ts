/** PAdES-B-LTA: document timestamps, archive renewal and a DSS without duplicates, as pdfsig, qpdf and openssl see them. */
import { Effect, Layer } from "effect"
import * as pkijs from "pkijs"
import { beforeAll, describe, expect, it } from "vitest"
import { concatBytes, fromBase64 } from "../kernel/encoding.ts"
import { certificateAuthority } from "../pki/authority.ts"
import { signDigest, toPem } from "../pki/cms.ts"
import { signingIdentityFor, type SigningIdentity } from "../pki/signer-certificate.ts"
import { pkiTestWorld, testUser, type PkiServices } from "../pki/test-layers.ts"
import { TimestampAuthorityBuiltIn } from "../pki/timestamp.ts"
import type { TimestampAuthority } from "../pki/timestamp-authority.ts"
import { stampSignatureValue } from "../pki/timestamp-reply.ts"
import { pdfsig, qpdfCheck, samplePdf } from "../../../testkit/src/pdf/verifiers.ts"
import { runTool, scratchFile } from "../../../testkit/src/tools.ts"
import { addDocumentTimestamp, renewArchive } from "./archive.ts"
import { bytesSource } from "./byte-source.ts"
import { appendDss, dssContents } from "./dss.ts"
import { longTermMaterial, vriKeyOf } from "./long-term.ts"
import { signPdf } from "./prepare.ts"
import { scanPdfSignatures } from "./scan-signatures.ts"

const world = pkiTestWorld()
const layer = Layer.provideMerge(TimestampAuthorityBuiltIn, world.layer)
const run = <A, E>(effect: Effect.Effect<A, E, PkiServices | TimestampAuthority>) => Effect.runPromise(Effect.provide(effect, layer))

let alice: SigningIdentity
let bob: SigningIdentity
let rootPem: string
beforeAll(async () => {
  alice = await run(signingIdentityFor(testUser({ displayName: "Alice Archive", email: "alice.archive@example.com" })))
  bob = await run(signingIdentityFor(testUser({ displayName: "Bob Archive", email: "bob.archive@example.com" })))
  rootPem = scratchFile("root.pem", toPem(fromBase64((await run(certificateAuthority)).root.der)!))
})

/** Signs at B-LT: a -T signature, then the DSS update with its validation material. */
const signLT = async (pdf: Uint8Array, identity: SigningIdentity) => {
  let cms: Uint8Array = new Uint8Array()
  const { update } = await run(
    signPdf(bytesSource(pdf), { signerName: "Archive", signingTime: new Date("2026-11-26T02:00:00Z") }, (digest) =>
      signDigest({ identity, digest, digestAlgorithm: "SHA-256", signingTime: null, timestamp: stampSignatureValue }).pipe(
        Effect.tap((c) =>
          Effect.sync(() => {
            cms = c
          }),
        ),
      ),
    ),
  )
  const signed = concatBytes([pdf, update])
  return concatBytes([signed, await run(Effect.flatMap(longTermMaterial(cms), (m) => appendDss(bytesSource(signed), m)))])
}

/** `openssl ts -verify` of every document timestamp of `pdf` over its own byte ranges, against the engine's root. */
const verifyDocumentTimestamps = async (pdf: Uint8Array) => {
  const scan = await run(scanPdfSignatures(bytesSource(pdf)))
  const out: Array<string> = []
  for (const s of scan.signatures.filter((x) => x.subFilter === "ETSI.RFC3161")) {
    const [, a, b, c] = s.byteRange as [number, number, number, number]
    const data = scratchFile("ranges.bin", concatBytes([pdf.subarray(0, a), pdf.subarray(b, b + c)]))
    const token = scratchFile("token.der", s.cms!)
    const chain = scratchFile(
      "tsa-chain.pem",
      new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(s.cms!)).content })
        .certificates!.map((x) => toPem(new Uint8Array((x as pkijs.Certificate).toSchema().toBER(false))))
        .join(""),
    )
    out.push((await runTool("openssl", ["ts", "-verify", "-data", data, "-in", token, "-token_in", "-CAfile", rootPem, "-untrusted", chain])).out)
  }
  return out
}

const TSA = "Signet Sandbox Timestamping Authority"

/** True when no two items of the list have the same bytes. */
const distinctBytes = (items: ReadonlyArray<Uint8Array>) => new Set(items.map((x) => Buffer.from(x).toString("hex"))).size === items.length

describe.each([
  ["an xref stream", true],
  ["a classic xref table", false],
] as const)("PAdES-B-LTA of a PDF with %s", (_label, xrefStream) => {
  it("a document timestamp after the DSS: pdfsig lists it after the valid signature, openssl ts -verify accepts it over its byte ranges and refuses a changed byte", async () => {
    const lt = await signLT(await samplePdf({ xrefStream }), alice)
    const { update } = await run(addDocumentTimestamp(bytesSource(lt)))
    const lta = concatBytes([lt, update])
    expect(lta.subarray(0, lt.length)).toEqual(lt)
    const path = scratchFile("lta.pdf", lta)
    const sig = await pdfsig(path)
    // pdfsig (poppler 22.12) lists a document timestamp with the TSA as signer but cannot validate
    // the ETSI.RFC3161 type ("Signature Type: unknown"); openssl ts -verify checks it below.
    expect(
      sig.signatures.map((s) => [s.field, s.signer, s.valid, s.wholeDocument]),
      sig.text,
    ).toEqual([
      ["Signature1", "alice.archive@example.com", true, false],
      ["Signature2", TSA, false, true],
    ])
    expect((await qpdfCheck(path)).ok).toBe(true)
    const verified = await verifyDocumentTimestamps(lta)
    expect(verified).toHaveLength(1)
    expect(verified[0]).toContain("Verification: OK")
    // A changed byte in the signed ranges: openssl refuses the token.
    const tampered = new Uint8Array(lta)
    tampered[100] = tampered[100]! ^ 1
    expect((await verifyDocumentTimestamps(tampered))[0]).not.toContain("Verification: OK")
  })

  it("archive renewal: a second document timestamp on top keeps every signature and timestamp valid; /DSS holds each item once with a /VRI per signature and timestamp", async () => {
    const lt = await signLT(await samplePdf({ xrefStream }), alice)
    const lta = concatBytes([lt, (await run(addDocumentTimestamp(bytesSource(lt)))).update])
    const renewed = concatBytes([lta, await run(renewArchive(bytesSource(lta)))])
    expect(renewed.subarray(0, lta.length)).toEqual(lta)
    const path = scratchFile("renewed.pdf", renewed)
    const sig = await pdfsig(path)
    expect(
      sig.signatures.map((s) => [s.field, s.signer, s.valid, s.wholeDocument]),
      sig.text,
    ).toEqual([
      ["Signature1", "alice.archive@example.com", true, false],
      ["Signature2", TSA, false, false],
      ["Signature3", TSA, false, true],
    ])
    expect((await qpdfCheck(path)).ok).toBe(true)
    const verified = await verifyDocumentTimestamps(renewed)
    expect(verified).toHaveLength(2)
    for (const v of verified) expect(v).toContain("Verification: OK")

    const dss = await run(dssContents(bytesSource(renewed)))
    expect(distinctBytes(dss.certificates)).toBe(true)
    expect(distinctBytes(dss.ocsps)).toBe(true)
    expect(distinctBytes(dss.crls)).toBe(true)
    // signer, TSA, issuing CA, root: the first timestamp's TSA chain was already there.
    expect(dss.certificates).toHaveLength(4)
    const scan = await run(scanPdfSignatures(bytesSource(renewed)))
    const keys = await Promise.all(scan.signatures.slice(0, 2).map((s) => run(vriKeyOf(s.cms!))))
    expect(dss.vriKeys.sort()).toEqual(keys.sort())
  })

  it("a second signer at B-LT adds no certificate the DSS already holds", async () => {
    const first = await signLT(await samplePdf({ xrefStream }), alice)
    const before = await run(dssContents(bytesSource(first)))
    const second = await signLT(first, bob)
    const after = await run(dssContents(bytesSource(second)))
    expect(distinctBytes(after.certificates)).toBe(true)
    // Only Bob's certificate is new; the TSA, the issuing CA and the root are shared.
    expect(after.certificates).toHaveLength(before.certificates.length + 1)
    expect(after.vriKeys).toHaveLength(2)
    expect((await pdfsig(scratchFile("two-lt.pdf", second))).signatures.map((s) => s.valid)).toEqual([true, true])
  })
})
