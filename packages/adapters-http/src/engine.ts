/** Wires the core, the chosen storage and the crypto adapters into a runnable engine with its HTTP handler. */
import { Es256VerifierNode, KeyStoreSoftware, MasterKey, RandomWebCrypto, Sha256StreamsNode, Sha2StreamsNode, VaultMasterKey } from "@signet/adapters-crypto"
import type { StorageServices } from "@signet/adapters-sql"
import {
  DEFAULT_DELIVERY_POLICY,
  DEFAULT_KYC_SETTINGS,
  DeliveryPolicy,
  deliveryWorkerUntil,
  housekeeping,
  KycSettings,
  EngineConfig,
  type EventBus,
  EventBusInProcess,
  type KeyStore,
  type Random,
  Users,
  type TimestampAuthority,
  TimestampAuthorityBuiltIn,
  type WebhookTransport,
  type DeliverySettings,
  type EngineSettings,
  type Vault,
  type ExchangeRates,
  issuerOf,
  type Payments,
  type ExternalProviderClient,
  type DocumentReader,
  type FaceMatcher,
  type LivenessProvider,
  adaptersOf,
  KycProvidersSandbox,
  refusedAdapters,
  SandboxAdapterRefused,
  type AdapterInfo,
  type Mailer,
  TrustAnchors,
} from "@signet/core"
import { SandboxMailbox } from "./mailer-sandbox.ts"
import { ExchangeRatesSandbox, ExchangeRatesUnconfigured, PaymentsSandbox, paymentsUnconfigured, type PaymentProviders } from "./payments-sandbox.ts"
import { WebhookTransportNode } from "./webhook-transport.ts"
import { ExternalProviderClientNode } from "./external-provider-client.ts"
import { type Clock, Deferred, Duration, Effect, Layer, Logger, LogLevel, ManagedRuntime, type Scope } from "effect"
import { health, liveness, openApi, readiness } from "./system/endpoints.ts"
import { Lifecycle, LifecycleLive } from "./lifecycle.ts"
import type { HttpModule } from "./module.ts"
import { httpModules } from "./modules.ts"
import type { OtherWorkersMetrics } from "./observability/endpoints.ts"
import type { Endpoint } from "./http/endpoint.ts"
import { makeHandler } from "./http/handler.ts"
import { PdfProcessorWorkers, type PdfWorkerSettings } from "./pdf-workers/pool.ts"
import { clientAddress, parseTrustedProxies, remember } from "./http/client-address.ts"

/** The client address of a request: the peer, or behind trusted proxies the rightmost untrusted X-Forwarded-For hop. */
const clientAddressOf = (peer: (request: Request) => string, proxies: ReadonlyArray<string> | undefined) => {
  const trusted = proxies === undefined || proxies.length === 0 ? undefined : parseTrustedProxies(proxies)
  // The same peers (and proxies' headers) come back request after request: each is parsed once.
  const known = new Map<string, string>()
  return (request: Request) => {
    const from = peer(request)
    const forwardedFor = trusted === undefined ? null : request.headers.get("x-forwarded-for")
    // a header value holds no line feed
    const key = forwardedFor === null ? from : `${from}\n${forwardedFor}`
    const found = known.get(key)
    if (found !== undefined) return found
    const address = clientAddress(from, forwardedFor, trusted)
    remember(known, key, address)
    return address
  }
}

/** Every storage service the engine needs; `StorageSqlite` and `StoragePostgres` provide them all. */
export type { StorageServices }

/** Every service an engine runtime provides. */
export type EngineServices =
  | StorageServices
  | EngineConfig
  | KeyStore
  | Random
  | EventBus
  | DeliveryPolicy
  | WebhookTransport
  | Vault
  | KycSettings
  | Payments
  | ExchangeRates
  | ExternalProviderClient
  | TimestampAuthority
  | Mailer
  | Lifecycle

