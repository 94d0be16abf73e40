/** Test support: an engine behind a real Node HTTP server on a free loopback port. */
import { registerRelyingParty, type Environment } from "@signet/core"
import { SignetClient } from "@signet/testkit"
import { LogLevel } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeEngine, type Engine, type EngineOptions, type StorageServices } from "../engine.ts"
import { jsonAnswersOf, offerJsonAnswers } from "../http/respond.ts"
import { listen, nodeClientIp } from "../node-server.ts"
import { SandboxMailbox } from "../mailer-sandbox.ts"
import { startMailCatcher } from "./mail-catcher.ts"
import { MailerSmtp, storageFor } from "../../../server/src/index.ts"
import type { Clock, Layer } from "effect"

/** A started engine, its URL, a client and the demo-like RP it was given. */
export interface RunningEngine {
  readonly engine: Engine
  readonly origin: string
  readonly client: SignetClient
  readonly rp: { readonly clientId: string; readonly clientSecret: string; readonly sscSecret: string }
  /** the code last e-mailed to an address: the sandbox mailbox, or (production) a real SMTP server the engine sends to */
  readonly codeFor: (email: string) => Promise<string>
  readonly stop: () => Promise<void>
}

/** Starts an engine on a temp SQLite file (or the given storage), listening on 127.0.0.1, mounted at `/api`. */
export const startEngine = async (
  options: {
    readonly environment?: Environment
    readonly storage?: Layer.Layer<StorageServices, unknown>
    readonly deadlineMs?: number
    readonly extraEndpoints?: EngineOptions["extraEndpoints"]
    readonly masterKey?: Uint8Array
    readonly clock?: Clock.Clock
    readonly eventBus?: EngineOptions["eventBus"]
    /** run the hourly clean-up (default on) */
    readonly housekeeping?: boolean
    /** delivery settings; tests default to the loopback switch on and 200 ms retries */
    readonly deliveries?: EngineOptions["deliveries"]
    /** the origin the engine believes it is reached at (nodes behind one load balancer share it); its own by default */
    readonly publicOrigin?: string
    /** the administrator token of the admin API and console */
    readonly adminToken?: string
    /** grace period of rotated RP secrets (default 24 h) */
    readonly secretGraceSeconds?: number
    /** the payment sandbox (its own by default) */
    readonly payments?: EngineOptions["payments"]
    /** KYC providers (the sandbox adapters unless given) */
    readonly kycProviders?: EngineOptions["kycProviders"]
    /** register the test RP (default); false to share one registered elsewhere */
    readonly rp?: { readonly clientId: string; readonly clientSecret: string; readonly sscSecret: string }
    /** the timestamp authority (default the built-in one) */
    readonly timestampAuthority?: EngineOptions["timestampAuthority"]
    /** DER certificates `/v2/validate` trusts besides the engine's root */
    readonly trustAnchors?: ReadonlyArray<Uint8Array>
    /** proxies whose X-Forwarded-For is believed (tests pose as many clients through 127.0.0.1) */
    readonly trustedProxies?: ReadonlyArray<string>
    /** check each JSON answer against its endpoint's response Schema (default true: every e2e suite does; benchmarks measure production, which does not) */
    readonly validateResponses?: boolean
    /** the mailer and how the test reads codes (default: the sandbox mailbox; production: SMTP to a real server on 127.0.0.1) */
    readonly mail?: { readonly mailer: NonNullable<EngineOptions["mailer"]>; readonly codeFor: (email: string) => Promise<string> }
    /** where spans and metrics are exported (an OTLP layer) */
    readonly telemetry?: EngineOptions["telemetry"]
  } = {},
): Promise<RunningEngine> => {
  let target: (r: Request) => Promise<Response> = async () => new Response("starting", { status: 503 })
  const late = (r: Request) => target(r)
  // As the server binary mounts the engine's handler: JSON answers written without a web Response.
  offerJsonAnswers(late, (r) => (jsonAnswersOf(target) ?? target)(r))
  const server = await listen(late, 0, "127.0.0.1")
  const origin = options.publicOrigin ?? `http://localhost:${server.port}`
  const storage = options.storage ?? storageFor(join(mkdtempSync(join(tmpdir(), "signet-")), "signet.db")).storage
  const environment = options.environment ?? "sandbox"
  // A production engine refuses the sandbox mailbox: it gets SMTP, to a real server on 127.0.0.1.
  const catcher = options.mail === undefined && environment === "production" ? await startMailCatcher() : undefined
  const mailbox = options.mail === undefined && catcher === undefined ? new SandboxMailbox(environment) : undefined
  const codeFor = options.mail?.codeFor ?? (catcher !== undefined ? catcher.codeFor : async (email: string) => mailbox!.codeFor(email))
  const engine = await makeEngine({
    mailer:
      options.mail?.mailer ??
      (catcher !== undefined ? MailerSmtp({ url: catcher.url, from: "Signet <no-reply@localhost>", requireTls: false }) : mailbox!.layer),
    settings: {
      environment,
      publicOrigin: origin,
      basePath: "/api",
      accessTokenTtlSeconds: 3600,
      ceremonyTtlSeconds: 300,
      sessionTtlSeconds: 3600,
      ...(options.secretGraceSeconds !== undefined ? { secretGraceSeconds: options.secretGraceSeconds } : {}),
    },
    storage,
    ...(options.adminToken !== undefined ? { adminToken: options.adminToken } : {}),
    masterKey: options.masterKey ?? globalThis.crypto.getRandomValues(new Uint8Array(32)),
    logLevel: LogLevel.None,
    // Every e2e suite checks each JSON answer against its endpoint's response Schema.
    validateResponses: options.validateResponses ?? true,
    clientIp: nodeClientIp,
    ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
    ...(options.extraEndpoints !== undefined ? { extraEndpoints: options.extraEndpoints } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.eventBus !== undefined ? { eventBus: options.eventBus } : {}),
    deliveries: options.deliveries ?? { allowLoopbackHttp: true, baseDelayMs: 200 },
    ...(options.housekeeping !== undefined ? { housekeeping: options.housekeeping } : {}),
    ...(options.payments !== undefined ? { payments: options.payments } : {}),
    ...(options.kycProviders !== undefined ? { kycProviders: options.kycProviders } : {}),
    ...(options.timestampAuthority !== undefined ? { timestampAuthority: options.timestampAuthority } : {}),
    ...(options.trustedProxies !== undefined ? { trustedProxies: options.trustedProxies } : {}),
    ...(options.trustAnchors !== undefined ? { trustAnchors: options.trustAnchors } : {}),
    ...(options.telemetry !== undefined ? { telemetry: options.telemetry } : {}),
  })
  target = engine.handler
  const rp: RunningEngine["rp"] =
    options.rp ??
    (await engine
      .run(
        registerRelyingParty({
          name: "Test RP",
          signingOrigins: [origin],
          plan: "business",
          maxLoa: "LOA-4",
          status: "approved",
        }),
      )
      .then((created) => ({ clientId: created.rp.clientId, clientSecret: created.clientSecret, sscSecret: created.sscSecret })))
  const client = new SignetClient(`http://localhost:${server.port}/api`)
  client.mailbox = codeFor
  return {
    engine,
    origin,
    client,
    rp,
    codeFor,
    stop: async () => {
      await server.close()
      await engine.dispose()
      await catcher?.close()
    },
  }
}
