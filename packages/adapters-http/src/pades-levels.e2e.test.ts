/**
 * PDF signing at PAdES levels -B, -T and -LT over HTTP (POST /v2/sign/pdf with `level`, passkey
 * approval, download), checked by pdfsig, qpdf and /v2/validate.
 */
import { enrol, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { tempFile } from "@signet/testkit/pdf"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import * as pkijs from "pkijs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const exec = promisify(execFile)
// Asynchronous: never block the process whose server answers.
const output = (command: string, args: ReadonlyArray<string>) =>
  exec(command, args, { encoding: "latin1", maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => ({ ok: true, text: `${r.stdout}${r.stderr}` }),
    (e: { stdout?: string; stderr?: string }) => ({ ok: false, text: `${e.stdout ?? ""}${e.stderr ?? ""}` }),
  )

/** A one-page PDF with a classic xref table, written out by hand. */
const onePagePdf = (): Uint8Array => {
  const content = "BT /F1 18 Tf 50 780 Td (Lease agreement) Tj ET"
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ]
  let text = "%PDF-1.7\n"
  const offsets: Array<number> = []
  objects.forEach((o, i) => {
    offsets.push(text.length)
    text += `${i + 1} 0 obj\n${o}\nendobj\n`
  })
  const xref = text.length
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f\r\n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n\r\n`).join("")}`
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return new TextEncoder().encode(text)
}

interface Prepared {
  requestId: string
  challenge: string
  documentHash: string
  byteRange: Array<number>
  documentUrl: string
}
interface Report {
  valid: boolean
  integrity: boolean
  coversDocumentHash: boolean
  timestamp: { valid: boolean; genTime: string | null } | null
  problems: Array<string>
}

describe("PAdES levels through the engine", () => {
  let env: RunningEngine
  let passkey: SoftwarePasskey
  let token: string
  beforeAll(async () => {
    env = await startEngine()
    passkey = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, passkey, { email: "pdf-levels@example.com", displayName: "Petra Pdf" })
    token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
  })
  afterAll(async () => {
    await env?.stop()
  })

  const auth = () => ({ authorization: `Bearer ${token}` })
  /** Uploads to POST /v2/sign/pdf at `level`, approves with the passkey, downloads; the signed PDF, its CMS and byte-range hash. */
  const signAt = async (level: string | undefined) => {
    const original = onePagePdf()
    const prepared = ok(
      await env.client.raw<Prepared>("POST", "/v2/sign/pdf", {
        headers: auth(),
        body: { pdf: Buffer.from(original).toString("base64"), credentialId: passkey.credentialId, ...(level === undefined ? {} : { level }) },
      }),
    )
    ok(
      await env.client.raw("POST", `/v2/sign/auth/${prepared.requestId}`, {
        body: { assertion: passkey.assert({ challenge: prepared.challenge }, { includeUserHandle: false }) },
      }),
    )
    const response = await fetch(`${env.origin}${prepared.documentUrl}`, { headers: auth() })
    expect(response.status).toBe(200)
    const pdf = new Uint8Array(await response.arrayBuffer())
    const [, a, b] = prepared.byteRange
    const cms = Buffer.from(Buffer.from(pdf.subarray(a! + 1, b! - 1)).toString("latin1"), "hex")
    // the DER ContentInfo without the zero padding of the placeholder
    const der = new Uint8Array(cms.subarray(0, pkijs.ContentInfo.fromBER(new Uint8Array(cms)).toSchema().toBER(false).byteLength))
    return { original, pdf, cms: der, documentHash: prepared.documentHash }
  }
  const validate = async (cms: Uint8Array, documentHash: string) =>
    ok(await env.client.raw<Report>("POST", "/v2/validate", { body: { signature: Buffer.from(cms).toString("base64"), documentHash } }))
  const validatePdf = async (pdf: Uint8Array) =>
    ok(
      await env.client.raw<{ signatures: Array<Report & { coversWholeDocument: boolean }> }>("POST", "/v2/validate", {
        body: { pdf: Buffer.from(pdf).toString("base64") },
      }),
    )

  it("-T: pdfsig finds the signature valid over the whole document, qpdf --check passes, /v2/validate reports the timestamp", async () => {
    const { original, pdf, cms, documentHash } = await signAt("PAdES-BASELINE-T")
    expect(pdf.subarray(0, original.length)).toEqual(original)
    const path = tempFile("t.pdf", pdf)
    const sig = await output("pdfsig", [path])
    expect(sig.text).toContain("Signature Validation: Signature is Valid.")
    expect(sig.text).toContain("Total document signed")
    expect((await output("qpdf", ["--check", path])).ok).toBe(true)
    const report = await validate(cms, documentHash)
    expect(report).toMatchObject({ valid: true, integrity: true, coversDocumentHash: true, timestamp: { valid: true }, problems: [] })
    expect(Date.parse(report.timestamp!.genTime!)).toBeLessThanOrEqual(Date.now())
    const [fromPdf] = (await validatePdf(pdf)).signatures
    expect(fromPdf).toMatchObject({ valid: true, coversWholeDocument: true, timestamp: { valid: true, genTime: report.timestamp!.genTime } })
  })

  it("-LT: a DSS update follows the signature; it stays valid, qpdf --check passes, the catalog has the DSS", async () => {
    const { pdf, cms, documentHash } = await signAt("PAdES-BASELINE-LT")
    const path = tempFile("lt.pdf", pdf)
    const sig = await output("pdfsig", [path])
    expect(sig.text).toContain("Signature Validation: Signature is Valid.")
    expect(sig.text).toContain("Not total document signed")
    expect((await output("qpdf", ["--check", path])).ok).toBe(true)
    const json = JSON.parse((await output("qpdf", ["--json=2", "--json-key=qpdf", path])).text) as {
      qpdf: [unknown, Record<string, { value: Record<string, unknown> }>]
    }
    const objects = json.qpdf[1]
    const catalog = objects[`obj:${objects["trailer"]!.value["/Root"] as string}`]!.value
    const dss = objects[`obj:${catalog["/DSS"] as string}`]!.value
    expect(dss).toMatchObject({ "/Type": "/DSS" })
    expect(dss["/Certs"]).toHaveLength(4)
    expect(dss["/OCSPs"]).toHaveLength(2)
    expect(dss["/CRLs"]).toHaveLength(1)
    expect(await validate(cms, documentHash)).toMatchObject({ valid: true, timestamp: { valid: true } })
    expect((await validatePdf(pdf)).signatures).toMatchObject([{ valid: true, coversWholeDocument: false, timestamp: { valid: true } }])
  })

  it("-B (the default) has no timestamp; an unknown level is refused with the allowed ones", async () => {
    const { cms, documentHash } = await signAt(undefined)
    expect(await validate(cms, documentHash)).toMatchObject({ valid: true, timestamp: null })
    expect(
      await env.client.raw("POST", "/v2/sign/pdf", {
        headers: auth(),
        body: { pdf: Buffer.from(onePagePdf()).toString("base64"), credentialId: passkey.credentialId, level: "PAdES-BASELINE-XL" },
      }),
    ).toMatchObject({ status: 400, body: { error: "level must be one of PAdES-BASELINE-B | PAdES-BASELINE-T | PAdES-BASELINE-LT | PAdES-BASELINE-LTA" } })
  })
})
