import { adaptersOf, DocumentReader, EngineConfig, parseMrz, type Environment } from "@signet/core"
import { passport, tamper } from "@signet/testkit/kyc"
import { Cause, Effect, Either, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { calibrated, CALIBRATION } from "./face-matcher.ts"
import { normaliseLine } from "./mrz-reader.ts"
import { kycProviders } from "./providers.ts"

const settings = (environment: Environment) => ({
  environment,
  publicOrigin: "https://signet.example",
  basePath: "/api",
  accessTokenTtlSeconds: 3600,
  ceremonyTtlSeconds: 300,
  sessionTtlSeconds: 3600,
})

describe("local KYC adapters: the parts without models", () => {
  it("normalises look-alikes by field type: digits in numeric fields, letters in name fields", () => {
    const types = "XXXXXXXXXNAAANNNNNNNANNNNNNNXXXXXXXXXXXXXXNN"
    expect(normaliseLine("AK12345678KEN9OO1IS8F34O1O1112345678<<<<<<86", types)).toBe("AK12345678KEN9001158F340101112345678<<<<<<86")
    expect(normaliseLine("P<KEN0T1EN0<<GRACE<AK1NY1", "A".repeat(25))).toBe("P<KENOTIENO<<GRACE<AKINYI")
    // alphanumeric fields are left as read
    expect(normaliseLine("AB0I", "XXXX")).toBe("AB0I")
  })

  it("maps the calibration anchors to the verdict thresholds and keeps the order of similarities", () => {
    expect(calibrated(CALIBRATION.review)).toBeCloseTo(0.65, 10)
    expect(calibrated(CALIBRATION.match)).toBeCloseTo(0.75, 10)
    expect(calibrated(1)).toBe(1)
    expect(calibrated(-0.3)).toBe(0)
    let last = -1
    for (let c = 0; c <= 1; c += 0.01) {
      expect(calibrated(c)).toBeGreaterThanOrEqual(last)
      last = calibrated(c)
    }
  })

  it("tampers exactly one check digit, so the zone no longer validates", () => {
    const [l1, l2] = ["P<KENOTIENO<<GRACE<AKINYI<<<<<<<<<<<<<<<<<<<", "AK12345678KEN9001158F340101112345678<<<<<<86"]
    const tampered = tamper([l1, l2])
    expect(tampered[0]).toBe(l1)
    expect([...tampered[1]!].filter((c, k) => c !== l2[k]).length).toBe(1)
    const parsed = parseMrz(tampered)
    expect(Either.isRight(parsed) && parsed.right.valid).toBe(false)
  })

  it("keeps the sandbox adapter for a port configured as sandbox", async () => {
    const layer = kycProviders({ documentReader: "sandbox", faceMatcher: "local", liveness: "local" })
    const reading = await Effect.runPromise(
      Effect.flatMap(DocumentReader, (r) => r.read([Buffer.from(passport(), "base64")])).pipe(
        Effect.provide(layer),
        Effect.provide(Layer.succeed(EngineConfig, settings("sandbox"))),
      ),
    )
    expect(reading).toMatchObject({ authentic: true, accepted: true })
    expect(reading.mrz?.[1]).toBe("AK12345678KEN9001158F340101112345678<<<<<<86")
  })

  it("a production engine cannot build a port configured as sandbox; local ports are declared as such", async () => {
    const layer = kycProviders({ documentReader: "sandbox", faceMatcher: "local", liveness: "local" })
    expect(adaptersOf(layer).map((a) => [a.port, a.sandbox])).toEqual([
      ["KYC document reader", true],
      ["KYC face matcher", false],
      ["KYC liveness", false],
    ])
    const exit = await Effect.runPromiseExit(
      Effect.flatMap(DocumentReader, (r) => r.read([Buffer.from(passport(), "base64")])).pipe(
        Effect.provide(layer),
        Effect.provide(Layer.succeed(EngineConfig, settings("production"))),
      ),
    )
    expect(String(exit._tag === "Failure" ? Cause.squash(exit.cause) : "ran")).toMatch(
      /KYC document reader is the sandbox adapter \(set SIGNET_KYC_DOCUMENT_READER=local/,
    )
  })
})