/** How to build an engine. */
export interface EngineOptions {
  readonly settings: EngineSettings
  readonly storage: Layer.Layer<StorageServices, unknown>
  readonly masterKey: Uint8Array
  /** defaults to the in-process bus (one node) */
  readonly eventBus?: Layer.Layer<EventBus, unknown>
  /** processing deadline per request, default 30 s */
  readonly deadlineMs?: number
  /** log level of the JSON logs, default Info; `None` silences them */
  readonly logLevel?: LogLevel.LogLevel
  /**
   * strict response contracts: an answer with a property its Schema does not declare, or JSON built
   * outside the contract, is a 500 naming the mismatch (every test engine; docs/http.md#contracts).
   * Off (production), undeclared properties are dropped; a wrong or missing field is a 500 either way.
   */
  readonly validateResponses?: boolean
  /** webhook and callback delivery: retry policy, the loopback development switch, and whether this node runs a worker (default yes) */
  readonly deliveries?: Partial<DeliverySettings> & { readonly worker?: boolean }
  /** identity-verification thresholds, lifetimes and image retention (the spec's defaults unless given) */
  readonly kycSettings?: typeof DEFAULT_KYC_SETTINGS
  /**
   * the KYC document reader, liveness provider and face matcher (`@signet/kyc-local` has local ones);
   * unless given: the sandbox adapters, or in production none (null: KYC answers 503)
   */
  readonly kycProviders?: Layer.Layer<DocumentReader | LivenessProvider | FaceMatcher, never, EngineConfig> | null
  /** the hourly clean-up of expired quota windows and KYC images past retention (default on) */
  readonly housekeeping?: boolean
  /** the engine's clock; the system clock unless a host or test gives one */
  readonly clock?: Clock.Clock
  /** peer address of a request, when the host knows it (rate limits by IP) */
  readonly clientIp?: (request: Request) => string
  /** proxies whose X-Forwarded-For is believed (addresses and CIDRs); none: the header is ignored */
  readonly trustedProxies?: ReadonlyArray<string>
  /** the administrator token of the admin API and console (`/admin`); without one they refuse every call */
  readonly adminToken?: string
  /** the timestamp authority of -T signatures and `/v2/tsa` (default: the built-in TSA, docs/timestamps.md) */
  readonly timestampAuthority?: Layer.Layer<TimestampAuthority, unknown, Exclude<EngineServices, TimestampAuthority>>
  /** DER certificates trusted as chain ends by `/v2/validate` besides the engine's root (docs/validation.md); none by default */
  readonly trustAnchors?: ReadonlyArray<Uint8Array>
  /** more endpoints (tests, embedding hosts) */
  readonly extraEndpoints?: ReadonlyArray<Endpoint<any, EngineServices>>
  /** the payment providers; unless given the card and mobile-money sandbox (docs/plans.md), in production none (checkouts declined) */
  readonly payments?: PaymentProviders
  /** the exchange-rate source; unless given the sandbox's fixed table, in production none (KES checkouts refused) */
  readonly exchangeRates?: Layer.Layer<ExchangeRates, never, EngineConfig>
  /** the PDF worker threads that prepare and read uploaded PDFs (docs/security/pdf.md); defaults otherwise */
  readonly pdfWorkers?: Partial<PdfWorkerSettings>
  /** how e-mail codes are sent (`MailerSmtp`); a sandbox engine defaults to an in-memory `SandboxMailbox`, a production engine has no default */
  readonly mailer?: Layer.Layer<Mailer, never, EngineConfig>
  /**
   * where spans and metrics go besides `/metrics`: a layer that sets the tracer and metric exporters
   * (the server's OTLP layer from `@effect/opentelemetry` when `SIGNET_OTEL_ENDPOINT` is set); none by default
   */
  readonly telemetry?: Layer.Layer<never>
  /**
   * under a cluster primary (`SIGNET_WORKERS` above 1): the other workers' metrics, which `/metrics`
   * merges into this worker's (docs/operations.md#workers); none for one process
   */
  readonly metricsOfOtherWorkers?: () => Promise<OtherWorkersMetrics>
}

