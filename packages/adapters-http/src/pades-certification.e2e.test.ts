/**
 * Issue 15 over real HTTP: certification (DocMDP) and its refusals, filling an existing signature
 * field, and PAdES-B-LTA, judged by pdfsig, qpdf and `openssl ts -verify`. The certified
 * documents Signet must respect are made by openssl, not by Signet.
 */
import { bytesSource, certificationOf, dssContents, openPdf, scanPdfSignatures } from "@signet/core"
import { enrol, ok, scratchFile as tempFile, signIn, SoftwarePasskey, type ErrorBody, type TokenAnswer } from "@signet/testkit"
import { certifyWithOpenssl, opensslSigner, pdfsig, pdfWithSignatureFields, qpdfCheck, samplePdf } from "@signet/testkit/pdf"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import * as pkijs from "pkijs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const exec = promisify(execFile)
const output = (command: string, args: ReadonlyArray<string>) =>
  exec(command, args, { encoding: "latin1", maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => `${r.stdout}${r.stderr}`,
    (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ""}${e.stderr ?? ""}`,
  )

interface Prepared {
  readonly requestId: string
  readonly challenge: string
  readonly fieldName: string
  readonly documentUrl: string
}

let env: RunningEngine
let passkey: SoftwarePasskey
let token: string
let rootPem: string
beforeAll(async () => {
  env = await startEngine()
  passkey = SoftwarePasskey.create({ origin: env.origin })
  await enrol(env.client, passkey, { email: "carla@example.com", displayName: "Carla Certifier" })
  token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
  rootPem = tempFile("root.pem", ok(await env.client.raw<{ root: { pem: string } }>("GET", "/v2/ca")).root.pem)
})
afterAll(async () => env?.stop())

const upload = (pdf: Uint8Array, extra: Record<string, unknown> = {}) =>
  env.client.raw<Prepared | ErrorBody>("POST", "/v2/sign/pdf", {
    headers: { authorization: `Bearer ${token}` },
    body: { pdf: Buffer.from(pdf).toString("base64"), credentialId: passkey.credentialId, ...extra },
  })
/** Upload, approve with the passkey, download: the signed PDF and the field it went into. */
const signOverHttp = async (pdf: Uint8Array, extra: Record<string, unknown> = {}) => {
  const prepared = ok(await upload(pdf, extra)) as Prepared
  ok(
    await env.client.raw("POST", `/v2/sign/auth/${prepared.requestId}`, {
      body: { assertion: passkey.assert({ challenge: prepared.challenge }, { includeUserHandle: false }) },
    }),
  )
  const response = await fetch(`${env.origin}${prepared.documentUrl}`, { headers: { authorization: `Bearer ${token}` } })
  expect(response.status).toBe(200)
  return { signed: new Uint8Array(await response.arrayBuffer()), fieldName: prepared.fieldName }
}
const certificationIn = (pdf: Uint8Array) => Effect.runPromise(Effect.flatMap(openPdf(bytesSource(pdf)), (doc) => certificationOf(doc)))

describe("certification (DocMDP) over HTTP", () => {
  it("a P=1 document certified by openssl is refused with 409 naming DocMDP; a P=2 one gets a new invisible signature and stays certified", async () => {
    const signer = await opensslSigner("Outside Certifier")
    const strict = await certifyWithOpenssl(await samplePdf({ xrefStream: false }), 1, signer)
    const refused = await upload(strict)
    expect(refused.status).toBe(409)
    expect(refused.body).toEqual({ error: "Signature not permitted: the document is certified with no changes allowed (DocMDP P=1)" })

    const lenient = await certifyWithOpenssl(await samplePdf({ xrefStream: false }), 2, signer)
    const { signed, fieldName } = await signOverHttp(lenient)
    expect(fieldName).toBe("Signature1")
    const path = tempFile("openssl-p2-signet.pdf", signed)
    const sig = await pdfsig(path)
    expect(
      sig.signatures.map((s) => [s.field, s.subFilter, s.valid]),
      sig.text,
    ).toEqual([
      ["Certification", "adbe.pkcs7.detached", true],
      ["Signature1", "ETSI.CAdES.detached", true],
    ])
    expect((await qpdfCheck(path)).ok).toBe(true)
    // The certification is still the openssl signature, at P=2.
    expect(await certificationIn(signed)).toMatchObject({ permissions: 2, fieldName: "Certification" })
  })

  it.each([1, 2, 3])(
    "Signet certifies at P=%i: pdfsig finds it valid, the catalog's /Perms names it; a further signature is refused only at P=1",
    async (p) => {
      const { signed } = await signOverHttp(await samplePdf({ xrefStream: true }), { certify: { permissions: p } })
      const path = tempFile(`signet-p${p}.pdf`, signed)
      const sig = await pdfsig(path)
      expect(sig.signatures.map((s) => s.valid)).toEqual([true])
      const root = /\/Root (\d+) 0 R/.exec(await output("qpdf", ["--show-object=trailer", path]))![1]!
      const docMdp = /\/Perms << \/DocMDP (\d+) 0 R >>/.exec(await output("qpdf", [`--show-object=${root}`, path]))?.[1]
      expect(docMdp).toBeDefined()
      // the signature /Perms names carries the DocMDP reference with this P, as qpdf reads it
      const signature = await output("qpdf", [`--show-object=${docMdp}`, path])
      expect(signature).toMatch(/\/TransformMethod \/DocMDP/)
      expect(signature).toMatch(new RegExp(`/TransformParams << (?:/\\w+ [^<>]*?)?/P ${p}\\b`))
      expect(await certificationIn(signed)).toMatchObject({ permissions: p })
      const again = await upload(signed)
      if (p === 1) expect(again.status).toBe(409)
      else expect(again.status).toBe(200)
    },
  )

  it("bad certification requests: permissions outside 1-3 is 400, a certification of a signed document 409", async () => {
    const bad = await upload(await samplePdf({ xrefStream: true }), { certify: { permissions: 4 } })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: "certify.permissions must be 1, 2 or 3" })
    const { signed } = await signOverHttp(await samplePdf({ xrefStream: true }))
    const late = await upload(signed, { certify: { permissions: 2 } })
    expect(late.status).toBe(409)
    expect((late.body as ErrorBody).error).toContain("a certification must be the document's first signature")
  })
})

describe("filling an existing signature field over HTTP", () => {
  it("the named field is filled and pdfsig lists it by its name; an unknown name is 422", async () => {
    const form = await pdfWithSignatureFields({ fields: [{ name: "Tenant" }, { name: "Landlord", rect: [300, 60, 560, 140] }] })
    const { signed, fieldName } = await signOverHttp(form, { field: "Landlord" })
    expect(fieldName).toBe("Landlord")
    const sig = await pdfsig(tempFile("filled-http.pdf", signed))
    expect(sig.signatures.map((s) => [s.field, s.signed, s.valid])).toEqual([
      ["Tenant", false, false],
      ["Landlord", true, true],
    ])
    const unknown = await upload(form, { field: "Notary" })
    expect(unknown.status).toBe(422)
    expect(unknown.body).toEqual({ error: "The PDF has no signature field named Notary" })
  })
})

describe("PAdES-BASELINE-LTA over HTTP", () => {
  it("the signed PDF has a document timestamp after the DSS that openssl ts -verify accepts against the engine's root; the DSS holds each certificate once", async () => {
    const { signed } = await signOverHttp(await samplePdf({ xrefStream: true }), { level: "PAdES-BASELINE-LTA" })
    const path = tempFile("lta-http.pdf", signed)
    const sig = await pdfsig(path)
    expect(
      sig.signatures.map((s) => [s.field, s.valid, s.wholeDocument]),
      sig.text,
    ).toEqual([
      ["Signature1", true, false],
      // pdfsig 22.12 lists the document timestamp but cannot validate ETSI.RFC3161; openssl does below.
      ["Signature2", false, true],
    ])
    expect(sig.signatures[1]!.signer).toContain("Timestamping Authority")
    expect((await qpdfCheck(path)).ok).toBe(true)

    const scan = await Effect.runPromise(scanPdfSignatures(bytesSource(signed)))
    const stamp = scan.signatures[1]!
    expect(stamp.subFilter).toBe("ETSI.RFC3161")
    const [, a, b, c] = stamp.byteRange as [number, number, number, number]
    expect(b + c).toBe(signed.length)
    const certificates = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(stamp.cms!)).content }).certificates!
    const untrusted = tempFile(
      "tsa.pem",
      certificates
        .map(
          (x) =>
            `-----BEGIN CERTIFICATE-----\n${Buffer.from((x as pkijs.Certificate).toSchema().toBER(false)).toString("base64")}\n-----END CERTIFICATE-----\n`,
        )
        .join(""),
    )
    const data = tempFile("lta-ranges.bin", Buffer.concat([signed.subarray(0, a), signed.subarray(b, b + c)]))
    const verify = (bytes: string) =>
      output("openssl", [
        "ts",
        "-verify",
        "-data",
        bytes,
        "-in",
        tempFile("lta-token.der", stamp.cms!),
        "-token_in",
        "-CAfile",
        rootPem,
        "-untrusted",
        untrusted,
      ])
    expect(await verify(data)).toContain("Verification: OK")
    const changed = Buffer.concat([signed.subarray(0, a), signed.subarray(b, b + c)])
    changed[50] = changed[50]! ^ 1
    expect(await verify(tempFile("lta-changed.bin", changed))).not.toContain("Verification: OK")

    const dss = await Effect.runPromise(dssContents(bytesSource(signed)))
    const hex = dss.certificates.map((x) => Buffer.from(x).toString("hex"))
    expect(hex.length).toBeGreaterThanOrEqual(4)
    expect(new Set(hex).size).toBe(hex.length)
  })
})
