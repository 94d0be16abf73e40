/** Certification (DocMDP), field locks and filling existing signature fields, as pdfsig and qpdf see them. */
import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { signDigest } from "../pki/cms.ts"
import { signingIdentityFor, type SigningIdentity } from "../pki/signer-certificate.ts"
import { pkiTestWorld, testUser, type PkiServices } from "../pki/test-layers.ts"
import { certifyWithOpenssl, opensslSigner, pdfWithSignatureFields } from "../../../testkit/src/pdf/forms.ts"
import { pdfsig, qpdfCheck, renderPage, samplePdf, tempFile } from "../../../testkit/src/pdf/verifiers.ts"
import { runTool } from "../../../testkit/src/tools.ts"
import { bytesSource } from "./byte-source.ts"
import { openPdf } from "./document.ts"
import { certificationOf, modificationRules } from "./modification-rules.ts"
import { signPdf, type SignatureOptions } from "./prepare.ts"

const world = pkiTestWorld()
const run = <A, E>(effect: Effect.Effect<A, E, PkiServices>) => Effect.runPromise(Effect.provide(effect, world.layer))
const failureOf = <A, E>(effect: Effect.Effect<A, E, PkiServices>) => Effect.runPromise(Effect.provide(Effect.flip(effect), world.layer))

let alice: SigningIdentity
beforeAll(async () => {
  alice = await run(signingIdentityFor(testUser({ displayName: "Alice Example", email: "alice@example.com" })))
})

const signing = (pdf: Uint8Array, options: Partial<SignatureOptions> = {}) =>
  signPdf(bytesSource(pdf), { signerName: "Alice Example", signingTime: new Date("2026-11-26T01:00:00Z"), ...options }, (digest) =>
    signDigest({ identity: alice, digest, digestAlgorithm: "SHA-256", signingTime: null }),
  )
const sign = async (pdf: Uint8Array, options: Partial<SignatureOptions> = {}) => {
  const { update, prepared } = await run(signing(pdf, options))
  return { signed: new Uint8Array([...pdf, ...update]), fieldName: prepared.fieldName }
}

describe("certification signatures (DocMDP)", () => {
  it.each([1, 2, 3] as const)("Signet certifies at P=%i: /Perms /DocMDP names the signature, pdfsig finds it valid, qpdf --check passes", async (p) => {
    const { signed } = await sign(await samplePdf({ xrefStream: p !== 2 }), { certify: { permissions: p } })
    const path = tempFile(`certified-p${p}.pdf`, signed)
    const sig = await pdfsig(path)
    expect(sig.signatures, sig.text).toHaveLength(1)
    expect(sig.signatures[0]).toMatchObject({ valid: true, wholeDocument: true, subFilter: "ETSI.CAdES.detached" })
    expect((await qpdfCheck(path)).ok).toBe(true)
    // qpdf's view: the catalog's /Perms /DocMDP is the signature dictionary with the DocMDP reference and /P.
    const show = async (what: string) => (await runTool("qpdf", [`--show-object=${what}`, path])).out
    const root = /\/Root (\d+) 0 R/.exec(await show("trailer"))![1]!
    const docMdp = /\/Perms << \/DocMDP (\d+) 0 R >>/.exec(await show(root))![1]!
    expect((await show(docMdp)).replace(/\s+/g, " ")).toContain(
      `/Reference [ << /TransformMethod /DocMDP /TransformParams << /P ${p} /Type /TransformParams /V /1.2 >> /Type /SigRef >> ]`,
    )
    const certification = await Effect.runPromise(Effect.flatMap(openPdf(bytesSource(signed)), (doc) => certificationOf(doc)))
    expect(certification).toMatchObject({ permissions: p, fieldName: "Signature1" })
  })

  it("after Signet's P=1 certification a further signature is refused naming DocMDP; after P=2 it is added and both stay valid", async () => {
    const pdf = await samplePdf({ xrefStream: true })
    const { signed: strict } = await sign(pdf, { certify: { permissions: 1 } })
    const refused = await failureOf(signing(strict))
    expect(refused._tag).toBe("PdfSignatureNotPermitted")
    expect(refused.message).toBe("Signature not permitted: the document is certified with no changes allowed (DocMDP P=1)")

    const { signed: lenient } = await sign(pdf, { certify: { permissions: 2 } })
    const { signed: twice, fieldName } = await sign(lenient)
    expect(fieldName).toBe("Signature2")
    const sig = await pdfsig(tempFile("p2-twice.pdf", twice))
    expect(
      sig.signatures.map((s) => s.valid),
      sig.text,
    ).toEqual([true, true])
  })

  it("a certification must be the first signature", async () => {
    const { signed } = await sign(await samplePdf({ xrefStream: false }))
    const refused = await failureOf(signing(signed, { certify: { permissions: 2 } }))
    expect(refused.message).toBe("Signature not permitted: a certification must be the document's first signature; it already has 1")
  })

  it.each([
    [1, false],
    [2, true],
  ] as const)("a document certified at P=%i by openssl (not by Signet): a Signet signature allowed = %s", async (p, allowed) => {
    const certified = await certifyWithOpenssl(await samplePdf({ xrefStream: false }), p, await opensslSigner("External Certifier"))
    const before = await pdfsig(tempFile(`openssl-p${p}.pdf`, certified))
    expect(
      before.signatures.map((s) => s.valid),
      before.text,
    ).toEqual([true])
    const rules = await Effect.runPromise(Effect.flatMap(openPdf(bytesSource(certified)), modificationRules))
    expect(rules.certification).toMatchObject({ permissions: p, fieldName: "Certification" })
    if (!allowed) {
      const refused = await failureOf(signing(certified))
      expect(refused.message).toContain("DocMDP P=1")
      return
    }
    const { signed, fieldName } = await sign(certified)
    expect(fieldName).toBe("Signature1")
    const after = await pdfsig(tempFile(`openssl-p${p}-signed.pdf`, signed))
    expect(
      after.signatures.map((s) => s.valid),
      after.text,
    ).toEqual([true, true])
    expect(after.signatures.map((s) => s.subFilter)).toEqual(["adbe.pkcs7.detached", "ETSI.CAdES.detached"])
    expect((await qpdfCheck(tempFile("openssl-p2-signed.pdf", signed))).ok).toBe(true)
  })
})

