import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Either } from "effect"
import jpeg from "jpeg-js"
import { describe, expect, it } from "vitest"
import { fromBase64, judgeDocument, parseMrz, readSandboxMarker } from "@signet/core"
import { ALICE, composeTd1, forgedId, idCard, passport, passportBadMrz, plainJpeg, selfie } from "./index.ts"
import { GLYPHS, glyphMask } from "./font.ts"
import { mrzBand, renderDocument } from "./render.ts"

const bytes = (b64: string): Uint8Array => fromBase64(b64)!

const decodeGrey = (b64: string) => {
  const img = jpeg.decode(bytes(b64), { useTArray: true, formatAsRGBA: true })
  const lum = (x: number, y: number) => img.data[(y * img.width + x) * 4]!
  const mean = (x0: number, y0: number, x1: number, y1: number) => {
    let sum = 0
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) sum += lum(x, y)
    return sum / ((x1 - x0) * (y1 - y0))
  }
  const min = (x0: number, y0: number, x1: number, y1: number) => {
    let low = 255
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) low = Math.min(low, lum(x, y))
    return low
  }
  return { width: img.width, height: img.height, mean, min }
}

describe("KYC fixture documents", () => {
  it("a passport page decodes at 1600×1120 and keeps its sandbox marker", () => {
    const b64 = passport()
    const img = decodeGrey(b64)
    expect([img.width, img.height]).toEqual([1600, 1120])
    const marker = readSandboxMarker(bytes(b64))
    expect(marker).toMatchObject({ kind: "document", face: "alice", visual: { surname: ALICE.surname } })
    expect(marker?.mrz).toHaveLength(2)
    expect(Either.isRight(parseMrz(marker?.mrz ?? [])) && parseMrz(marker?.mrz ?? []).pipe(Either.getOrThrow).valid).toBe(true)
  })

  it("an ID card decodes at 1600×1010 with a valid TD1 MRZ the judge accepts", () => {
    const b64 = idCard()
    const img = decodeGrey(b64)
    expect([img.width, img.height]).toEqual([1600, 1010])
    const marker = readSandboxMarker(bytes(b64))!
    const mrz = Either.getOrThrow(parseMrz(marker.mrz ?? []))
    expect(mrz).toMatchObject({ format: "TD1", documentNumber: ALICE.documentNumber, surname: "OTIENO", valid: true })
    const outcome = judgeDocument({ mrz: marker.mrz ?? null, visual: marker.visual ?? null, authentic: true, accepted: true }, "2026-01-01")
    expect(outcome).toMatchObject({ accepted: true, document: { docType: "national_id", docNumber: ALICE.documentNumber } })
  })

  it("composeTd1 lines are 3×30 and every check digit holds", () => {
    const lines = composeTd1({ issuingState: "KEN", ...ALICE })
    expect(lines.map((l) => l.length)).toEqual([30, 30, 30])
    expect(Either.getOrThrow(parseMrz(lines)).valid).toBe(true)
  })

  it("the MRZ band is dark on light (darker than the background)", () => {
    for (const [layout, b64, lines] of [
      ["passport", passport(), 2],
      ["id-card", idCard(), 3],
    ] as const) {
      const img = decodeGrey(b64)
      const band = mrzBand(layout, lines)
      const mrzMean = img.mean(100, band.top, img.width - 100, band.bottom)
      const background = img.mean(0, band.top - 30, img.width, band.top - 10) // the clear strip above the MRZ
      expect(background).toBeGreaterThan(220)
      expect(mrzMean).toBeLessThan(background - 25)
      expect(img.min(100, band.top, img.width - 100, band.bottom)).toBeLessThan(60) // real ink, not a faint pattern
    }
  })

  it("the other fixtures keep their markers", () => {
    expect(readSandboxMarker(bytes(forgedId()))).toMatchObject({ kind: "document", authentic: false })
    expect(readSandboxMarker(bytes(passportBadMrz()))?.mrz).toHaveLength(2)
    expect(readSandboxMarker(bytes(selfie("bob", 0.8)))).toEqual({ kind: "selfie", face: "bob", liveness: 0.8 })
    expect(readSandboxMarker(bytes(plainJpeg()))).toBeNull()
  })

  // How long a new page takes, and what the cache saves, are figures of `pnpm bench:kyc`, not assertions a loaded machine could flake.
  it("the same document twice is the same bytes; another expiry date is another document", () => {
    const first = passport("carol", { expiryDate: "330303" })
    expect(passport("carol", { expiryDate: "330303" })).toBe(first)
    expect(passport("carol", { expiryDate: "330304" })).not.toBe(first)
  })

  it("draws every glyph, each distinct", () => {
    const shapes = [...GLYPHS].map((c) => Array.from(glyphMask(c, 4)!.alpha).join(","))
    expect(new Set(shapes).size).toBe(GLYPHS.length)
    expect(glyphMask(" ", 4)).toBeNull()
    expect(renderDocument("passport", { mrz: ["P<", "X"] }).width).toBe(1600) // unparseable MRZ still renders
  })

  it("writes a passport and an ID card to artifacts/kyc-fixtures/ for a look", () => {
    const dir = join(import.meta.dirname, "../../../../artifacts/kyc-fixtures")
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "passport.jpg"), bytes(passport()))
    writeFileSync(join(dir, "id-card.jpg"), bytes(idCard()))
  })
})
