import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { signDigest } from "../pki/cms.ts"
import { signingIdentityFor, type SigningIdentity } from "../pki/signer-certificate.ts"
import { pkiTestWorld, testUser, type PkiServices } from "../pki/test-layers.ts"
import { bytesSource, concatSource } from "./byte-source.ts"
import { openPdf } from "./document.ts"
import { signPdf, type SignatureOptions } from "./prepare.ts"
import { pdfsig, qpdfCheck, renderPage, rgbaPng, samplePdf, tempFile } from "../../../testkit/src/pdf/verifiers.ts"

const world = pkiTestWorld()
const run = <A, E>(effect: Effect.Effect<A, E, PkiServices>) => Effect.runPromise(Effect.provide(effect, world.layer))

let alice: SigningIdentity
let bob: SigningIdentity
beforeAll(async () => {
  alice = await run(signingIdentityFor(testUser({ displayName: "Alice Example", email: "alice@example.com" })))
  bob = await run(signingIdentityFor(testUser({ displayName: "Bob Example", email: "bob@example.com" })))
})

/** Signs `pdf` as `identity` (PAdES-B: no signingTime in the CMS) and answers the signed bytes. */
const sign = async (pdf: Uint8Array, identity: SigningIdentity, options: Partial<SignatureOptions> = {}) => {
  const { update } = await run(
    signPdf(bytesSource(pdf), { signerName: identity.certificate.subject, signingTime: new Date("2026-11-26T01:00:00Z"), ...options }, (digest) =>
      signDigest({ identity, digest, digestAlgorithm: "SHA-256", signingTime: null }),
    ),
  )
  const out = new Uint8Array(pdf.length + update.length)
  out.set(pdf)
  out.set(update, pdf.length)
  return out
}

describe.each([
  ["pdf-lib with an xref stream and object streams", true],
  ["pdf-lib with a classic xref table", false],
] as const)("PAdES signing of a %s", (_label, xrefStream) => {
  it("two signers in turn: pdfsig finds both valid, the last covers the whole document, qpdf --check passes", async () => {
    const original = await samplePdf({ xrefStream })
    const once = await sign(original, alice)
    const twice = await sign(once, bob)
    expect(twice.subarray(0, once.length)).toEqual(once)

    const first = await pdfsig(tempFile("once.pdf", once))
    expect(first.signatures).toHaveLength(1)
    expect(first.signatures[0]).toMatchObject({ valid: true, wholeDocument: true, subFilter: "ETSI.CAdES.detached" })

    const path = tempFile("twice.pdf", twice)
    const both = await pdfsig(path)
    expect(
      both.signatures.map((s) => s.valid),
      both.text,
    ).toEqual([true, true])
    expect(both.signatures.map((s) => s.wholeDocument)).toEqual([false, true])
    // The certificate names the proven e-mail, never the display name (issue 13 item 13).
    expect(both.signatures.map((s) => s.signer)).toEqual(["alice@example.com", "bob@example.com"])
    expect((await qpdfCheck(path)).ok).toBe(true)

    // The new section is the same kind as the one before it.
    const doc = await Effect.runPromise(openPdf(bytesSource(twice)))
    expect(doc.xrefStream).toBe(xrefStream)
  })

  it("one changed byte inside a signed range makes pdfsig report the signature invalid", async () => {
    const signed = await sign(await samplePdf({ xrefStream }), alice)
    const text = Buffer.from(signed).toString("latin1")
    const tampered = new Uint8Array(signed)
    const at = text.indexOf("/MediaBox")
    tampered[at + 2] = tampered[at + 2]! ^ 0x20 // /MediaBox -> /MEdiaBox
    const report = await pdfsig(tempFile("tampered.pdf", tampered))
    expect(report.signatures).toHaveLength(1)
    expect(report.signatures[0]!.valid).toBe(false)
  })
})

describe("a visible signature", () => {
  it("draws the signer, the time and the PNG in the rectangle on the chosen page", async () => {
    const png = rgbaPng(60, 30, (x, y) => (Math.abs(y - 15) < 4 ? [200, 0, 0, 255] : [255, 255, 255, x % 2 === 0 ? 0 : 0]))
    const signed = await sign(await samplePdf({ xrefStream: true, pages: 2 }), alice, {
      signerName: "Alice Example",
      visible: { page: 2, rect: [300, 100, 550, 180], image: png },
    })
    const path = tempFile("visible.pdf", signed)
    expect((await pdfsig(path)).signatures[0]!.valid).toBe(true)
    expect((await qpdfCheck(path)).ok).toBe(true)

    const page = await renderPage(path, 2)
    const top = (y: number) => page.height - y
    const inside = [] as Array<readonly [number, number, number]>
    for (let y = top(178); y < top(102); y++) for (let x = 302; x < 548; x++) inside.push(page.at(x, y))
    // Red from the image (left 40% of the box), dark text on the right.
    expect(inside.some(([r, g, b]) => r > 150 && g < 80 && b < 80)).toBe(true)
    const right = [] as Array<readonly [number, number, number]>
    for (let y = top(178); y < top(102); y++) for (let x = 410; x < 548; x++) right.push(page.at(x, y))
    expect(right.filter(([r, g, b]) => r + g + b < 450).length).toBeGreaterThan(20)
    // Outside the box the page stays white.
    expect(page.at(200, top(140))).toEqual([255, 255, 255])
    // Page 1 is untouched.
    const one = await renderPage(path, 1)
    expect(one.at(400, one.height - 140)).toEqual([255, 255, 255])
  })
})

describe("reading", () => {
  it("reads a document through a source in windows: a signed document appends to a source of the original", async () => {
    const original = await samplePdf({ xrefStream: true })
    let largest = 0
    const source = bytesSource(original)
    const counting = {
      size: source.size,
      read: (o: number, l: number) => {
        largest = Math.max(largest, l)
        return source.read(o, l)
      },
    }
    const { update } = await run(
      signPdf(counting, { signerName: "Alice", signingTime: new Date(0) }, (d) =>
        signDigest({ identity: alice, digest: d, digestAlgorithm: "SHA-256", signingTime: null }),
      ),
    )
    const doc = await Effect.runPromise(openPdf(concatSource(bytesSource(original), update)))
    expect(doc.size).toBeGreaterThan(5)
    expect(largest).toBeLessThanOrEqual(4 * 1024 * 1024)
  })
})

describe.each([
  ["linearized by qpdf (a first-page xref at the start, hint stream)", ["--linearize"]],
  ["rewritten by qpdf with object streams", ["--object-streams=generate"]],
  ["rewritten by qpdf without object streams", ["--object-streams=disable"]],
] as const)("a PDF %s", (_label, args) => {
  it("signed twice: both valid per pdfsig, qpdf --check passes", async () => {
    const { execFile } = await import("node:child_process")
    const { readFileSync } = await import("node:fs")
    const input = tempFile("in.pdf", await samplePdf({ xrefStream: true, pages: 3 }))
    const output = `${input}.out.pdf`
    await new Promise<void>((resolve, reject) => execFile("qpdf", [...args, input, output], (e) => (e ? reject(e) : resolve())))
    const twice = await sign(await sign(new Uint8Array(readFileSync(output)), alice), bob)
    const path = tempFile("qpdf-twice.pdf", twice)
    const report = await pdfsig(path)
    expect(
      report.signatures.map((s) => [s.valid, s.wholeDocument]),
      report.text,
    ).toEqual([
      [true, false],
      [true, true],
    ])
    const checked = await qpdfCheck(path)
    expect(checked.ok, checked.text).toBe(true)
  })
})
