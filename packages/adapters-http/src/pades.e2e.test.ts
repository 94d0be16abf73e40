/**
 * PAdES over real HTTP: a PDF (pdf-lib, xref stream and classic table) signed by two signers in
 * turn, each approving with a passkey; pdfsig, qpdf and pdftoppm judge the results, and
 * `/v2/validate` agrees with them. The RP side of PAdES hash signing is verified by openssl.
 */
import { enrol, ok, signIn, signInAtConsole, SoftwarePasskey, type ErrorBody, type TokenAnswer } from "@signet/testkit"
import { pdfsig, qpdfCheck, renderPage, rgbaPng, samplePdf, signPdfThroughHashSigning, tempFile } from "@signet/testkit/pdf"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { opensslVerifies } from "./test-support/openssl.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

interface Prepared {
  readonly requestId: string
  readonly status: string
  readonly authUrl: string
  readonly challenge: string
  readonly documentHash: string
  readonly byteRange: ReadonlyArray<number>
  readonly fieldName: string
  readonly documentUrl: string
}
interface PdfSignature {
  readonly valid: boolean
  readonly integrity: boolean
  readonly coversDocumentHash: boolean
  readonly coversWholeDocument: boolean
  readonly trustedRoot: boolean
  readonly signer: { subject: string } | null
  readonly fieldName: string | null
  readonly revocation: { status: string }
  readonly timestamp: null
  readonly claimedSigningTime: string | null
  readonly problems: ReadonlyArray<string>
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")

let env: RunningEngine
let rootPem: string
// `token`: issued to the test RP (signing); `consoleToken`: issued to Signet's console (scope `files`: the signature image)
const signers: Array<{ passkey: SoftwarePasskey; token: string; consoleToken: string }> = []

beforeAll(async () => {
  env = await startEngine()
  for (const [email, displayName] of [
    ["alice@example.com", "Alice Example"],
    ["bob@example.com", "Bob Example"],
  ] as const) {
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, passkey, { email, displayName })
    const token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    signers.push({ passkey, token, consoleToken: await signInAtConsole(env.client, passkey) })
  }
  rootPem = ok(await env.client.raw<{ root: { pem: string } }>("GET", "/v2/ca")).root.pem
})
afterAll(async () => env?.stop())

const upload = (pdf: Uint8Array, who: number, extra: Record<string, unknown> = {}) =>
  env.client.raw<Prepared | ErrorBody>("POST", "/v2/sign/pdf", {
    headers: { authorization: `Bearer ${signers[who]!.token}` },
    body: { pdf: b64(pdf), credentialId: signers[who]!.passkey.credentialId, documentName: "contract.pdf", ...extra },
  })
const approve = (prepared: Prepared, who: number) =>
  env.client.raw("POST", `/v2/sign/auth/${prepared.requestId}`, {
    body: { assertion: signers[who]!.passkey.assert({ challenge: prepared.challenge }, { includeUserHandle: false }) },
  })
const download = async (prepared: Prepared, who: number) => {
  const response = await fetch(`${env.origin}${prepared.documentUrl}`, { headers: { authorization: `Bearer ${signers[who]!.token}` } })
  return { status: response.status, type: response.headers.get("content-type"), bytes: new Uint8Array(await response.arrayBuffer()) }
}
/** Upload, approve with the signer's passkey, download. */
const signOverHttp = async (pdf: Uint8Array, who: number, extra: Record<string, unknown> = {}) => {
  const prepared = ok(await upload(pdf, who, extra)) as Prepared
  expect(prepared.status).toBe("pending_auth")
  ok(await approve(prepared, who))
  const signed = await download(prepared, who)
  expect(signed.status).toBe(200)
  expect(signed.type).toBe("application/pdf")
  return signed.bytes
}
const validate = async (pdf: Uint8Array) =>
  ok(await env.client.raw<{ signatures: ReadonlyArray<PdfSignature> } | ErrorBody>("POST", "/v2/validate", { body: { pdf: b64(pdf) } })) as {
    signatures: ReadonlyArray<PdfSignature>
  }

