/** The built-in TSA as OpenSSL sees it: `openssl ts` makes the requests and verifies the replies and tokens. */
import { createHash, randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { Clock, Effect, Layer } from "effect"
import * as pkijs from "pkijs"
import { beforeAll, describe, expect, it } from "vitest"
import { fromBase64 } from "../kernel/encoding.ts"
import type { TimestampAuthority } from "./timestamp-authority.ts"
import { certificateAuthority } from "./authority.ts"
import { CmsOid, signDigest, toPem } from "./cms.ts"
import { signingIdentityFor } from "./signer-certificate.ts"
import { pkiTestWorld, testUser, type PkiServices, type PkiTestWorld } from "./test-layers.ts"
import { TimestampAuthorityBuiltIn, timestampIdentity, TSA_POLICY_OID } from "./timestamp.ts"
import { answerTimestampRequest, stampSignatureValue } from "./timestamp-reply.ts"
import { runTool, scratchFile, scratchPath } from "../../../testkit/src/tools.ts"

type Services = PkiServices | TimestampAuthority
const run = <A, E>(world: PkiTestWorld, effect: Effect.Effect<A, E, Services>) =>
  Effect.runPromise(Effect.provide(effect, Layer.provideMerge(TimestampAuthorityBuiltIn, world.layer)))

const file = scratchFile
const openssl = (args: ReadonlyArray<string>) => runTool("openssl", args)
const query = async (args: ReadonlyArray<string>) => {
  const path = scratchPath("query.tsq")
  const made = await openssl(["ts", "-query", ...args, "-out", path])
  expect(made.ok).toBe(true)
  return { path, der: new Uint8Array(readFileSync(path)) }
}

describe("built-in timestamp authority", () => {
  const world = pkiTestWorld()
  let rootPem: string
  let issuingPem: string
  let tsaPem: string
  beforeAll(async () => {
    const { ca, tsa } = await run(world, Effect.all({ ca: certificateAuthority, tsa: timestampIdentity }))
    rootPem = file("root.pem", toPem(fromBase64(ca.root.der)!))
    issuingPem = file("issuing.pem", toPem(fromBase64(ca.issuing.der)!))
    tsaPem = file("tsa.pem", toPem(fromBase64(tsa.certificate.der)!) + toPem(fromBase64(ca.issuing.der)!))
  })

  it("has a certificate from the issuing CA with the critical id-kp-timeStamping usage only; one, however often asked", async () => {
    const again = await run(world, timestampIdentity)
    expect([...world.certificates.values()].filter((c) => c.kind === "tsa").map((c) => c.serial)).toEqual([again.certificate.serial])
    const text = (await openssl(["x509", "-in", tsaPem, "-noout", "-text"])).out
    expect(text).toMatch(/X509v3 Extended Key Usage: critical\s+Time Stamping\s*\n/)
    expect(text).toContain("CN = Signet Sandbox Timestamping Authority")
    expect(text).toContain("Issuer: O = Signet, OU = SANDBOX, CN = Signet Sandbox Issuing CA 1")
    expect((await openssl(["verify", "-CAfile", rootPem, "-untrusted", issuingPem, "-purpose", "timestampsign", tsaPem])).out).toContain("OK")
  })

  it("answers an `openssl ts -query` with a reply `openssl ts -verify` accepts, nonce echoed, policy and accuracy stated", async () => {
    const data = file("data.bin", randomBytes(300))
    const request = await query(["-data", data, "-sha256", "-cert", "-tspolicy", TSA_POLICY_OID])
    const reply = file("reply.tsr", await run(world, answerTimestampRequest(request.der)))
    const text = (await openssl(["ts", "-reply", "-in", reply, "-text"])).out
    expect(text).toContain("Status: Granted.")
    expect(text).toContain(`Policy OID: ${TSA_POLICY_OID}`)
    expect(text).toContain("Accuracy: 0x01 seconds")
    expect(text).toContain("TSA: DirName:/O=Signet/OU=SANDBOX/CN=Signet Sandbox Timestamping Authority")
    const requestNonce = /Nonce: (\S+)/.exec((await openssl(["ts", "-query", "-in", request.path, "-text"])).out)![1]
    expect(/Nonce: (\S+)/.exec(text)![1]).toBe(requestNonce)
    const verified = await openssl(["ts", "-verify", "-queryfile", request.path, "-in", reply, "-CAfile", rootPem, "-untrusted", issuingPem])
    expect(verified.out).toContain("Verification: OK")
    // the same reply does not verify for other data
    const other = file("other.bin", randomBytes(300))
    expect((await openssl(["ts", "-verify", "-data", other, "-in", reply, "-CAfile", rootPem, "-untrusted", issuingPem])).out).not.toContain("Verification: OK")
  })

  it("leaves its certificates out unless asked (certReq); the token still verifies with the TSA certificate at hand", async () => {
    const data = file("data.bin", randomBytes(100))
    const request = await query(["-data", data, "-sha512", "-no_nonce"])
    const der = await run(world, answerTimestampRequest(request.der))
    const response = pkijs.TimeStampResp.fromBER(new Uint8Array(der))
    expect(new pkijs.SignedData({ schema: response.timeStampToken!.content }).certificates ?? []).toHaveLength(0)
    const verified = await openssl(["ts", "-verify", "-data", data, "-in", file("reply.tsr", der), "-CAfile", rootPem, "-untrusted", tsaPem])
    expect(verified.out).toContain("Verification: OK")
  })

  it("genTime is the Clock's time in whole seconds", async () => {
    const at = Date.parse("2026-03-04T05:06:07.890Z")
    const request = await query(["-digest", "ab".repeat(32), "-sha256"])
    const der = await run(world, Effect.withClock(answerTimestampRequest(request.der), fixedClock(at)))
    const text = (await openssl(["ts", "-reply", "-in", file("reply.tsr", der), "-text"])).out
    expect(text).toContain("Time stamp: Mar  4 05:06:07 2026 GMT")
  })

  it("rejects what it cannot honour inside the reply: SHA-1, a foreign policy, garbage", async () => {
    const status = async (der: Uint8Array) =>
      (await openssl(["ts", "-reply", "-in", file("reply.tsr", await run(world, answerTimestampRequest(der))), "-text"])).out
    const sha1 = await query(["-digest", "ab".repeat(20), "-sha1"])
    expect(await status(sha1.der)).toMatch(/Status: Rejected[\s\S]*unrecognized or unsupported algorithm identifier/)
    const policy = await query(["-digest", "ab".repeat(32), "-sha256", "-tspolicy", "1.2.3.4"])
    expect(await status(policy.der)).toMatch(/Status: Rejected[\s\S]*requested TSA policy is not supported/)
    expect(await status(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01]))).toMatch(/Status: Rejected[\s\S]*the data submitted has the wrong format/)
  })

  it("a -T CMS: openssl cms verifies it, and openssl ts verifies its token over the signature value; a tampered token is refused", async () => {
    const identity = await run(world, signingIdentityFor(testUser()))
    const document = randomBytes(500)
    const cms = await run(
      world,
      signDigest({
        identity,
        digest: new Uint8Array(createHash("sha256").update(document).digest()),
        digestAlgorithm: "SHA-256",
        signingTime: null,
        timestamp: stampSignatureValue,
      }),
    )
    const verified = await openssl([
      "cms",
      "-verify",
      "-binary",
      "-purpose",
      "any",
      "-inform",
      "DER",
      "-in",
      file("sig.der", cms),
      "-content",
      file("doc.bin", document),
      "-CAfile",
      rootPem,
      "-out",
      "/dev/null",
    ])
    expect(verified.out).toContain("Verification successful")

    const signed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(cms)).content })
    const signerInfo = signed.signerInfos[0]!
    const unsigned = signerInfo.unsignedAttrs?.attributes ?? []
    expect(unsigned.map((a) => a.type)).toEqual([CmsOid.signatureTimeStampToken])
    const token = new Uint8Array(unsigned[0]!.values[0]!.toBER(false))
    const imprint = createHash("sha256").update(new Uint8Array(signerInfo.signature.valueBlock.valueHexView)).digest("hex")
    const verifyToken = (der: Uint8Array) =>
      openssl(["ts", "-verify", "-digest", imprint, "-in", file("token.der", der), "-token_in", "-CAfile", rootPem, "-untrusted", tsaPem])
    expect((await verifyToken(token)).out).toContain("Verification: OK")

    // one byte of the TSTInfo changed (inside its genTime): the TSA's signature no longer holds
    const tampered = token.slice()
    const at = Buffer.from(tampered).indexOf(Buffer.from("Z", "latin1"), Buffer.from(tampered).indexOf(Buffer.from([0x18, 0x0f])))
    tampered[at - 1] = tampered[at - 1] === 0x30 ? 0x31 : 0x30
    expect((await verifyToken(tampered)).out).not.toContain("Verification: OK")
    // the token over another signature value is refused too
    const otherImprint = createHash("sha256").update(randomBytes(64)).digest("hex")
    expect(
      (await openssl(["ts", "-verify", "-digest", otherImprint, "-in", file("token.der", token), "-token_in", "-CAfile", rootPem, "-untrusted", tsaPem])).out,
    ).not.toContain("Verification: OK")
  })
})

const fixedClock = (at: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => at,
  unsafeCurrentTimeNanos: () => BigInt(at) * 1_000_000n,
  currentTimeMillis: Effect.succeed(at),
  currentTimeNanos: Effect.succeed(BigInt(at) * 1_000_000n),
  sleep: () => Effect.void,
})
