/**
 * `/v2/validate` against signatures made by other software (issue 15, validation): keys and
 * certificates made by `openssl` under a CA of the test (configured as a trust anchor), PDFs with
 * a signature placeholder written here, signed over their byte ranges by `openssl cms -sign` with
 * RSA-2048 (PKCS#1 v1.5 and PSS), P-256, P-384, P-521 and Ed25519 and SHA-256/384/512, the CA's
 * CRL (made by `openssl ca -gencrl`) added in a /DSS update. The engine must agree with
 * `openssl cms -verify` and `pdfsig` on each signature and on a tampered copy of each, and its
 * standard report must give the expected indication. Revocation is judged at the signature
 * timestamp (from the engine's TSA): revoked after it, valid; revoked before it, not.
 */
import { ok, type ErrorBody } from "@signet/testkit"
import { pdfsig, tempFile } from "@signet/testkit/pdf"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as pkijs from "pkijs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const dir = mkdtempSync(join(tmpdir(), "signet-validate-algs-"))
const at = (name: string) => join(dir, name)
const openssl = (...args: Array<string>) => execFileSync("openssl", args, { stdio: "pipe" })
const latin1 = (s: string) => new Uint8Array(Buffer.from(s, "latin1"))
const concat = (...parts: Array<Uint8Array>) => new Uint8Array(Buffer.concat(parts))

// ---- a CA of the test, its signers, and its CRL (openssl ca's index.txt written here, so revocation times are chosen) ----

type KeyKind = "rsa" | "p256" | "p384" | "p521" | "ed25519"
const KEYGEN: Record<KeyKind, Array<string>> = {
  rsa: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
  p256: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
  p384: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
  p521: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"],
  ed25519: ["-algorithm", "ED25519"],
}

interface Signer {
  readonly name: string
  readonly key: string
  readonly cert: string
  readonly serial: string
}

let serialCounter = 0x1000
const revoked: Array<{ serial: string; subject: string; at: Date }> = []

const makeCa = (name: string) => {
  openssl("genpkey", ...KEYGEN.rsa, "-out", at(`${name}.key`))
  openssl(
    "req",
    "-x509",
    "-new",
    "-key",
    at(`${name}.key`),
    "-subj",
    `/CN=${name}/O=Other Software`,
    "-days",
    "30",
    "-out",
    at(`${name}.pem`),
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  )
  return { key: at(`${name}.key`), cert: at(`${name}.pem`) }
}

const makeSigner = (ca: { key: string; cert: string }, name: string, kind: KeyKind): Signer => {
  const serial = (serialCounter++).toString(16).toUpperCase()
  openssl("genpkey", ...KEYGEN[kind], "-out", at(`${name}.key`))
  openssl("req", "-new", "-key", at(`${name}.key`), "-subj", `/CN=${name}`, "-out", at(`${name}.csr`))
  writeFileSync(at(`${name}.ext`), "keyUsage=critical,digitalSignature,nonRepudiation\nbasicConstraints=CA:FALSE\n")
  openssl(
    "x509",
    "-req",
    "-in",
    at(`${name}.csr`),
    "-CA",
    ca.cert,
    "-CAkey",
    ca.key,
    "-set_serial",
    `0x${serial}`,
    "-days",
    "10",
    "-extfile",
    at(`${name}.ext`),
    "-out",
    at(`${name}.pem`),
  )
  return { name, key: at(`${name}.key`), cert: at(`${name}.pem`), serial }
}

/** `YYMMDDHHMMSSZ`, the time form of openssl ca's database. */
const caTime = (d: Date) => `${d.toISOString().replace(/[-:T]/g, "").slice(2, 14)}Z`

/** The CA's DER CRL listing `revoked`, made by `openssl ca -gencrl`. */
const crlOf = (ca: { key: string; cert: string }): Uint8Array => {
  writeFileSync(
    at("index.txt"),
    revoked
      .map((r) => `R\t${caTime(new Date(Date.now() + 86_400_000 * 10))}\t${caTime(r.at)},keyCompromise\t${r.serial}\tunknown\t/CN=${r.subject}\n`)
      .join(""),
  )
  writeFileSync(at("crlnumber"), "01\n")
  writeFileSync(at("ca.cnf"), `[ca]\ndefault_ca=d\n[d]\ndatabase=${at("index.txt")}\ncrlnumber=${at("crlnumber")}\ndefault_md=sha256\ndefault_crl_days=7\n`)
  openssl("ca", "-gencrl", "-batch", "-config", at("ca.cnf"), "-keyfile", ca.key, "-cert", ca.cert, "-out", at("crl.pem"))
  return new Uint8Array(openssl("crl", "-in", at("crl.pem"), "-outform", "DER"))
}

