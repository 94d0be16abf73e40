/** Server configuration from a JSON file and the environment (the environment wins), checked before start. */
import { certificatesOfPem, Environment, type EngineSettings } from "@signet/core"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { parseTrustedProxies } from "@signet/adapters-http"

/** Everything the server binary needs. */
export interface ServerConfig {
  readonly port: number
  readonly host: string
  /** SQLite file path (or `:memory:`), or a `postgres://` URL */
  readonly database: string
  /** 32 bytes as hex or base64; required outside demo mode */
  readonly masterKey: string | undefined
  readonly demo: boolean
  readonly deadlineMs: number
  /** how long SIGTERM waits for requests in flight and the delivery in hand before cutting (ms) */
  readonly shutdownGraceMs: number
  /** how many worker processes share the port (node:cluster); 1: the server is one process (docs/operations.md#workers) */
  readonly workers: number
  /** PostgreSQL connections each process may open (docs/operations.md#workers); undefined on SQLite */
  readonly databasePool: number | undefined
  /** whether PostgreSQL statements are named, prepared once per connection (docs/operations.md#postgresql); undefined on SQLite */
  readonly databasePreparedStatements: boolean | undefined
  /** strict response contracts (tests; docs/http.md#contracts-both-ways) */
  readonly validateResponses: boolean
  /** webhook and callback delivery settings */
  readonly deliveries: { readonly allowLoopbackHttp: boolean; readonly baseDelayMs?: number }
  /** an external RFC 3161 TSA for -T signatures; undefined: the built-in TSA (docs/timestamps.md) */
  readonly tsaUrl: string | undefined
  readonly settings: EngineSettings
  /** the administrator token of `/admin` and `/admin/api/*` (at least 32 characters); none: the admin API refuses all */
  readonly adminToken: string | undefined
  /**
   * which adapter each KYC port uses: `sandbox` or `local` (`@signet/kyc-local`, offline models).
   * None set: all sandbox in a sandbox engine, null (KYC disabled) in production; a port left
   * unset beside a set one is `sandbox` (which production refuses, naming it).
   */
  readonly kyc: KycAdapterChoice | null
  /** reverse proxies whose X-Forwarded-For is believed (addresses and CIDRs); empty: the header is ignored */
  readonly trustedProxies: ReadonlyArray<string>
  /** DER certificates of the PEM bundle `SIGNET_TRUST_ANCHORS` names, trusted by `/v2/validate` besides the engine's root (docs/validation.md) */
  readonly trustAnchors: ReadonlyArray<Uint8Array>
  /** the SMTP relay e-mail codes go through; undefined: the sandbox mailbox (sandbox engines only) */
  readonly smtp: { readonly url: string; readonly from: string } | undefined
  /** the OTLP/HTTP collector traces and metrics are sent to (`SIGNET_OTEL_ENDPOINT`); undefined: none are sent */
  readonly otelEndpoint: string | undefined
}

/** Which adapter each KYC port uses. */
export interface KycAdapterChoice {
  readonly documentReader: "sandbox" | "local"
  readonly faceMatcher: "sandbox" | "local"
  readonly liveness: "sandbox" | "local"
}

/** The configuration is unusable; the message says which setting and why. */
export class ConfigError extends Error {
  override readonly name = "ConfigError"
}

const KycAdapter = Schema.Literal("sandbox", "local")