describe("filling existing signature fields", () => {
  it("the only empty field is filled (not a new one): pdfsig lists it by its name, /Fields keeps its length", async () => {
    const pdf = await pdfWithSignatureFields({ fields: [{ name: "ClientApproval" }], xrefStream: false })
    const { signed, fieldName } = await sign(pdf)
    expect(fieldName).toBe("ClientApproval")
    const sig = await pdfsig(tempFile("filled.pdf", signed))
    expect(sig.signatures, sig.text).toHaveLength(1)
    expect(sig.signatures[0]!.valid).toBe(true)
    expect(sig.text).toContain("Signature Field Name: ClientApproval")
    const rules = await Effect.runPromise(Effect.flatMap(openPdf(bytesSource(signed)), modificationRules))
    expect(rules.signatureFields.map((f) => [f.name, f.signature !== null])).toEqual([["ClientApproval", true]])
  })

  it("a named visible field is filled in its own rectangle: the placeholder appearance is replaced by the signature's", async () => {
    const pdf = await pdfWithSignatureFields({ fields: [{ name: "Witness" }, { name: "Manager", rect: [300, 60, 560, 140] }] })
    const blank = await renderPage(tempFile("form.pdf", pdf), 1)
    const { signed, fieldName } = await sign(pdf, { field: "Manager", visible: { page: 1, rect: [0, 0, 10, 10] } })
    expect(fieldName).toBe("Manager")
    const path = tempFile("filled-visible.pdf", signed)
    const sig = await pdfsig(path)
    expect(sig.signatures.map((s) => [s.field, s.signed, s.valid])).toEqual([
      ["Witness", false, false],
      ["Manager", true, true],
    ])
    expect((await qpdfCheck(path)).ok).toBe(true)
    // At 72 dpi a point is a pixel; y from the top. Inside the rect the grey box becomes the white signature with a border.
    const page = await renderPage(path, 1)
    const inside = (r: typeof page) => r.at(305, 842 - 135)
    expect(inside(blank)).toEqual([217, 217, 217])
    expect(inside(page)).toEqual([255, 255, 255])
    // Outside the rectangle nothing changed.
    expect(page.at(100, 842 - 100)).toEqual(blank.at(100, 842 - 100))
  })

  it("a name the document does not have is refused; a field a signed field's /Lock covers is refused", async () => {
    const pdf = await pdfWithSignatureFields({ fields: [{ name: "Signature1" }] })
    expect((await failureOf(signing(pdf, { field: "Nope" }))).message).toBe("The PDF has no signature field named Nope")

    const locked = await pdfWithSignatureFields({
      fields: [{ name: "Boss", lock: { action: "Include", fields: ["Clerk"] } }, { name: "Clerk" }],
      xrefStream: false,
    })
    const { signed } = await sign(locked, { field: "Boss" })
    // Boss's signature carries the FieldMDP reference of its /Lock; Clerk is now locked.
    const refused = await failureOf(signing(signed, { field: "Clerk" }))
    expect(refused.message).toBe("Signature not permitted: signature field Clerk is locked by the signature in Boss (FieldMDP /Action /Include)")
    expect((await pdfsig(tempFile("locked.pdf", signed))).signatures.map((s) => [s.field, s.valid])).toEqual([
      ["Boss", true],
      ["Clerk", false],
    ])
  })
})