/** An OCSP response of the CA for `signer` (good, or revoked at `revokedAt`), made offline by `openssl ocsp -index`. */
const ocspOf = (ca: { key: string; cert: string }, signer: Signer, revokedAt?: Date): Uint8Array => {
  const expiry = caTime(new Date(Date.now() + 86_400_000 * 10))
  writeFileSync(
    at("ocsp-index.txt"),
    revokedAt === undefined
      ? `V\t${expiry}\t\t${signer.serial}\tunknown\t/CN=${signer.name}\n`
      : `R\t${expiry}\t${caTime(revokedAt)},keyCompromise\t${signer.serial}\tunknown\t/CN=${signer.name}\n`,
  )
  openssl("ocsp", "-issuer", ca.cert, "-cert", signer.cert, "-no_nonce", "-reqout", at("ocsp.req"))
  openssl(
    "ocsp",
    "-index",
    at("ocsp-index.txt"),
    "-CA",
    ca.cert,
    "-rsigner",
    ca.cert,
    "-rkey",
    ca.key,
    "-reqin",
    at("ocsp.req"),
    "-respout",
    at("ocsp.der"),
    "-ndays",
    "1",
  )
  return new Uint8Array(readFileSync(at("ocsp.der")))
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const derOfPem = (path: string) => new Uint8Array(openssl("x509", "-in", path, "-outform", "DER"))

// ---- a PDF with a signature placeholder, written here, and the update that adds a /DSS ----

const PLACEHOLDER_BYTES = 12_000

interface Placeholder {
  readonly pdf: Uint8Array
  readonly byteRange: readonly [number, number, number, number]
  readonly xrefAt: number
  /** what the catalog carries besides pages and form (a certification's /Perms) */
  readonly catalogExtra: string
}

/** A one-page PDF with an empty-signature placeholder in field Signature1; `certify`: a certification signature with DocMDP /P. */
const placeholderPdf = (certify?: 1 | 2 | 3): Placeholder => {
  const contents = `<${"0".repeat(PLACEHOLDER_BYTES * 2)}>`
  const catalogExtra = certify === undefined ? "" : "/Perms<</DocMDP 5 0 R>>"
  const reference =
    certify === undefined ? "" : `/Reference[<</Type/SigRef/TransformMethod/DocMDP/TransformParams<</Type/TransformParams/P ${certify}/V/1.2>>>>]`
  const objects = [
    `<</Type/Catalog/Pages 2 0 R/AcroForm<</Fields[4 0 R]/SigFlags 3>>${catalogExtra}>>`,
    "<</Type/Pages/Kids[3 0 R]/Count 1>>",
    "<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 6 0 R/Annots[4 0 R]>>",
    "<</FT/Sig/T(Signature1)/V 5 0 R/Type/Annot/Subtype/Widget/Rect[0 0 0 0]/F 132/P 3 0 R>>",
    `<</Type/Sig/Filter/Adobe.PPKLite/SubFilter/ETSI.CAdES.detached/ByteRange[0 ${"#".repeat(10)} ${"#".repeat(10)} ${"#".repeat(10)}]/Contents ${contents}/M(D:20261126120000Z)${reference}>>`,
    "<</Length 24>>\nstream\n0 0 1 rg 10 10 50 50 re f\nendstream",
  ]
  let text = "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
  const offsets: Array<number> = []
  objects.forEach((body, i) => {
    offsets.push(text.length)
    text += `${i + 1} 0 obj\n${body}\nendobj\n`
  })
  const xrefAt = text.length
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`
  text += `trailer\n<</Size ${objects.length + 1}/Root 1 0 R>>\nstartxref\n${xrefAt}\n%%EOF\n`
  const a = text.indexOf(contents)
  const b = a + contents.length
  const range = [0, a, b, text.length - b] as const
  const withRange = text.replace(
    `[0 ${"#".repeat(10)} ${"#".repeat(10)} ${"#".repeat(10)}]`,
    `[0 ${range
      .slice(1)
      .map((n) => String(n).padEnd(10, " "))
      .join(" ")}]`,
  )
  return { pdf: latin1(withRange), byteRange: range, xrefAt, catalogExtra }
}

/** An incremental update to a signed `base` that adds field Signature2 with a placeholder (an approval signature). */
const secondPlaceholder = (base: Uint8Array, prevXref: number, catalogExtra: string, documentTimestamp = false): Placeholder => {
  const contents = `<${"0".repeat(PLACEHOLDER_BYTES * 2)}>`
  let text = Buffer.from(base).toString("latin1")
  const offsets = new Map<number, number>()
  const object = (num: number, body: string) => {
    offsets.set(num, text.length)
    text += `${num} 0 obj\n${body}\nendobj\n`
  }
  object(1, `<</Type/Catalog/Pages 2 0 R/AcroForm<</Fields[4 0 R 10 0 R]/SigFlags 3>>${catalogExtra}>>`)
  object(3, "<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 6 0 R/Annots[4 0 R 10 0 R]>>")
  object(10, "<</FT/Sig/T(Signature2)/V 11 0 R/Type/Annot/Subtype/Widget/Rect[0 0 0 0]/F 132/P 3 0 R>>")
  object(
    11,
    `<</Type/${documentTimestamp ? "DocTimeStamp" : "Sig"}/Filter/Adobe.PPKLite/SubFilter/${documentTimestamp ? "ETSI.RFC3161" : "ETSI.CAdES.detached"}/ByteRange[0 ${"#".repeat(10)} ${"#".repeat(10)} ${"#".repeat(10)}]/Contents ${contents}/M(D:20261126130000Z)>>`,
  )
  const xrefAt = text.length
  const row = (n: number) => `${String(offsets.get(n)).padStart(10, "0")} 00000 n \n`
  text += `xref\n1 1\n${row(1)}3 1\n${row(3)}10 2\n${row(10)}${row(11)}trailer\n<</Size 12/Root 1 0 R/Prev ${prevXref}>>\nstartxref\n${xrefAt}\n%%EOF\n`
  const a = text.lastIndexOf(contents)
  const b = a + contents.length
  const range = [0, a, b, text.length - b] as const
  const withRange = text.replace(
    `[0 ${"#".repeat(10)} ${"#".repeat(10)} ${"#".repeat(10)}]`,
    `[0 ${range
      .slice(1)
      .map((n) => String(n).padEnd(10, " "))
      .join(" ")}]`,
  )
  return { pdf: latin1(withRange), byteRange: range, xrefAt, catalogExtra }
}

const signedBytes = (p: Placeholder) => concat(p.pdf.subarray(0, p.byteRange[1]), p.pdf.subarray(p.byteRange[2]))

const embed = (p: Placeholder, cms: Uint8Array): Uint8Array => {
  const hex = Buffer.from(cms).toString("hex")
  if (hex.length > PLACEHOLDER_BYTES * 2) throw new Error("CMS larger than the placeholder")
  const out = new Uint8Array(p.pdf)
  out.set(latin1(hex), p.byteRange[1] + 1)
  return out
}

/** The incremental update that adds a /DSS with `crls` and `certs` (each a stream) to the catalog. */
const withDss = (
  pdf: Uint8Array,
  prevXref: number,
  crls: ReadonlyArray<Uint8Array>,
  certs: ReadonlyArray<Uint8Array>,
  ocsps: ReadonlyArray<Uint8Array> = [],
  catalog = "<</Type/Catalog/Pages 2 0 R/AcroForm<</Fields[4 0 R]/SigFlags 3>>/DSS 7 0 R>>",
  size = 8,
): Uint8Array => {
  const parts: Array<Uint8Array> = [pdf]
  let length = pdf.length
  const push = (b: Uint8Array) => {
    parts.push(b)
    length += b.length
  }
  const offsets = new Map<number, number>()
  const streams = [...crls, ...certs, ...ocsps]
  const first = size
  const object = (num: number, head: string, stream?: Uint8Array) => {
    offsets.set(num, length)
    push(latin1(`${num} 0 obj\n${head}\n`))
    if (stream !== undefined) {
      push(latin1("stream\n"))
      push(stream)
      push(latin1("\nendstream\n"))
    }
    push(latin1("endobj\n"))
  }
  object(1, catalog)
  const ref = (from: number, n: number) => Array.from({ length: n }, (_, i) => `${from + i} 0 R`).join(" ")
  object(
    7,
    `<</Type/DSS/CRLs[${ref(first, crls.length)}]/Certs[${ref(first + crls.length, certs.length)}]/OCSPs[${ref(first + crls.length + certs.length, ocsps.length)}]>>`,
  )
  for (const [i, s] of streams.entries()) object(first + i, `<</Length ${s.length}>>`, s)
  const xrefAt = length
  const row = (n: number) => `${String(offsets.get(n)).padStart(10, "0")} 00000 n \n`
  push(
    latin1(
      `xref\n1 1\n${row(1)}7 1\n${row(7)}${first} ${streams.length}\n${streams.map((_, i) => row(first + i)).join("")}trailer\n<</Size ${first + streams.length}/Root 1 0 R/Prev ${prevXref}>>\nstartxref\n${xrefAt}\n%%EOF\n`,
    ),
  )
  return concat(...parts)
}

/** A copy with one byte of the page content changed (inside the signed ranges). */
const tampered = (pdf: Uint8Array): Uint8Array => {
  const out = new Uint8Array(pdf)
  const i = Buffer.from(pdf).indexOf("10 10 50 50 re")
  out[i + 9] = "1".charCodeAt(0)
  return out
}

// ---- signing: openssl cms; Ed25519 by openssl pkeyutl over DER written here (OpenSSL 3.0's cms cannot sign with Ed25519) ----

type Digest = "sha256" | "sha384" | "sha512"

const opensslCms = (signer: Signer, data: Uint8Array, md: Digest, options: { pss?: boolean; noattr?: boolean } = {}): Uint8Array => {
  writeFileSync(at("data.bin"), data)
  openssl(
    "cms",
    "-sign",
    "-binary",
    "-in",
    at("data.bin"),
    "-signer",
    signer.cert,
    "-inkey",
    signer.key,
    "-md",
    md,
    "-outform",
    "DER",
    "-out",
    at("sig.der"),
    ...(options.pss === true ? ["-keyopt", "rsa_padding_mode:pss"] : []),
    ...(options.noattr === true ? ["-noattr"] : []),
  )
  return new Uint8Array(readFileSync(at("sig.der")))
}

const tlv = (tag: number, ...content: Array<Uint8Array>): Uint8Array => {
  const body = concat(...content)
  const n = body.length
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]
  return concat(new Uint8Array([tag, ...length]), body)
}
const hex = (h: string) => new Uint8Array(Buffer.from(h, "hex"))
const OID_SIGNED_DATA = hex("06092a864886f70d010702")
const OID_DATA = hex("06092a864886f70d010701")
const OID_SHA512 = hex("0609608648016503040203")
const OID_ED25519 = hex("06032b6570")

const ed25519Cms = (signer: Signer, data: Uint8Array): Uint8Array => {
  const cert = pkijs.Certificate.fromBER(derOfPem(signer.cert))
  const contentType = tlv(0x30, hex("06092a864886f70d010903"), tlv(0x31, OID_DATA))
  const messageDigest = tlv(0x30, hex("06092a864886f70d010904"), tlv(0x31, tlv(0x04, new Uint8Array(createHash("sha512").update(data).digest()))))
  const attributes = concat(contentType, messageDigest) // DER order: the shorter encoding first
  writeFileSync(at("attrs.der"), tlv(0x31, attributes))
  const signature = new Uint8Array(openssl("pkeyutl", "-sign", "-rawin", "-inkey", signer.key, "-in", at("attrs.der")))
  const sid = tlv(0x30, new Uint8Array(cert.issuer.toSchema().toBER()), new Uint8Array(cert.serialNumber.toBER()))
  const signerInfo = tlv(0x30, hex("020101"), sid, tlv(0x30, OID_SHA512), tlv(0xa0, attributes), tlv(0x30, OID_ED25519), tlv(0x04, signature))
  const signedData = tlv(0x30, hex("020101"), tlv(0x31, tlv(0x30, OID_SHA512)), tlv(0x30, OID_DATA), tlv(0xa0, derOfPem(signer.cert)), tlv(0x31, signerInfo))
  return tlv(0x30, OID_SIGNED_DATA, tlv(0xa0, signedData))
}

const opensslVerifies = (cms: Uint8Array, data: Uint8Array, caPem: string): boolean => {
  writeFileSync(at("v.der"), cms)
  writeFileSync(at("v.bin"), data)
  try {
    openssl(
      "cms",
      "-verify",
      "-binary",
      "-purpose",
      "any",
      "-inform",
      "DER",
      "-in",
      at("v.der"),
      "-content",
      at("v.bin"),
      "-CAfile",
      caPem,
      "-out",
      "/dev/null",
    )
    return true
  } catch {
    return false
  }
}

// ---- the engine ----

interface EtsiSignature {
  readonly signatureIdentifier: { readonly id: string; readonly digestAlgorithm: string | null; readonly signatureAlgorithm: string | null }
  readonly validationStatus: { readonly mainIndication: string; readonly subIndication: string | null; readonly problems: ReadonlyArray<string> }
  readonly bestSignatureTime: { readonly proof: string }
  readonly certificateChain: ReadonlyArray<{ readonly subject: string; readonly trustAnchor: boolean; readonly revocation: { status: string; source: string } }>
  readonly signedScope: { readonly kind: string; readonly coversWholeDocument: boolean | null }
}
interface ShortSignature {
  readonly valid: boolean
  readonly integrity: boolean
  readonly coversDocumentHash: boolean
  readonly trustedRoot: boolean
  readonly revocation: { readonly status: string; readonly signedBeforeRevocation: boolean | null }
  readonly problems: ReadonlyArray<string>
}

let env: RunningEngine
let ca: { key: string; cert: string }
let otherCa: { key: string; cert: string }

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")
// /v2/validate allows 60 calls a minute per client: each call of this test poses as another client behind the trusted proxy
let clients = 0
const client = () => ({ "x-forwarded-for": `10.9.${(++clients >> 8) & 0xff}.${clients & 0xff}` })
const validateShort = async (pdf: Uint8Array) =>
  (
    ok(
      await env.client.raw<{ signatures: ReadonlyArray<ShortSignature> } | ErrorBody>("POST", "/v2/validate", { body: { pdf: b64(pdf) }, headers: client() }),
    ) as {
      signatures: ReadonlyArray<ShortSignature>
    }
  ).signatures
const validateEtsi = async (pdf: Uint8Array) =>
  (
    ok(
      await env.client.raw<{ signatureValidationReports: ReadonlyArray<EtsiSignature> } | ErrorBody>("POST", "/v2/validate?format=etsi", {
        body: { pdf: b64(pdf) },
        headers: client(),
      }),
    ) as {
      signatureValidationReports: ReadonlyArray<EtsiSignature>
    }
  ).signatureValidationReports

beforeAll(async () => {
  ca = makeCa("Other Software CA")
  otherCa = makeCa("Untrusted CA")
  env = await startEngine({ trustAnchors: [derOfPem(ca.cert)], trustedProxies: ["127.0.0.1"] })
}, 60_000)
afterAll(async () => env?.stop())

interface Case {
  readonly label: string
  readonly kind: KeyKind
  readonly md: Digest
  readonly pss?: boolean
  readonly noattr?: boolean
  /** what `/v2/validate` must say of the untampered file */
  readonly expected: readonly [string, string | null]
  /** what `/v2/validate` must say of the tampered copy */
  readonly expectedTampered: readonly [string, string | null]
  /** pdfsig (NSS) cannot judge it: its answer is recorded, not compared */
  readonly pdfsigCannotJudge?: string
  /** openssl 3.0 cannot judge it */
  readonly opensslCannotJudge?: string
}

const PASSED = ["TOTAL-PASSED", null] as const
const HASH_FAILURE = ["TOTAL-FAILED", "HASH_FAILURE"] as const
const CASES: ReadonlyArray<Case> = [
  ...(["sha256", "sha384", "sha512"] as const).flatMap((md) => [
    { label: `RSA-2048 PKCS#1 v1.5, ${md}`, kind: "rsa" as const, md, expected: PASSED, expectedTampered: HASH_FAILURE },
    { label: `RSA-2048 PSS, ${md}`, kind: "rsa" as const, md, pss: true, expected: PASSED, expectedTampered: HASH_FAILURE },
    { label: `ECDSA P-256, ${md}`, kind: "p256" as const, md, expected: PASSED, expectedTampered: HASH_FAILURE },
    { label: `ECDSA P-384, ${md}`, kind: "p384" as const, md, expected: PASSED, expectedTampered: HASH_FAILURE },
    { label: `ECDSA P-521, ${md}`, kind: "p521" as const, md, expected: PASSED, expectedTampered: HASH_FAILURE },
  ]),
  {
    label: "Ed25519, sha512 (RFC 8419)",
    kind: "ed25519",
    md: "sha512",
    expected: PASSED,
    expectedTampered: HASH_FAILURE,
    opensslCannotJudge: "OpenSSL 3.0's cms has no Ed25519 support (no default digest)",
    pdfsigCannotJudge: "poppler 22.12 (NSS) reports the Ed25519 signature not valid, tampered or not",
  },
  // Without signed attributes the signature is over the content itself: RSA PKCS#1 v1.5 is checked against
  // the byte ranges' digest; a tampered copy then fails the signature itself.
  {
    label: "RSA-2048 PKCS#1 v1.5, sha256, no signed attributes",
    kind: "rsa",
    md: "sha256",
    noattr: true,
    expected: PASSED,
    expectedTampered: ["TOTAL-FAILED", "SIG_CRYPTO_FAILURE"],
  },
  // ECDSA without signed attributes would need the prehash form of verification, which Web Crypto lacks: not judged.
  {
    label: "ECDSA P-256, sha256, no signed attributes",
    kind: "p256",
    md: "sha256",
    noattr: true,
    expected: ["INDETERMINATE", "CRYPTO_CONSTRAINTS_FAILURE"],
    expectedTampered: ["INDETERMINATE", "CRYPTO_CONSTRAINTS_FAILURE"],
  },
]