const FileConfig = Schema.partial(
  Schema.Struct({
    port: Schema.Int,
    host: Schema.String,
    database: Schema.String,
    masterKey: Schema.String,
    publicOrigin: Schema.String,
    basePath: Schema.String,
    environment: Environment,
    demo: Schema.Boolean,
    deadlineMs: Schema.Int,
    shutdownGraceMs: Schema.Int,
    workers: Schema.Int,
    databasePool: Schema.Int,
    databasePreparedStatements: Schema.Boolean,
    accessTokenTtlSeconds: Schema.Int,
    ceremonyTtlSeconds: Schema.Int,
    sessionTtlSeconds: Schema.Int,
    webhooksAllowLoopback: Schema.Boolean,
    webhookRetryBaseMs: Schema.Int,
    validateResponses: Schema.Boolean,
    adminToken: Schema.String,
    secretGraceSeconds: Schema.Int,
    kycDocumentReader: KycAdapter,
    kycFaceMatcher: KycAdapter,
    kycLiveness: KycAdapter,
    tsaUrl: Schema.String,
    trustAnchors: Schema.String,
    trustedProxies: Schema.Union(Schema.String, Schema.Array(Schema.String)),
    smtpUrl: Schema.String,
    mailFrom: Schema.String,
    otelEndpoint: Schema.String,
  }),
)

const ENV_KEYS = {
  SIGNET_PORT: "port",
  SIGNET_HOST: "host",
  SIGNET_DATABASE: "database",
  SIGNET_MASTER_KEY: "masterKey",
  SIGNET_PUBLIC_ORIGIN: "publicOrigin",
  SIGNET_BASE_PATH: "basePath",
  SIGNET_ENVIRONMENT: "environment",
  SIGNET_DEMO: "demo",
  SIGNET_DEADLINE_MS: "deadlineMs",
  SIGNET_SHUTDOWN_GRACE_MS: "shutdownGraceMs",
  SIGNET_WORKERS: "workers",
  SIGNET_DATABASE_POOL: "databasePool",
  SIGNET_DATABASE_PREPARED_STATEMENTS: "databasePreparedStatements",
  SIGNET_ACCESS_TOKEN_TTL_SECONDS: "accessTokenTtlSeconds",
  SIGNET_WEBHOOKS_ALLOW_LOOPBACK: "webhooksAllowLoopback",
  SIGNET_WEBHOOK_RETRY_BASE_MS: "webhookRetryBaseMs",
  SIGNET_VALIDATE_RESPONSES: "validateResponses",
  SIGNET_ADMIN_TOKEN: "adminToken",
  SIGNET_SECRET_GRACE_SECONDS: "secretGraceSeconds",
  SIGNET_KYC_DOCUMENT_READER: "kycDocumentReader",
  SIGNET_KYC_FACE_MATCHER: "kycFaceMatcher",
  SIGNET_KYC_LIVENESS: "kycLiveness",
  SIGNET_TSA_URL: "tsaUrl",
  SIGNET_TRUST_ANCHORS: "trustAnchors",
  SIGNET_TRUSTED_PROXIES: "trustedProxies",
  SIGNET_SMTP_URL: "smtpUrl",
  SIGNET_MAIL_FROM: "mailFrom",
  SIGNET_OTEL_ENDPOINT: "otelEndpoint",
} as const
const NUMERIC = new Set([
  "port",
  "deadlineMs",
  "shutdownGraceMs",
  "workers",
  "databasePool",
  "accessTokenTtlSeconds",
  "ceremonyTtlSeconds",
  "sessionTtlSeconds",
  "webhookRetryBaseMs",
  "secretGraceSeconds",
])
const FLAGS = new Set(["demo", "webhooksAllowLoopback", "validateResponses", "databasePreparedStatements"])

/** Whether the database setting names PostgreSQL (else it is a SQLite file or `:memory:`). */
export const isPostgresUrl = (database: string): boolean => /^postgres(ql)?:\/\//.test(database)

/**
 * Connections per process when SIGNET_DATABASE_POOL is unset: the node's processes share about two
 * per core plus two (a signature's transactions wait on the database, not the CPU, for part of
 * their time), at least two per process. Measured with 64 signing clients on 2 cores, pools of 2
 * to 24 signed at the same rate within the noise and the smaller ones had the shorter p99
 * (docs/performance.md); a fixed 10 per process opened 10 × cores on a big node.
 */
export const defaultDatabasePool = (cores: number, workers: number): number => Math.max(2, Math.ceil((2 * cores + 2) / workers))