/** The adapters an engine runs with and what each declares; a production engine refuses sandbox ones. */
export const adaptersInUse = (options: EngineOptions & { readonly payments: PaymentProviders }): ReadonlyArray<AdapterInfo> => {
  const declared = (port: string, layer: unknown, otherwise: string): ReadonlyArray<AdapterInfo> => {
    const found = adaptersOf(layer)
    return found.length > 0 ? found : [{ port, adapter: otherwise, sandbox: false, setting: "" }]
  }
  // One line per port: a new port's adapter (a Mailer) is listed and checked by adding it here.
  return [
    ...(options.kycProviders === null
      ? [
          {
            port: "KYC document reader, face matcher, liveness",
            adapter: "none (KYC disabled: /kyc/* answers 503)",
            sandbox: false,
            setting: "SIGNET_KYC_*=local",
          },
        ]
      : declared("KYC document reader, face matcher, liveness", options.kycProviders ?? KycProvidersSandbox, "custom")),
    ...declared("payments", options.payments.layer, "custom"),
    ...declared("exchange rates", options.exchangeRates ?? ExchangeRatesSandbox, "custom"),
    ...(options.mailer === undefined
      ? [{ port: "mailer", adapter: "sandbox mailbox (nothing delivered)", sandbox: true, setting: "SIGNET_SMTP_URL" }]
      : declared("mailer", options.mailer, "custom")),
    ...declared("timestamp authority", options.timestampAuthority, options.timestampAuthority === undefined ? "built-in" : "custom"),
  ]
}

/** A running engine: its handler, a way to run core programs against it, and its shutdown. */
export interface Engine {
  readonly settings: EngineSettings
  readonly handler: (request: Request) => Promise<Response>
  readonly run: <A, E>(effect: Effect.Effect<A, E, EngineServices>) => Promise<A>
  readonly endpoints: ReadonlyArray<Endpoint<any, EngineServices>>
  /** the payment providers this engine's checkouts are paid through */
  readonly payments: PaymentProviders
  /** every adapter it runs with (the start-up banner lists them) */
  readonly adapters: ReadonlyArray<AdapterInfo>
  /**
   * Begins a graceful shutdown: `/health/ready` answers 503, live event streams end with a
   * reconnect hint, the delivery worker finishes the round in hand and stops. Requests are still
   * served (stop accepting connections in the host, let in-flight ones finish, then `dispose`).
   */
  readonly drain: () => Promise<void>
  /** Resolves true once the delivery worker has stopped after `drain`, false after `timeoutMs`. */
  readonly workerStopped: (timeoutMs: number) => Promise<boolean>
  readonly dispose: () => Promise<void>
}

/** The engine's layer: storage first, then the KeyStore over it, then the rest. */
export const engineLayer = (options: EngineOptions): Layer.Layer<EngineServices, unknown> => {
  const storage = options.storage
  const masterKey = Layer.succeed(MasterKey, options.masterKey)
  const keyStore = KeyStoreSoftware.pipe(Layer.provide(Layer.merge(storage, masterKey)))
  // Logger.json prints one JSON line per entry on stdout; Logger.jsonLogger alone only formats (and printed nothing).
  const logger = Layer.merge(Logger.json, Logger.minimumLogLevel(options.logLevel ?? LogLevel.Info))
  const policy = { ...DEFAULT_DELIVERY_POLICY, ...options.deliveries }
  const config = Layer.succeed(EngineConfig, options.settings)
  const services = Layer.mergeAll(
    storage,
    keyStore,
    VaultMasterKey.pipe(Layer.provide(masterKey)),
    RandomWebCrypto,
    Sha256StreamsNode,
    Es256VerifierNode,
    Sha2StreamsNode,
    Layer.succeed(TrustAnchors, { certificates: options.trustAnchors ?? [] }),
    PdfProcessorWorkers(options.pdfWorkers),
    options.eventBus ?? EventBusInProcess,
    config,
    Layer.succeed(DeliveryPolicy, policy),
    Layer.succeed(KycSettings, options.kycSettings ?? DEFAULT_KYC_SETTINGS),
    WebhookTransportNode({ allowLoopbackHttp: policy.allowLoopbackHttp }),
    // Sandbox adapters read EngineConfig when built and die in production.
    Layer.provide(Layer.merge((options.payments ?? new PaymentsSandbox()).layer, options.exchangeRates ?? ExchangeRatesSandbox), config),
    ExternalProviderClientNode({ allowLoopbackHttp: policy.allowLoopbackHttp }),
    // A production engine without SMTP stops here with the sandbox mailer's reason: it could prove no e-mail.
    Layer.provide(options.mailer ?? new SandboxMailbox(options.settings.environment).layer, config),
    logger,
    // Without an exporter nobody reads spans, so none are made (`traced`).
    options.telemetry ?? Layer.setTracerEnabled(false),
    options.clock === undefined ? Layer.empty : Layer.setClock(options.clock),
    LifecycleLive,
  )
  // The delivery worker lives as long as the engine; every node runs one (claims are leased).
  const withTsa = Layer.provideMerge(options.timestampAuthority ?? TimestampAuthorityBuiltIn, services)
  // The worker stops after its round in hand once draining begins; without one there is nothing to wait for.
  const worker = Layer.scopedDiscard(
    Effect.flatMap(
      Lifecycle,
      (l): Effect.Effect<unknown, never, EngineServices | Scope.Scope> =>
        options.deliveries?.worker === false
          ? Deferred.succeed(l.workerStopped, undefined)
          : Effect.forkScoped(deliveryWorkerUntil(Deferred.isDone(l.stopping)).pipe(Effect.ensuring(Deferred.succeed(l.workerStopped, undefined)))),
    ),
  )
  const cleaner = options.housekeeping === false ? Layer.empty : Layer.scopedDiscard(Effect.forkScoped(housekeeping))
  return Layer.provideMerge(Layer.merge(worker, cleaner), withTsa)
}