describe("signatures made by openssl under a configured trust anchor", () => {
  const signers = new Map<KeyKind, Signer>()
  const signerOf = (kind: KeyKind) => {
    if (!signers.has(kind)) signers.set(kind, makeSigner(ca, `Signer ${kind}`, kind))
    return signers.get(kind)!
  }

  it.each(CASES)("$label: /v2/validate agrees with openssl cms -verify and pdfsig, on the file and on a tampered copy", async (c) => {
    const signer = signerOf(c.kind)
    const placeholder = placeholderPdf()
    const data = signedBytes(placeholder)
    const cms =
      c.kind === "ed25519"
        ? ed25519Cms(signer, data)
        : opensslCms(signer, data, c.md, { ...(c.pss ? { pss: true } : {}), ...(c.noattr ? { noattr: true } : {}) })
    const signed = withDss(embed(placeholder, cms), placeholder.xrefAt, [crlOf(ca)], [])
    const bad = tampered(signed)

    const [short] = await validateShort(signed)
    const [etsi] = await validateEtsi(signed)
    const [shortBad] = await validateShort(bad)
    const [etsiBad] = await validateEtsi(bad)
    expect([etsi!.validationStatus.mainIndication, etsi!.validationStatus.subIndication], etsi!.validationStatus.problems.join("; ")).toEqual([...c.expected])
    expect([etsiBad!.validationStatus.mainIndication, etsiBad!.validationStatus.subIndication]).toEqual([...c.expectedTampered])
    expect(short!.valid).toBe(c.expected[0] === "TOTAL-PASSED")
    expect(shortBad!.valid).toBe(false)
    expect(etsi!.signatureIdentifier.digestAlgorithm).toBe(c.md.toUpperCase().replace("SHA", "SHA-"))
    if (c.expected[0] === "TOTAL-PASSED") {
      expect(short).toMatchObject({ integrity: true, coversDocumentHash: true, trustedRoot: true, revocation: { status: "valid" } })
      expect(etsi!.certificateChain.map((x) => [x.trustAnchor, x.revocation.status, x.revocation.source])).toEqual([
        [false, "good", "embedded-crl"],
        [true, "not-checked", "none"],
      ])
      expect(etsi!.signedScope).toMatchObject({ kind: "byte-range", coversWholeDocument: false })
    }

    // openssl cms -verify over the same bytes, chaining to the same CA
    const tamperedData = concat(bad.subarray(0, placeholder.byteRange[1]), bad.subarray(placeholder.byteRange[2], placeholder.pdf.length))
    const caPem = ca.cert
    if (c.opensslCannotJudge === undefined) {
      expect(opensslVerifies(cms, data, caPem)).toBe(true)
      expect(opensslVerifies(cms, tamperedData, caPem)).toBe(false)
      if (c.expected[0] !== "INDETERMINATE") expect(short!.valid).toBe(opensslVerifies(cms, data, caPem))
    }

    // pdfsig judges the signature's integrity (its NSS database does not know the test CA: trust is not compared)
    const judged = (await pdfsig(tempFile("signed.pdf", signed))).signatures
    const judgedBad = (await pdfsig(tempFile("tampered.pdf", bad))).signatures
    expect(judged).toHaveLength(1)
    if (c.pdfsigCannotJudge === undefined && c.expected[0] !== "INDETERMINATE") {
      expect(judgedBad[0]!.valid).toBe(false)
      expect(judged[0]!.valid).toBe(short!.integrity)
    } else if (c.pdfsigCannotJudge !== undefined) expect(judged[0]!.valid).toBe(false) // the limitation as it stands: fails when poppler learns Ed25519
  })

  it("a signature whose CA is not a trust anchor: INDETERMINATE / NO_CERTIFICATE_CHAIN_FOUND, though its integrity holds", async () => {
    const stranger = makeSigner(otherCa, "Stranger", "p256")
    const placeholder = placeholderPdf()
    const signed = embed(placeholder, opensslCms(stranger, signedBytes(placeholder), "sha256"))
    const [short] = await validateShort(signed)
    const [etsi] = await validateEtsi(signed)
    expect(short).toMatchObject({ valid: false, integrity: true, trustedRoot: false })
    expect([etsi!.validationStatus.mainIndication, etsi!.validationStatus.subIndication]).toEqual(["INDETERMINATE", "NO_CERTIFICATE_CHAIN_FOUND"])
  })

  it("an OCSP response of the CA in /DSS /OCSPs is the revocation source: good passes; revoked (no timestamp) is REVOKED_NO_POE", async () => {
    const good = makeSigner(ca, "Ocsp Good", "p256")
    const bad = makeSigner(ca, "Ocsp Revoked", "rsa")
    const verdict = async (signer: Signer, revokedAt?: Date) => {
      const placeholder = placeholderPdf()
      const pdf = withDss(
        embed(placeholder, opensslCms(signer, signedBytes(placeholder), "sha256")),
        placeholder.xrefAt,
        [],
        [],
        [ocspOf(ca, signer, revokedAt)],
      )
      const [etsi] = await validateEtsi(pdf)
      return etsi!
    }
    const g = await verdict(good)
    expect([g.validationStatus.mainIndication, g.validationStatus.subIndication], g.validationStatus.problems.join("; ")).toEqual(["TOTAL-PASSED", null])
    expect(g.certificateChain[0]!.revocation).toMatchObject({ status: "good", source: "embedded-ocsp" })
    const r = await verdict(bad, new Date(Date.now() - 60_000))
    expect([r.validationStatus.mainIndication, r.validationStatus.subIndication]).toEqual(["INDETERMINATE", "REVOKED_NO_POE"])
    expect(r.certificateChain[0]!.revocation).toMatchObject({ status: "revoked", source: "embedded-ocsp" })
  })

  it("without revocation information for a foreign signer: INDETERMINATE / TRY_LATER", async () => {
    const placeholder = placeholderPdf()
    const signed = embed(placeholder, opensslCms(signerOf("p384"), signedBytes(placeholder), "sha384"))
    const [etsi] = await validateEtsi(signed)
    expect([etsi!.validationStatus.mainIndication, etsi!.validationStatus.subIndication]).toEqual(["INDETERMINATE", "TRY_LATER"])
    expect(etsi!.certificateChain[0]!.revocation).toMatchObject({ status: "unknown", source: "none" })
  })
})