/** Reads `--config <file>` (or SIGNET_CONFIG) and SIGNET_* variables; `demo` forces demo mode on. */
export const loadConfig = (env: NodeJS.ProcessEnv, argv: ReadonlyArray<string>, defaults: { readonly demo?: boolean } = {}): ServerConfig => {
  const fileArg = argv.indexOf("--config")
  const file = fileArg >= 0 ? argv[fileArg + 1] : env["SIGNET_CONFIG"]
  let raw: Record<string, unknown> = {}
  if (file !== undefined) {
    try {
      raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>
    } catch (e) {
      throw new ConfigError(`cannot read config file ${file}: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  for (const [key, field] of Object.entries(ENV_KEYS)) {
    const value = env[key]
    if (value === undefined || value === "") continue
    raw[field] = NUMERIC.has(field) ? Number(value) : FLAGS.has(field) ? value === "1" || value === "true" : value
  }
  const decoded = Schema.decodeUnknownEither(FileConfig)(raw)
  if (decoded._tag === "Left") throw new ConfigError(`invalid configuration: ${decoded.left.message}`)
  const c = decoded.right
  const demo = defaults.demo === true || c.demo === true
  const port = c.port ?? 3000
  const publicOrigin = (c.publicOrigin ?? `http://localhost:${port}`).replace(/\/+$/, "")
  try {
    if (new URL(publicOrigin).origin !== publicOrigin) throw new Error("not an origin")
  } catch {
    throw new ConfigError(`publicOrigin ${publicOrigin} must be an origin such as https://signet.example.com`)
  }
  const basePath = (c.basePath ?? "/api").replace(/\/+$/, "")
  if (basePath !== "" && !/^\/[A-Za-z0-9/_-]*$/.test(basePath)) throw new ConfigError(`basePath ${basePath} must start with / (or be empty)`)
  if (!demo && (c.masterKey === undefined || c.masterKey === "")) {
    throw new ConfigError(
      "SIGNET_MASTER_KEY is not set: give 32 random bytes as 64 hex characters (e.g. `openssl rand -hex 32`); it seals the engine's private keys and is never stored in the database",
    )
  }
  if (c.adminToken !== undefined && c.adminToken.length < 32) {
    throw new ConfigError("SIGNET_ADMIN_TOKEN must be at least 32 characters (`pnpm admin token` makes one)")
  }
  if (c.secretGraceSeconds !== undefined && (c.secretGraceSeconds < 0 || c.secretGraceSeconds > 30 * 86_400)) {
    throw new ConfigError("secretGraceSeconds must be between 0 and 2592000 (30 days)")
  }
  if (c.tsaUrl !== undefined && !/^https?:\/\/[^/]/.test(c.tsaUrl))
    throw new ConfigError(`tsaUrl ${c.tsaUrl} must be an http(s) URL of an RFC 3161 timestamp authority`)
  const environment = c.environment ?? (demo ? "sandbox" : "production")
  let trustedProxies: ReadonlyArray<string> = []
  try {
    trustedProxies = c.trustedProxies === undefined ? [] : parseTrustedProxies(c.trustedProxies).entries
  } catch (e) {
    throw new ConfigError(`SIGNET_TRUSTED_PROXIES: ${e instanceof Error ? e.message : String(e)}`)
  }
  let trustAnchors: ReadonlyArray<Uint8Array> = []
  if (c.trustAnchors !== undefined) {
    let pem: string
    try {
      pem = readFileSync(c.trustAnchors, "utf8")
    } catch (e) {
      throw new ConfigError(`SIGNET_TRUST_ANCHORS: cannot read ${c.trustAnchors} (${e instanceof Error ? e.message : String(e)})`)
    }
    trustAnchors = certificatesOfPem(pem)
    if (trustAnchors.length === 0) throw new ConfigError(`SIGNET_TRUST_ANCHORS: ${c.trustAnchors} holds no PEM CERTIFICATE block`)
  }
  if (c.smtpUrl !== undefined && !/^smtps?:\/\/[^/]/.test(c.smtpUrl))
    throw new ConfigError("SIGNET_SMTP_URL must be smtp://[user:pass@]host[:port] or smtps://…")
  if (c.otelEndpoint !== undefined && c.otelEndpoint !== "" && !/^https?:\/\/[^/]/.test(c.otelEndpoint))
    throw new ConfigError("SIGNET_OTEL_ENDPOINT must be the http(s):// base URL of an OTLP/HTTP collector (e.g. http://localhost:4318)")
  const database = c.database ?? (demo ? ".signet/demo.db" : "signet.db")
  if (c.workers !== undefined && (c.workers < 1 || c.workers > 1024))
    throw new ConfigError(`SIGNET_WORKERS must be a whole number from 1 to 1024, not ${c.workers}`)
  // Each worker would open its own private `:memory:` database: one process only.
  if (database === ":memory:" && c.workers !== undefined && c.workers > 1)
    throw new ConfigError("SIGNET_WORKERS above 1 needs a database file or PostgreSQL, not :memory:")
  const workers = c.workers ?? (database === ":memory:" ? 1 : availableParallelism())
  const postgres = isPostgresUrl(database)
  if (c.databasePool !== undefined && !postgres) throw new ConfigError("SIGNET_DATABASE_POOL sizes PostgreSQL's connection pool; SQLite has none: unset it")
  if (c.databasePool !== undefined && (c.databasePool < 1 || c.databasePool > 1000))
    throw new ConfigError(`SIGNET_DATABASE_POOL must be a whole number from 1 to 1000, not ${c.databasePool}`)
  if (c.databasePreparedStatements !== undefined && !postgres)
    throw new ConfigError("SIGNET_DATABASE_PREPARED_STATEMENTS is about PostgreSQL's prepared statements; SQLite keeps its own: unset it")
  // A production engine without a relay is refused when it is built (makeEngine: the sandbox mailbox refuses production).
  return {
    port,
    trustedProxies,
    trustAnchors,
    host: c.host ?? "0.0.0.0",
    database,
    workers,
    databasePool: postgres ? (c.databasePool ?? defaultDatabasePool(availableParallelism(), workers)) : undefined,
    databasePreparedStatements: postgres ? (c.databasePreparedStatements ?? true) : undefined,
    masterKey: c.masterKey,
    demo,
    deadlineMs: c.deadlineMs ?? 30_000,
    shutdownGraceMs: c.shutdownGraceMs ?? 30_000,
    validateResponses: c.validateResponses ?? false,
    tsaUrl: c.tsaUrl,
    deliveries: {
      // Demo mode lets a developer receive webhooks on their own machine.
      allowLoopbackHttp: c.webhooksAllowLoopback ?? demo,
      ...(c.webhookRetryBaseMs !== undefined ? { baseDelayMs: c.webhookRetryBaseMs } : {}),
    },
    kyc:
      c.kycDocumentReader === undefined && c.kycFaceMatcher === undefined && c.kycLiveness === undefined && environment === "production"
        ? null
        : { documentReader: c.kycDocumentReader ?? "sandbox", faceMatcher: c.kycFaceMatcher ?? "sandbox", liveness: c.kycLiveness ?? "sandbox" },
    smtp: c.smtpUrl === undefined ? undefined : { url: c.smtpUrl, from: c.mailFrom ?? `Signet <no-reply@${new URL(publicOrigin).hostname}>` },
    settings: {
      environment,
      publicOrigin,
      basePath,
      accessTokenTtlSeconds: c.accessTokenTtlSeconds ?? 3600,
      ceremonyTtlSeconds: c.ceremonyTtlSeconds ?? 300,
      sessionTtlSeconds: c.sessionTtlSeconds ?? 3600,
      ...(c.secretGraceSeconds !== undefined ? { secretGraceSeconds: c.secretGraceSeconds } : {}),
    },
    adminToken: c.adminToken === "" ? undefined : c.adminToken,
    otelEndpoint: c.otelEndpoint === "" ? undefined : c.otelEndpoint,
  }
}
