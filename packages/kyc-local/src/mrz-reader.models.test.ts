import { parseMrz } from "@signet/core"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { readDocument } from "./document-reader.ts"
import { documentCases } from "@signet/testkit/kyc"
import { readMrz } from "./mrz-reader.ts"

describe("local MRZ reader on generated document photos (rotated, noisy, JPEG-compressed)", () => {
  it("reads the MRZ exactly in at least 9 of 10 cases", async () => {
    const results = []
    for (const c of documentCases()) {
      const started = performance.now()
      const read = await readMrz(c.jpeg)
      const ms = Math.round(performance.now() - started)
      const exact = read.lines !== null && read.lines.join("\n") === c.mrz.join("\n")
      results.push({
        case: c.name,
        exact,
        ms,
        skew: read.skew,
        confidence: Number(read.confidence.toFixed(2)),
        read: exact ? "" : read.lines?.join(" / "),
        want: exact ? "" : c.mrz.join(" / "),
      })
    }
    console.table(results)
    expect(results.filter((r) => r.exact).length).toBeGreaterThanOrEqual(9)
  })

  it("never reports a tampered check digit as valid", async () => {
    for (const c of documentCases({ tampered: true })) {
      const reading = await readDocument([c.jpeg])
      const parsed = reading.mrz === null ? null : parseMrz(reading.mrz)
      const valid = parsed !== null && Either.isRight(parsed) && parsed.right.valid
      expect(valid, c.name).toBe(false)
      expect(reading.accepted, c.name).toBe(false)
    }
  })

  it("answers an image without an MRZ with an unreadable result, not an error", async () => {
    const reading = await readDocument([new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), new TextEncoder().encode("not a jpeg")])
    expect(reading).toMatchObject({ mrz: [], accepted: false })
  })
})