describe("revocation judged at the signature timestamp (the engine's TSA), from a CRL in /DSS", () => {
  /** The signature value's RFC 3161 token from the engine's TSA (`openssl ts -query`), added as id-aa-signatureTimeStampToken. */
  const timestamped = async (cms: Uint8Array): Promise<Uint8Array> => {
    const info = pkijs.ContentInfo.fromBER(new Uint8Array(cms))
    const signedData = new pkijs.SignedData({ schema: info.content })
    const signerInfo = signedData.signerInfos[0]!
    writeFileSync(at("sigvalue.bin"), new Uint8Array(signerInfo.signature.valueBlock.valueHexView))
    openssl("ts", "-query", "-data", at("sigvalue.bin"), "-sha256", "-cert", "-out", at("q.tsq"))
    const reply = await fetch(`${env.origin}/api/v2/tsa`, {
      method: "POST",
      headers: { "content-type": "application/timestamp-query" },
      body: readFileSync(at("q.tsq")),
    })
    expect(reply.status).toBe(200)
    writeFileSync(at("r.tsr"), new Uint8Array(await reply.arrayBuffer()))
    openssl("ts", "-reply", "-in", at("r.tsr"), "-token_out", "-out", at("token.der"))
    const token = pkijs.ContentInfo.fromBER(new Uint8Array(readFileSync(at("token.der"))))
    signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
      type: 1,
      attributes: [new pkijs.Attribute({ type: "1.2.840.113549.1.9.16.2.14", values: [token.toSchema()] })],
    })
    return new Uint8Array(new pkijs.ContentInfo({ contentType: "1.2.840.113549.1.7.2", content: signedData.toSchema(true) }).toSchema().toBER())
  }

  it("a document timestamp (ETSI.RFC3161) over a later revision is the POE of the signature it covers: revoked after it, valid; the timestamp itself is judged, and tampering fails it", async () => {
    const signer = makeSigner(ca, "Doc Stamped", "p384")
    const first = placeholderPdf()
    const signed = embed(first, opensslCms(signer, signedBytes(first), "sha384"))
    const stampField = secondPlaceholder(signed, first.xrefAt, "", true)
    writeFileSync(at("ranges.bin"), signedBytes(stampField))
    openssl("ts", "-query", "-data", at("ranges.bin"), "-sha256", "-cert", "-out", at("doc.tsq"))
    const reply = await fetch(`${env.origin}/api/v2/tsa`, {
      method: "POST",
      headers: { "content-type": "application/timestamp-query" },
      body: readFileSync(at("doc.tsq")),
    })
    writeFileSync(at("doc.tsr"), new Uint8Array(await reply.arrayBuffer()))
    openssl("ts", "-reply", "-in", at("doc.tsr"), "-token_out", "-out", at("doc-token.der"))
    const stamped = embed(stampField, new Uint8Array(readFileSync(at("doc-token.der"))))
    await sleep(1_100)
    revoked.push({ serial: signer.serial, subject: signer.name, at: new Date(Math.floor(Date.now() / 1000) * 1000) })
    const pdf = withDss(
      stamped,
      stampField.xrefAt,
      [crlOf(ca)],
      [],
      [],
      "<</Type/Catalog/Pages 2 0 R/AcroForm<</Fields[4 0 R 10 0 R]/SigFlags 3>>/DSS 7 0 R>>",
      12,
    )

    const [signature, stamp] = await validateEtsi(pdf)
    expect([stamp!.validationStatus.mainIndication, stamp!.validationStatus.subIndication], stamp!.validationStatus.problems.join("; ")).toEqual([
      "TOTAL-PASSED",
      null,
    ])
    expect([signature!.validationStatus.mainIndication, signature!.validationStatus.subIndication], signature!.validationStatus.problems.join("; ")).toEqual([
      "TOTAL-PASSED",
      null,
    ])
    expect(signature!.bestSignatureTime.proof).toBe("document-timestamp")
    expect(signature!.certificateChain[0]!.revocation.status).toBe("revoked")
    const [shortSignature, shortStamp] = await validateShort(pdf)
    expect(shortSignature).toMatchObject({ valid: true, revocation: { status: "revoked", signedBeforeRevocation: true } })
    expect(shortStamp).toMatchObject({ valid: true, coversDocumentHash: true })

    // a byte of the signed revision changed: the signature and the document timestamp both fail on their digests
    const [badSignature, badStamp] = await validateEtsi(tampered(pdf))
    expect(badSignature!.validationStatus.subIndication).toBe("HASH_FAILURE")
    expect([badStamp!.validationStatus.mainIndication, badStamp!.validationStatus.subIndication]).toEqual(["TOTAL-FAILED", "HASH_FAILURE"])
  }, 30_000)

  it("revoked after the timestamp: valid (noted); revoked before it: TOTAL-FAILED / REVOKED; revoked with no timestamp: INDETERMINATE / REVOKED_NO_POE", async () => {
    const later = makeSigner(ca, "Revoked Later", "p256")
    const before = makeSigner(ca, "Revoked Before", "rsa")
    const untimed = makeSigner(ca, "Revoked Untimed", "p384")

    // "Revoked Before" is revoked, then (a second later) its signature is timestamped.
    revoked.push({ serial: before.serial, subject: before.name, at: new Date(Math.floor(Date.now() / 1000) * 1000) })
    await sleep(1_100)
    const beforeDoc = placeholderPdf()
    const beforeCms = await timestamped(opensslCms(before, signedBytes(beforeDoc), "sha384"))
    const laterDoc = placeholderPdf()
    const laterCms = await timestamped(opensslCms(later, signedBytes(laterDoc), "sha256"))
    const untimedDoc = placeholderPdf()
    const untimedCms = opensslCms(untimed, signedBytes(untimedDoc), "sha512")
    // "Revoked Later" and "Revoked Untimed" are revoked after the timestamps.
    await sleep(1_100)
    const now = new Date(Math.floor(Date.now() / 1000) * 1000)
    revoked.push({ serial: later.serial, subject: later.name, at: now }, { serial: untimed.serial, subject: untimed.name, at: now })
    const crl = crlOf(ca)

    const check = async (doc: Placeholder, cms: Uint8Array) => {
      const pdf = withDss(embed(doc, cms), doc.xrefAt, [crl], [])
      const [short] = await validateShort(pdf)
      const [etsi] = await validateEtsi(pdf)
      return { short: short!, etsi: etsi! }
    }
    const l = await check(laterDoc, laterCms)
    expect(l.short).toMatchObject({ valid: true, revocation: { status: "revoked", signedBeforeRevocation: true } })
    expect([l.etsi.validationStatus.mainIndication, l.etsi.validationStatus.subIndication]).toEqual(["TOTAL-PASSED", null])
    expect(l.etsi.bestSignatureTime.proof).toBe("signature-timestamp")
    expect(l.etsi.validationStatus.problems.join(" ")).toMatch(/revoked after the timestamp/)

    const b = await check(beforeDoc, beforeCms)
    expect(b.short).toMatchObject({ valid: false, revocation: { status: "revoked", signedBeforeRevocation: false } })
    expect([b.etsi.validationStatus.mainIndication, b.etsi.validationStatus.subIndication]).toEqual(["TOTAL-FAILED", "REVOKED"])

    const u = await check(untimedDoc, untimedCms)
    expect(u.short).toMatchObject({ valid: false, revocation: { status: "revoked", signedBeforeRevocation: false } })
    expect([u.etsi.validationStatus.mainIndication, u.etsi.validationStatus.subIndication]).toEqual(["INDETERMINATE", "REVOKED_NO_POE"])
    expect(u.etsi.bestSignatureTime.proof).toBe("validation-time")
  }, 30_000)
})