describe.each([
  ["an xref stream (pdf-lib default)", true],
  ["a classic xref table", false],
] as const)("a PDF with %s", (_label, xrefStream) => {
  it("two signers in turn over HTTP: pdfsig finds both valid, the last covers the whole document; qpdf --check passes; /v2/validate agrees", async () => {
    const original = await samplePdf({ xrefStream })
    const once = await signOverHttp(original, 0)
    expect(once.subarray(0, original.length)).toEqual(original)
    const twice = await signOverHttp(once, 1)
    expect(twice.subarray(0, once.length)).toEqual(once)

    for (const [bytes, count] of [
      [once, 1],
      [twice, 2],
    ] as const) {
      const path = tempFile("signed.pdf", bytes)
      const report = await pdfsig(path)
      expect(
        report.signatures.map((s) => s.valid),
        report.text,
      ).toEqual(Array(count).fill(true))
      expect(report.signatures.map((s) => s.wholeDocument)).toEqual([...Array(count - 1).fill(false), true])
      expect(report.signatures.every((s) => s.subFilter === "ETSI.CAdES.detached")).toBe(true)
      const checked = await qpdfCheck(path)
      expect(checked.ok, checked.text).toBe(true)
    }
    // Certificates name the proven e-mail, never the display name the signer chose (issue 13, item 13).
    expect((await pdfsig(tempFile("twice.pdf", twice))).signatures.map((s) => s.signer)).toEqual(["alice@example.com", "bob@example.com"])

    const { signatures } = await validate(twice)
    expect(signatures.map((s) => [s.valid, s.integrity, s.coversDocumentHash, s.trustedRoot, s.revocation.status, s.coversWholeDocument, s.timestamp])).toEqual(
      [
        [true, true, true, true, "valid", false, null],
        [true, true, true, true, "valid", true, null],
      ],
    )
    expect(signatures.map((s) => s.fieldName)).toEqual(["Signature1", "Signature2"])
    expect(signatures.map((s) => s.signer?.subject)).toEqual([expect.stringContaining("CN=alice@example.com"), expect.stringContaining("CN=bob@example.com")])
    expect(signatures[0]!.claimedSigningTime).toMatch(/^\d{4}-\d\d-\d\dT/)
  })

  it("one byte changed inside a signed range: pdfsig and /v2/validate both report the signature invalid", async () => {
    const signed = await signOverHttp(await samplePdf({ xrefStream }), 0)
    const at = Buffer.from(signed).toString("latin1").indexOf("/MediaBox")
    const tampered = new Uint8Array(signed)
    tampered[at + 2] = tampered[at + 2]! ^ 0x20
    expect((await pdfsig(tempFile("tampered.pdf", tampered))).signatures.map((s) => s.valid)).toEqual([false])
    const { signatures } = await validate(tampered)
    expect(signatures).toHaveLength(1)
    expect(signatures[0]).toMatchObject({ valid: false, coversDocumentHash: false, coversWholeDocument: true })
    expect((await validate(signed)).signatures[0]!.valid).toBe(true)
  })
})

it("a visible signature with a PNG renders in its rectangle on the chosen page, and stays valid", async () => {
  const png = rgbaPng(90, 40, (x, y) => (Math.abs(y - 20) < 5 ? [0, 140, 0, 255] : [255, 255, 255, 0]))
  const signed = await signOverHttp(await samplePdf({ xrefStream: true, pages: 3 }), 1, {
    visible: { page: 3, rect: [320, 60, 560, 140], image: b64(png) },
    reason: "Approved",
    location: "Nairobi",
  })
  const path = tempFile("visible.pdf", signed)
  expect((await pdfsig(path)).signatures.map((s) => s.valid)).toEqual([true])
  const page = await renderPage(path, 3)
  let green = 0
  let dark = 0
  for (let y = page.height - 138; y < page.height - 62; y++) {
    for (let x = 322; x < 558; x++) {
      const [r, g, b] = page.at(x, y)
      if (g > 100 && r < 60 && b < 60) green++
      if (x > 420 && r + g + b < 450) dark++
    }
  }
  expect(green).toBeGreaterThan(100)
  expect(dark).toBeGreaterThan(20)
  expect(page.at(100, page.height - 100)).toEqual([255, 255, 255])
})

