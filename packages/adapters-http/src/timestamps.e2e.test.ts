/** The timestamp authority over HTTP and -T hash signatures, checked by `openssl ts` and `openssl cms`, and reported by /v2/validate. */
import { enrol, ok, runTool, scratchFile, scratchPath, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { createHash, randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import * as pkijs from "pkijs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { opensslVerifies } from "./test-support/openssl.ts"
import { freshMinuteWindow } from "./test-support/minute-window.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"
import { TimestampAuthorityHttp } from "./timestamp-authority-http.ts"

const file = scratchFile
// Asynchronous: openssl must not block this process, whose server answers the requests.
const openssl = (args: ReadonlyArray<string>) => runTool("openssl", args, { timeoutMs: 20_000 })

interface Timestamp {
  valid: boolean
  genTime: string | null
  tsa: { subject: string; serial: string } | null
  policy: string | null
  serial: string | null
  problems: Array<string>
}
interface Report {
  valid: boolean
  integrity: boolean
  signingTime: string | null
  timestamp: Timestamp | null
  problems: Array<string>
}

describe("timestamps", () => {
  let env: RunningEngine
  let passkey: SoftwarePasskey
  let token: string
  let rootPem: string
  let issuingPem: string
  let tsaPem: string
  let policy: string
  beforeAll(async () => {
    env = await startEngine()
    passkey = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, passkey, { email: "stamped@example.com", displayName: "Stamped Signer" })
    token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    const ca = ok(await env.client.raw<{ root: { pem: string }; issuing: { pem: string } }>("GET", "/v2/ca"))
    rootPem = file("root.pem", ca.root.pem)
    issuingPem = file("issuing.pem", ca.issuing.pem)
    const tsa = ok(await env.client.raw<{ policy: string; certificate: { pem: string; subject: string }; chainPem: Array<string> }>("GET", "/v2/tsa"))
    expect(tsa.certificate.subject).toBe("CN=Signet Sandbox Timestamping Authority, OU=SANDBOX, O=Signet")
    tsaPem = file("tsa.pem", tsa.certificate.pem + tsa.chainPem.join(""))
    policy = tsa.policy
  })
  afterAll(async () => {
    await env?.stop()
  })

  const post = (body: Uint8Array, type = "application/timestamp-query") =>
    fetch(`${env.client.baseUrl}/v2/tsa`, { method: "POST", headers: { "content-type": type }, body: new Uint8Array(body) })

  it("POST /v2/tsa answers `openssl ts -query` with a reply `openssl ts -verify` accepts", async () => {
    const data = file("data.bin", randomBytes(2000))
    const query = scratchPath("q.tsq")
    expect((await openssl(["ts", "-query", "-data", data, "-sha256", "-cert", "-tspolicy", policy, "-out", query])).ok).toBe(true)
    const response = await post(new Uint8Array(readFileSync(query)))
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/timestamp-reply")
    const reply = file("reply.tsr", new Uint8Array(await response.arrayBuffer()))
    expect((await openssl(["ts", "-reply", "-in", reply, "-text"])).out).toContain("Status: Granted.")
    expect((await openssl(["ts", "-verify", "-queryfile", query, "-in", reply, "-CAfile", rootPem, "-untrusted", issuingPem])).out).toContain(
      "Verification: OK",
    )
    expect((await openssl(["ts", "-verify", "-data", data, "-in", reply, "-CAfile", rootPem, "-untrusted", issuingPem])).out).toContain("Verification: OK")
    // a reply altered in one byte of its TSTInfo is refused
    const bytes = new Uint8Array(readFileSync(reply))
    const at = Buffer.from(bytes).indexOf(Buffer.from([0x18, 0x0f])) + 5
    bytes[at] = bytes[at] === 0x30 ? 0x31 : 0x30
    expect(
      (await openssl(["ts", "-verify", "-queryfile", query, "-in", file("tampered.tsr", bytes), "-CAfile", rootPem, "-untrusted", issuingPem])).out,
    ).not.toContain("Verification: OK")
  })

  it("refuses another content type with 415", async () => {
    const response = await post(new Uint8Array([1, 2, 3]), "application/octet-stream")
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({ error: "Unsupported content type; expected application/timestamp-query" })
  })

  const sign = async (signatureFormat: string) => {
    const document = randomBytes(700)
    const pending = ok(
      await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        headers: { authorization: `Bearer ${token}` },
        body: { documentHash: createHash("sha256").update(document).digest("hex"), credentialId: passkey.credentialId, signatureFormat },
      }),
    )
    const done = ok(
      await env.client.raw<{ signature: string }>("POST", `/v2/sign/auth/${pending.requestId}`, {
        body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
      }),
    )
    return { document, signature: done.signature, hash: createHash("sha256").update(document).digest("hex") }
  }
  const validate = async (signature: string, documentHash: string) =>
    ok(await env.client.raw<Report>("POST", "/v2/validate", { body: { signature, documentHash } }))
  /** The token of the -T attribute and the SHA-256 of the signature value it must cover. */
  const tokenOf = (signature: string) => {
    const signed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(Buffer.from(signature, "base64"))).content })
    const signerInfo = signed.signerInfos[0]!
    const attributes = signerInfo.unsignedAttrs?.attributes ?? []
    return {
      types: attributes.map((a) => a.type),
      signedTypes: signerInfo.signedAttrs!.attributes.map((a) => a.type),
      token: attributes[0] === undefined ? undefined : new Uint8Array(attributes[0].values[0]!.toBER(false)),
      imprint: createHash("sha256").update(new Uint8Array(signerInfo.signature.valueBlock.valueHexView)).digest("hex"),
    }
  }

  for (const format of ["CAdES-BASELINE-T", "PAdES-BASELINE-T"]) {
    it(`${format}: openssl cms verifies the signature, openssl ts its token over the signature value; /v2/validate reports the timestamp`, async () => {
      const before = Date.now()
      const { document, signature, hash } = await sign(format)
      expect(opensslVerifies(signature, document, readFileSync(rootPem, "utf8"))).toBe(true)
      const { types, signedTypes, token: stamp, imprint } = tokenOf(signature)
      expect(types).toEqual(["1.2.840.113549.1.9.16.2.14"])
      // the PAdES family has no signing-time attribute; CAdES has one
      expect(signedTypes.includes("1.2.840.113549.1.9.5")).toBe(format.startsWith("CAdES"))
      const verified = await openssl([
        "ts",
        "-verify",
        "-digest",
        imprint,
        "-in",
        file("token.der", stamp!),
        "-token_in",
        "-CAfile",
        rootPem,
        "-untrusted",
        tsaPem,
      ])
      expect(verified.out).toContain("Verification: OK")

      const report = await validate(signature, hash)
      expect(report).toMatchObject({ valid: true, integrity: true, problems: [] })
      expect(report.timestamp).toMatchObject({
        valid: true,
        policy,
        problems: [],
        tsa: { subject: "O=Signet, OU=SANDBOX, CN=Signet Sandbox Timestamping Authority" },
      })
      const genTime = Date.parse(report.timestamp!.genTime!)
      expect(genTime).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000)
      expect(genTime).toBeLessThanOrEqual(Date.now())
    })
  }

  it("a tampered token: openssl ts refuses it, /v2/validate reports the timestamp and the signature invalid", async () => {
    const { document, signature, hash } = await sign("CAdES-BASELINE-T")
    const { token: stamp, imprint } = tokenOf(signature)
    const bytes = Buffer.from(signature, "base64")
    // the genTime of the TSTInfo inside the token inside the CMS: one digit changed
    const tokenAt = bytes.indexOf(Buffer.from(stamp!))
    const timeAt = bytes.indexOf(Buffer.from([0x18, 0x0f]), tokenAt) + 2 + 13
    bytes[timeAt] = bytes[timeAt] === 0x30 ? 0x31 : 0x30
    const tampered = bytes.toString("base64")
    // the unsigned attribute is outside what the signer signed: the CMS signature itself still holds
    expect(opensslVerifies(tampered, document, readFileSync(rootPem, "utf8"))).toBe(true)
    const tamperedToken = tokenOf(tampered).token!
    expect(
      (await openssl(["ts", "-verify", "-digest", imprint, "-in", file("token.der", tamperedToken), "-token_in", "-CAfile", rootPem, "-untrusted", tsaPem]))
        .out,
    ).not.toContain("Verification: OK")
    const report = await validate(tampered, hash)
    expect(report.valid).toBe(false)
    expect(report.integrity).toBe(true)
    // (a changed seconds digit may also move genTime before the fresh test TSA's certificate: that problem may join this one)
    expect(report.timestamp).toMatchObject({ valid: false })
    expect(report.timestamp!.problems).toContain("the TSA's signature over the timestamp does not verify")
    expect(report.problems).toContain("timestamp: the TSA's signature over the timestamp does not verify")
  })

  it("a -B signature has no timestamp; an unknown format lists the allowed ones", async () => {
    const { signature, hash } = await sign("CAdES-BASELINE-B")
    expect(tokenOf(signature).types).toEqual([])
    expect(await validate(signature, hash)).toMatchObject({ valid: true, timestamp: null })
    expect(
      await env.client.raw("POST", "/v2/sign/single", {
        headers: { authorization: `Bearer ${token}` },
        body: { documentHash: "ab".repeat(32), credentialId: passkey.credentialId, signatureFormat: "CAdES-BASELINE-LT" },
      }),
    ).toMatchObject({
      status: 400,
      body: { error: "signatureFormat must be one of CAdES-BASELINE-B | CAdES-BASELINE-T | CMS | PAdES-BASELINE-B | PAdES-BASELINE-T | PAdES" },
    })
  })

  it("another engine configured with this one's /v2/tsa as its external TSA: its -T tokens come from here; an unreachable TSA is 503 and nothing is recorded", async () => {
    // the TSA on 127.0.0.1 is reachable only with the loopback development switch (the address guard, issue 13 item 15)
    const other = await startEngine({ timestampAuthority: TimestampAuthorityHttp({ url: `${env.client.baseUrl}/v2/tsa`, allowLoopbackHttp: true }) })
    const down = await startEngine({
      timestampAuthority: TimestampAuthorityHttp({ url: "http://127.0.0.1:9/v2/tsa", timeoutMs: 2000, allowLoopbackHttp: true }),
    })
    const guarded = await startEngine({ timestampAuthority: TimestampAuthorityHttp({ url: `${env.client.baseUrl}/v2/tsa` }) })
    try {
      for (const engine of [other, down, guarded]) {
        const p = SoftwarePasskey.create({ origin: engine.origin })
        await enrol(engine.client, p, { email: "remote-tsa@example.com" })
        const t = (ok(await signIn(engine.client, p, { clientId: engine.rp.clientId })) as TokenAnswer).access_token
        const document = randomBytes(100)
        const pending = ok(
          await engine.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
            headers: { authorization: `Bearer ${t}` },
            body: { documentHash: createHash("sha256").update(document).digest("hex"), credentialId: p.credentialId, signatureFormat: "CAdES-BASELINE-T" },
          }),
        )
        const complete = () =>
          engine.client.raw<{ signature: string }>("POST", `/v2/sign/auth/${pending.requestId}`, {
            body: { assertion: p.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
          })
        if (engine === down || engine === guarded) {
          expect(await complete()).toMatchObject({ status: 503, body: { error: "Timestamp authority unavailable" } })
          // nothing was recorded: the request is still pending (the frame's view answers only pending ones)
          expect((await engine.client.raw("GET", `/v2/sign/requests/${pending.requestId}`)).status).toBe(200)
          continue
        }
        const { signature } = ok(await complete())
        const otherRoot = file("other-root.pem", ok(await engine.client.raw<{ root: { pem: string } }>("GET", "/v2/ca")).root.pem)
        expect(opensslVerifies(signature, document, readFileSync(otherRoot, "utf8"))).toBe(true)
        const { token: stamp, imprint } = tokenOf(signature)
        // the token is this engine's TSA's: it verifies against this engine's root
        expect(
          (await openssl(["ts", "-verify", "-digest", imprint, "-in", file("token.der", stamp!), "-token_in", "-CAfile", rootPem, "-untrusted", tsaPem])).out,
        ).toContain("Verification: OK")
      }
    } finally {
      await other.stop()
      await down.stop()
      await guarded.stop()
    }
  })
  it("rate-limits POST /v2/tsa to 60 requests a minute per client IP", async () => {
    // one minute window for the whole burst: the counter turns over with the calendar minute
    await freshMinuteWindow()
    const query = scratchPath("q.tsq")
    expect((await openssl(["ts", "-query", "-digest", "cd".repeat(32), "-sha256", "-out", query])).ok).toBe(true)
    const body = new Uint8Array(readFileSync(query))
    // a fixed one-minute window: within 122 requests one window sees its 61st, even across a minute's turn
    let refused: Response | undefined
    for (let i = 0; i < 122 && refused === undefined; i++) {
      const response = await post(body)
      if (response.status === 429) refused = response
      else expect(response.status).toBe(200)
    }
    expect(refused).toBeDefined()
    expect(await refused!.json()).toEqual({ error: "Rate limit exceeded. Please try again later." })
  })
})