describe("DocMDP: changes after a certification", () => {
  it.each([1, 2] as const)("a certification at P=%i, then an approval signature and a /DSS update: P=1 forbids it, P=2 allows it", async (p) => {
    const certifier = makeSigner(ca, `Certifier P${p}`, "p256")
    const approver = makeSigner(ca, `Approver P${p}`, "rsa")
    const first = placeholderPdf(p)
    const certified = embed(first, opensslCms(certifier, signedBytes(first), "sha256"))
    const second = secondPlaceholder(certified, first.xrefAt, first.catalogExtra)
    const approved = embed(second, opensslCms(approver, signedBytes(second), "sha256"))
    const pdf = withDss(
      approved,
      second.xrefAt,
      [crlOf(ca)],
      [],
      [],
      `<</Type/Catalog/Pages 2 0 R/AcroForm<</Fields[4 0 R 10 0 R]/SigFlags 3>>${first.catalogExtra}/DSS 7 0 R>>`,
      12,
    )
    expect((await pdfsig(tempFile("certified.pdf", pdf))).signatures.map((x) => x.valid)).toEqual([true, true])
    const reports = await validateEtsi(pdf)
    const short = await validateShort(pdf)
    const [cert, approval] = reports as unknown as ReadonlyArray<EtsiSignature & { modificationStatus: Record<string, unknown> | null }>
    expect(approval!.validationStatus.mainIndication, approval!.validationStatus.problems.join("; ")).toBe("TOTAL-PASSED")
    expect(approval!.modificationStatus).toBeNull()
    expect(cert!.modificationStatus).toMatchObject({ rule: "DocMDP", permissions: p })
    expect((cert!.modificationStatus!["unexaminedRevisions"] as Array<number>).length).toBe(1) // the /DSS update
    if (p === 1) {
      expect([cert!.validationStatus.mainIndication, cert!.validationStatus.subIndication]).toEqual(["INDETERMINATE", "SIG_CONSTRAINTS_FAILURE"])
      expect(cert!.modificationStatus).toMatchObject({ allowedChanges: [], forbiddenChanges: ["signature in Signature2: DocMDP P=1 allows no changes"] })
      expect(short[0]).toMatchObject({ valid: false, integrity: true })
      expect(short[0]!.problems.join(" ")).toMatch(/DocMDP rules of this signature forbid/)
    } else {
      expect(cert!.validationStatus.mainIndication).toBe("TOTAL-PASSED")
      expect(cert!.modificationStatus).toMatchObject({ allowedChanges: ["signature in Signature2"], forbiddenChanges: [] })
      expect(short.map((x) => x.valid)).toEqual([true, true])
    }
  })
})