/** Builds and starts an engine; storage migrations run here, so a bad database fails now, not on the first request. */
export const makeEngine = async (given: EngineOptions): Promise<Engine> => {
  // Fixtures must never decide in production: without real adapters a production engine runs
  // without KYC, declines every payment and refuses conversions; given sandbox ones, it refuses to start.
  const production = given.settings.environment === "production"
  const options = {
    ...given,
    payments: given.payments ?? (production ? paymentsUnconfigured : new PaymentsSandbox()),
    kycProviders: given.kycProviders !== undefined ? given.kycProviders : production ? null : KycProvidersSandbox,
    exchangeRates: given.exchangeRates ?? (production ? ExchangeRatesUnconfigured : ExchangeRatesSandbox),
  }
  const payments = options.payments
  const adapters = adaptersInUse(options)
  const refused = refusedAdapters(options.settings.environment, adapters)
  if (refused.length > 0) throw new SandboxAdapterRefused(refused)
  const runtime = ManagedRuntime.make(engineLayer(options) as Layer.Layer<EngineServices, never>)
  await runtime.runtime()
  const probe = Effect.flatMap(Users, (u) => u.findById("health-probe")).pipe(Effect.asVoid)
  const lifecycle = await runtime.runPromise(Lifecycle)
  const endpoints: Array<Endpoint<any, EngineServices>> = []
  // Each module reads the options it declares; the engine names none of them.
  const modules: ReadonlyArray<HttpModule<typeof options, EngineServices>> = httpModules
  endpoints.push(
    health(probe),
    liveness,
    readiness(probe, options.deliveries?.worker !== false),
    openApi(() => endpoints),
    ...modules.flatMap((module) => module.endpoints(options)),
    ...modules.flatMap((module) => module.pages ?? []),
    ...(options.extraEndpoints ?? []),
  )
  const handler = makeHandler<EngineServices>({
    endpoints,
    runtime,
    basePath: options.settings.basePath,
    deadlineMs: options.deadlineMs ?? 30_000,
    newRequestId: () => globalThis.crypto.randomUUID(),
    validateResponses: options.validateResponses === true,
    ...(options.clientIp ? { clientIp: clientAddressOf(options.clientIp, options.trustedProxies) } : {}),
  })
  // The sandbox providers call back into this engine, as a real provider would over the network.
  payments.connect?.(handler, issuerOf(options.settings))
  return {
    settings: options.settings,
    handler,
    run: (effect) => runtime.runPromise(effect),
    endpoints,
    payments,
    adapters,
    drain: () => runtime.runPromise(Deferred.succeed(lifecycle.stopping, undefined).pipe(Effect.asVoid)),
    workerStopped: (timeoutMs) =>
      runtime.runPromise(
        Deferred.await(lifecycle.workerStopped).pipe(
          Effect.as(true),
          Effect.timeoutTo({ duration: Duration.millis(timeoutMs), onSuccess: (b) => b, onTimeout: () => false }),
        ),
      ),
    dispose: () => runtime.dispose(),
  }
}