it("a visible signature without an image draws the signer's stored signature image; a signer without one gets none", async () => {
  const blueIn = async (signed: Uint8Array) => {
    const path = tempFile("visible-stored.pdf", signed)
    expect((await pdfsig(path)).signatures.map((s) => s.valid)).toEqual([true])
    const page = await renderPage(path, 1)
    let blue = 0
    // The image's box: the left 40% of the rectangle, inside the border (which is a dull blue).
    for (let y = page.height - 188; y < page.height - 112; y++) {
      for (let x = 63; x < 156; x++) {
        const [r, g, b] = page.at(x, y)
        if (b > 150 && r < 30 && g < 30) blue++
      }
    }
    return blue
  }
  const stored = rgbaPng(80, 40, (_x, y) => (Math.abs(y - 20) < 6 ? [0, 0, 200, 255] : [255, 255, 255, 0]))
  ok(await env.client.raw("PUT", "/v2/signature-image", { headers: { authorization: `Bearer ${signers[0]!.consoleToken}` }, body: { image: b64(stored) } }))
  const visible = { page: 1, rect: [60, 110, 300, 190] }
  expect(await blueIn(await signOverHttp(await samplePdf({ xrefStream: true, pages: 1 }), 0, { visible }))).toBeGreaterThan(100)
  // Bob set no signature image: the rectangle has the border and text only.
  expect(await blueIn(await signOverHttp(await samplePdf({ xrefStream: true, pages: 1 }), 1, { visible }))).toBe(0)
})

it("issue 13 item 9: another user signed in at the same RP cannot download a signer's PDF (404, as for an unknown id)", async () => {
  const prepared = ok(await upload(await samplePdf({ xrefStream: true }), 0)) as Prepared
  ok(await approve(prepared, 0))
  const stolen = await download(prepared, 1)
  expect(stolen.status).toBe(404)
  expect(JSON.parse(new TextDecoder().decode(stolen.bytes))).toEqual({ error: "PDF signing request not found" })
  // the same user through a token issued to another client (the console) does not reach the RP's record either
  const viaConsole = await fetch(`${env.origin}${prepared.documentUrl}`, { headers: { authorization: `Bearer ${signers[0]!.consoleToken}` } })
  expect(viaConsole.status).toBe(404)
  expect((await download(prepared, 0)).status).toBe(200)
})

it("refuses what it cannot sign: not a PDF 422, above 10 MiB 413, no credential 400; the signed PDF before approval 409, unknown 404", async () => {
  expect(await upload(new TextEncoder().encode("hello, not a pdf"), 0)).toMatchObject({
    status: 422,
    body: { error: expect.stringMatching(/^Not a PDF that can be signed: /) },
  })
  const big = new Uint8Array(10 * 1024 * 1024 + 1)
  expect(await upload(big, 0)).toMatchObject({
    status: 413,
    body: { error: "PDF too large; the limit is 10485760 bytes (sign larger files with the library API)" },
  })
  expect(
    await env.client.raw("POST", "/v2/sign/pdf", {
      headers: { authorization: `Bearer ${signers[0]!.token}` },
      body: { pdf: b64(await samplePdf({ xrefStream: true })) },
    }),
  ).toMatchObject({ status: 400, body: { error: "documentHash and credentialId required" } })
  const prepared = ok(await upload(await samplePdf({ xrefStream: true }), 0)) as Prepared
  expect(await download(prepared, 0)).toMatchObject({ status: 409 })
  const unknown = await fetch(`${env.origin}/api/v2/sign/pdf/00000000-0000-4000-8000-000000000000/document`, {
    headers: { authorization: `Bearer ${signers[0]!.token}` },
  })
  expect(unknown.status).toBe(404)
  expect(await unknown.json()).toEqual({ error: "PDF signing request not found" })
})

it("the RP side of PAdES hash signing (testkit): placeholder, byte-range hash, /v2/sign/single, embed; openssl and pdfsig verify it", async () => {
  const pdf = await samplePdf({ xrefStream: false })
  const { signed, signature, prepared } = await signPdfThroughHashSigning(env.client, {
    accessToken: signers[0]!.token,
    passkey: signers[0]!.passkey,
    pdf,
    options: { signerName: "Alice Example", signingTime: new Date() },
  })
  const [, a, b, c] = prepared.byteRange
  const ranges = Buffer.concat([signed.subarray(0, a), signed.subarray(b, b + c)])
  expect(opensslVerifies(signature, ranges, rootPem)).toBe(true)
  expect(opensslVerifies(signature, pdf, rootPem)).toBe(false)
  expect((await pdfsig(tempFile("rp.pdf", signed))).signatures.map((s) => [s.valid, s.wholeDocument])).toEqual([[true, true]])
  expect((await validate(signed)).signatures.map((s) => s.valid)).toEqual([true])
})
