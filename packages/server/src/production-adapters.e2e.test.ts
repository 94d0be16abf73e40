/**
 * Production refuses sandbox parts (issue 13, critical 4): a production server told to use the
 * sandbox KYC adapters does not start and says why; without KYC adapters it starts with KYC
 * disabled; every sandbox adapter refuses to be built by a production engine, wherever it is built.
 */
import * as Core from "@signet/core"
import { adaptersOf, EngineConfig, KycProvidersSandbox, SandboxAdapterRefused, type EngineSettings } from "@signet/core"
import { Cause, Effect, Exit, Layer, LogLevel } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it, onTestFinished } from "vitest"
import * as HttpAdapter from "@signet/adapters-http"
import { ExchangeRatesSandbox, makeEngine, PaymentsSandbox } from "@signet/adapters-http"
import { storageFor } from "./storage.ts"
import { startMailCatcher } from "../../adapters-http/src/test-support/mail-catcher.ts"
import { spawnServer, type ServerProcess } from "./test-support/server-process.ts"

const started: Array<ServerProcess> = []
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()))
})

const settings = (environment: EngineSettings["environment"]): EngineSettings => ({
  environment,
  publicOrigin: "https://signet.example",
  basePath: "/api",
  accessTokenTtlSeconds: 3600,
  ceremonyTtlSeconds: 300,
  sessionTtlSeconds: 3600,
})