describe("the report formats of /v2/validate", () => {
  it("?format=html renders the same indications as a self-contained page, every value escaped; an unknown format is a 400", async () => {
    const signer = makeSigner(ca, "Mallory <img onerror=alert(1)> & Co", "p256")
    const placeholder = placeholderPdf()
    const signed = withDss(embed(placeholder, opensslCms(signer, signedBytes(placeholder), "sha256")), placeholder.xrefAt, [crlOf(ca)], [])
    const response = await fetch(`${env.origin}/api/v2/validate?format=html`, {
      method: "POST",
      headers: { "content-type": "application/json", ...client() },
      body: JSON.stringify({ pdf: b64(signed) }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/html/)
    expect(response.headers.get("content-security-policy")).toMatch(/default-src 'none'/)
    const html = await response.text()
    expect(html).toContain("TOTAL-PASSED")
    expect(html).toContain("Signature1")
    // (the subject as RFC 4514 writes it: a backslash before < and >)
    expect(html).toMatch(/Mallory \\?&lt;img onerror=alert\(1\)\\?&gt; &amp; Co/)
    expect(html).not.toContain("<img")
    expect(html).not.toMatch(/<script|src=|href=/i)

    const wrong = await env.client.raw<ErrorBody>("POST", "/v2/validate?format=xml", { body: { pdf: b64(signed) }, headers: client() })
    expect(wrong.status).toBe(400)
  })
})
