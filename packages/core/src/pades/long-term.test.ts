/** PAdES levels -T and -LT as pdfsig, qpdf and openssl see them. */
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { writeFileSync } from "node:fs"
import { promisify } from "node:util"
import { Effect, Layer } from "effect"
import * as pkijs from "pkijs"
import { beforeAll, describe, expect, it } from "vitest"
import { concatBytes, fromBase64, toBase64 } from "../kernel/encoding.ts"
import { certificateAuthority } from "../pki/authority.ts"
import { signDigest, toPem } from "../pki/cms.ts"
import { signingIdentityFor, type SigningIdentity } from "../pki/signer-certificate.ts"
import { pkiTestWorld, testUser, type PkiServices } from "../pki/test-layers.ts"
import { TimestampAuthorityBuiltIn } from "../pki/timestamp.ts"
import { stampSignatureValue } from "../pki/timestamp-reply.ts"
import { signatureTimestampOf } from "../pki/timestamp-verify.ts"
import { validateSignature } from "../pki/validate.ts"
import type { TimestampAuthority } from "../pki/timestamp-authority.ts"
import { bytesSource } from "./byte-source.ts"
import { appendDss } from "./dss.ts"
import { longTermMaterial } from "./long-term.ts"
import { signPdf } from "./prepare.ts"
import { samplePdf } from "../../../testkit/src/pdf/verifiers.ts"
import { runTool, scratchFile, scratchPath } from "../../../testkit/src/tools.ts"

const exec = promisify(execFile)
const world = pkiTestWorld()
const layer = Layer.provideMerge(TimestampAuthorityBuiltIn, world.layer)
const run = <A, E>(effect: Effect.Effect<A, E, PkiServices | TimestampAuthority>) => Effect.runPromise(Effect.provide(effect, layer))

const file = scratchFile
const output = (command: string, args: ReadonlyArray<string>) => runTool(command, args).then((r) => ({ ok: r.ok, text: r.out }))
const concat = (a: Uint8Array, b: Uint8Array) => concatBytes([a, b])

let signer: SigningIdentity
let rootPem: string
beforeAll(async () => {
  signer = await run(signingIdentityFor(testUser({ displayName: "Lena Longterm", email: "lena@example.com" })))
  rootPem = file("root.pem", toPem(fromBase64((await run(certificateAuthority)).root.der)!))
})

/** Signs `pdf` at PAdES-B-T: the CMS carries a timestamp over its signature value. */
const signT = async (pdf: Uint8Array) => {
  let cms: Uint8Array = new Uint8Array()
  let digest: Uint8Array = new Uint8Array()
  const { update } = await run(
    signPdf(bytesSource(pdf), { signerName: "Lena Longterm", signingTime: new Date("2026-01-02T03:04:05Z") }, (d) =>
      signDigest({ identity: signer, digest: d, digestAlgorithm: "SHA-256", signingTime: null, timestamp: stampSignatureValue }).pipe(
        Effect.tap((c) => {
          cms = c
          digest = d
        }),
      ),
    ),
  )
  return { signed: concat(pdf, update), cms, digest }
}