describe("the production server refuses the sandbox KYC adapters", () => {
  it("exits non-zero naming each sandbox adapter and the setting to change", async () => {
    const server = await spawnServer(
      {
        SIGNET_ENVIRONMENT: "production",
        SIGNET_KYC_DOCUMENT_READER: "sandbox",
        SIGNET_KYC_FACE_MATCHER: "sandbox",
        SIGNET_KYC_LIVENESS: "sandbox",
      },
      { waitForHealth: false },
    )
    started.push(server)
    const code = await server.exited
    expect(code).not.toBe(0)
    const message = server.stderr.join("\n")
    expect(message).toContain("a production engine does not run sandbox adapters")
    expect(message).toContain("KYC document reader is the sandbox adapter (set SIGNET_KYC_DOCUMENT_READER=local")
    expect(message).toContain("KYC face matcher is the sandbox adapter (set SIGNET_KYC_FACE_MATCHER=local")
    expect(message).toContain("KYC liveness is the sandbox adapter (set SIGNET_KYC_LIVENESS=local")
    expect(message).toContain("mailer is the sandbox adapter (set SIGNET_SMTP_URL)")
    // it never listened
    expect(
      await fetch(`${server.origin}/api/health`).then(
        () => "answered",
        () => "down",
      ),
    ).toBe("down")
  }, 60_000)

  it("one port left on sandbox beside local ones is refused too, by name", async () => {
    const server = await spawnServer({ SIGNET_ENVIRONMENT: "production", SIGNET_KYC_DOCUMENT_READER: "sandbox" }, { waitForHealth: false })
    started.push(server)
    expect(await server.exited).not.toBe(0)
    const message = server.stderr.join("\n")
    expect(message).toContain("KYC document reader is the sandbox adapter")
    // the ports left unset are sandbox by default, and named as well
    expect(message).toContain("KYC face matcher is the sandbox adapter")
  }, 60_000)

  it("without KYC settings it starts with KYC disabled: the banner lists every adapter, every KYC call answers 503", async () => {
    // A production engine proves e-mails over SMTP: a real SMTP server on loopback (this test sends no mail).
    const catcher = await startMailCatcher()
    const server = await spawnServer({ SIGNET_ENVIRONMENT: "production", SIGNET_SMTP_URL: `smtp://127.0.0.1:${new URL(catcher.url).port}` })
    started.push(server)
    onTestFinished(() => catcher.close())
    const banner = server.stdout.join("\n")
    expect(banner).toContain("Signet production listening")
    expect(banner).toMatch(/KYC document reader, face matcher, liveness: none \(KYC disabled/)
    expect(banner).toMatch(/payments: none \(checkouts declined\)/)
    expect(banner).toMatch(/exchange rates: none/)
    expect(banner).toMatch(/timestamp authority: built-in/)
    expect(banner).toMatch(/mailer: SMTP 127\.0\.0\.1:\d+/)
    expect(banner).not.toContain("SANDBOX")
    const basic = `Basic ${Buffer.from("rp_prd_x:secret").toString("base64")}`
    for (const path of ["/kyc/verifications", "/kyc/customers/document", "/kyc/faceapi", "/kyc/handoff"]) {
      const r = await fetch(`${server.origin}/api${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: basic },
        body: JSON.stringify({ customer_id: "+254700000001", phone_number: "+254700000001" }),
      })
      expect(r.status, path).toBe(503)
      expect(await r.json()).toEqual({ error: "Identity verification is not configured on this server" })
    }
  }, 60_000)

  it("the sandbox server's banner marks its sandbox adapters", async () => {
    const server = await spawnServer({ SIGNET_ENVIRONMENT: "sandbox" })
    started.push(server)
    const banner = server.stdout.join("\n")
    expect(banner).toMatch(/KYC document reader: sandbox \(SANDBOX: answers from test fixtures\)/)
    expect(banner).toMatch(/payments: sandbox \(SANDBOX/)
    expect(banner).toMatch(/exchange rates: sandbox \(SANDBOX/)
  }, 60_000)
})

describe("sandbox adapters refuse production wherever they are built", () => {
  it("makeEngine names every sandbox adapter it was given (KYC, payments, exchange rates) and starts nothing", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "signet-")), "signet.db")
    const attempt = makeEngine({
      settings: settings("production"),
      storage: storageFor(file).storage,
      masterKey: new Uint8Array(32).fill(7),
      logLevel: LogLevel.None,
      kycProviders: KycProvidersSandbox,
      payments: new PaymentsSandbox(),
      exchangeRates: ExchangeRatesSandbox,
    })
    await expect(attempt).rejects.toBeInstanceOf(SandboxAdapterRefused)
    const error = await attempt.catch((e: unknown) => e as SandboxAdapterRefused)
    expect(error.adapters.map((a) => a.port)).toEqual(["KYC document reader", "KYC liveness", "KYC face matcher", "payments", "exchange rates", "mailer"])
  })

  // Every exported layer that declares a sandbox adapter, so a new one (a sandbox Mailer) is checked without editing this test.
  const exported = [...Object.entries(Core), ...Object.entries(HttpAdapter), ["PaymentsSandbox.layer", new PaymentsSandbox().layer] as const].filter(
    ([, value]) => Layer.isLayer(value) && adaptersOf(value).some((a) => a.sandbox),
  ) as Array<[string, Layer.Layer<unknown, unknown, EngineConfig>]>

  it("finds the sandbox adapters to check", () => {
    expect(exported.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        "DocumentReaderSandbox",
        "LivenessProviderSandbox",
        "FaceMatcherSandbox",
        "KycProvidersSandbox",
        "ExchangeRatesSandbox",
        "PaymentsSandbox.layer",
      ]),
    )
  })

  it.each(exported)("%s dies when built by a production engine and builds in a sandbox engine", async (_name, layer) => {
    const build = (environment: EngineSettings["environment"]) =>
      Effect.runPromiseExit(Effect.scoped(Layer.build(layer)).pipe(Effect.provide(Layer.succeed(EngineConfig, settings(environment)))))
    const production = await build("production")
    expect(Exit.isFailure(production)).toBe(true)
    const defect = Exit.isFailure(production) ? Cause.squash(production.cause) : undefined
    expect(defect).toBeInstanceOf(SandboxAdapterRefused)
    expect((defect as SandboxAdapterRefused).message).toMatch(/is the sandbox adapter \(set /)
    expect(Exit.isSuccess(await build("sandbox"))).toBe(true)
  })
})