describe.each([
  ["an xref stream", true],
  ["a classic xref table", false],
] as const)("PAdES -T and -LT of a PDF with %s", (_label, xrefStream) => {
  it("-T: pdfsig finds the signature valid (it shows /M, no timestamp), qpdf --check passes, openssl ts verifies the token, validation reports it", async () => {
    const { signed, cms, digest } = await signT(await samplePdf({ xrefStream }))
    const path = file("t.pdf", signed)
    const sig = await output("pdfsig", [path])
    expect(sig.text).toContain("Signature Validation: Signature is Valid.")
    expect(sig.text).toContain("Total document signed")
    expect(sig.text).toContain("Signature Type: ETSI.CAdES.detached")
    // pdfsig (poppler 22.12) prints no RFC 3161 timestamp, only /M as the signing time; openssl checks the token below.
    expect(sig.text).toContain("Signing Time: Jan 02 2026 03:04:05")
    expect(sig.text).not.toMatch(/timestamp/i)
    expect((await output("qpdf", ["--check", path])).ok).toBe(true)

    const signerInfo = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(cms)).content }).signerInfos[0]!
    const token = signatureTimestampOf(signerInfo)!
    const imprint = createHash("sha256").update(new Uint8Array(signerInfo.signature.valueBlock.valueHexView)).digest("hex")
    const tsaPem = file(
      "tsa.pem",
      new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(token)).content })
        .certificates!.map((c) => toPem(new Uint8Array((c as pkijs.Certificate).toSchema().toBER(false))))
        .join(""),
    )
    expect(
      (await output("openssl", ["ts", "-verify", "-digest", imprint, "-in", file("token.der", token), "-token_in", "-CAfile", rootPem, "-untrusted", tsaPem]))
        .text,
    ).toContain("Verification: OK")

    const report = await run(validateSignature(toBase64(cms), Buffer.from(digest).toString("hex")))
    expect(report).toMatchObject({ valid: true, timestamp: { valid: true, problems: [] } })
  })

  it("-LT: a second update adds the DSS with the chain, the TSA certificate, OCSP responses and the CRL; the signature stays valid", async () => {
    const { signed, cms } = await signT(await samplePdf({ xrefStream }))
    const material = await run(longTermMaterial(cms))
    expect(material.certificates).toHaveLength(4) // signer, TSA, issuing CA, root
    expect(material.ocsps).toHaveLength(2) // signer and TSA
    const lt = concat(signed, await run(appendDss(bytesSource(signed), material)))
    expect(lt.subarray(0, signed.length)).toEqual(signed)
    const path = file("lt.pdf", lt)

    const sig = await output("pdfsig", [path])
    expect(sig.text).toContain("Signature Validation: Signature is Valid.")
    // the DSS update comes after the signed ranges
    expect(sig.text).toContain("Not total document signed")
    expect((await output("qpdf", ["--check", path])).ok).toBe(true)

    // The catalog's /DSS, as qpdf reads it: four certificates, two OCSP responses, one CRL.
    const json = JSON.parse((await output("qpdf", ["--json=2", "--json-key=qpdf", path])).text) as {
      qpdf: [unknown, Record<string, { value: Record<string, unknown> }>]
    }
    const objects = json.qpdf[1]
    const catalog = objects[`obj:${objects["trailer"]!.value["/Root"] as string}`]!.value
    const dss = objects[`obj:${catalog["/DSS"] as string}`]!.value as Record<string, Array<string> | string>
    expect(dss["/Type"]).toBe("/DSS")
    expect(dss["/Certs"]).toHaveLength(4)
    expect(dss["/OCSPs"]).toHaveLength(2)
    expect(dss["/CRLs"]).toHaveLength(1)
    expect(catalog["/Extensions"]).toMatchObject({ "/ESIC": { "/ExtensionLevel": 5 } })

    // The OCSP responses in the DSS say good for the signer's and the TSA's certificates, signed by the CA.
    const streamData = async (ref: string) => {
      const out = scratchPath("stream.der")
      await exec("qpdf", [`--show-object=${ref.replace(" 0 R", "")}`, "--raw-stream-data", path], { encoding: "buffer" }).then((r) =>
        writeFileSync(out, r.stdout),
      )
      return out
    }
    for (const ref of dss["/OCSPs"] as Array<string>) {
      const text = (await output("openssl", ["ocsp", "-respin", await streamData(ref), "-resp_text", "-noverify"])).text
      expect(text).toContain("Response Status: successful")
      expect(text).toContain("Cert Status: good")
    }
    const crl = (await output("openssl", ["crl", "-inform", "DER", "-in", await streamData((dss["/CRLs"] as Array<string>)[0]!), "-noout", "-text"])).text
    expect(crl).toContain("Certificate Revocation List")
  })
})
