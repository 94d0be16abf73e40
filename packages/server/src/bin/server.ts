#!/usr/bin/env node
/** The Signet server: `pnpm start` (configured) or `pnpm demo` (SQLite, demo RP, sandbox). */
import { parseMasterKey } from "@signet/adapters-crypto"
import { KycProvidersSandbox } from "@signet/core"
import { ConfigError, loadConfig } from "../config.ts"
import { demoMasterKey, ensureDemoRp, withDemoContact } from "../demo.ts"
import { listen, localMetricsText, makeEngine, nodeClientIp, SandboxMailbox, TimestampAuthorityHttp, warmPdfWorkers } from "@signet/adapters-http"
import { MailerSmtp } from "../mailer-smtp.ts"
import { makeRpDemo } from "../rp-demo.ts"
import { storageFor } from "../storage.ts"
import { otlpTelemetry } from "../telemetry.ts"
import { announceReady, metricsAcrossWorkers, runPrimary, WORKER_HEADER, workerSlot } from "../cluster.ts"
import cluster from "node:cluster"

const main = async () => {
  const config = loadConfig(process.env, process.argv, { demo: process.argv.includes("--demo") })
  const masterKey = parseMasterKey(config.masterKey ?? demoMasterKey(config.database))
  // Several workers: this process is their primary and serves nothing itself (docs/operations.md#workers).
  if (cluster.isPrimary && config.workers > 1) return runPrimary({ workers: config.workers, shutdownGraceMs: config.shutdownGraceMs })
  const slot = workerSlot()
  const { storage, eventBus } = storageFor(config.database, {
    workers: slot !== undefined,
    pool: config.databasePool,
    preparedStatements: config.databasePreparedStatements,
  })
  // The local KYC adapters load their models lazily; their package is imported only when chosen.
  // No KYC setting in production: KYC is disabled (null); sandbox ports are passed as such, so production refuses them.
  const kycProviders =
    config.kyc === null
      ? null
      : Object.values(config.kyc).includes("local")
        ? (await import("@signet/kyc-local")).kycProviders(config.kyc)
        : KycProvidersSandbox
  // Under a primary, a scrape of `/metrics` merges every worker's metrics (docs/operations.md#workers).
  const acrossWorkers = slot === undefined ? undefined : metricsAcrossWorkers({ workers: config.workers })
  const engine = await makeEngine({
    settings: config.settings,
    storage,
    eventBus,
    masterKey,
    deadlineMs: config.deadlineMs,
    validateResponses: config.validateResponses,
    clientIp: nodeClientIp,
    trustedProxies: config.trustedProxies,
    trustAnchors: config.trustAnchors,
    deliveries: config.deliveries,
    ...(config.adminToken !== undefined ? { adminToken: config.adminToken } : {}),
    // Housekeeping's deletes are idempotent, but one worker is enough to run them.
    housekeeping: slot === undefined || slot === 1,
    kycProviders,
    ...(acrossWorkers !== undefined ? { metricsOfOtherWorkers: acrossWorkers.gather } : {}),
    ...(config.otelEndpoint !== undefined ? { telemetry: otlpTelemetry({ endpoint: config.otelEndpoint }) } : {}),
    ...(config.tsaUrl === undefined
      ? {}
      : { timestampAuthority: TimestampAuthorityHttp({ url: config.tsaUrl, allowLoopbackHttp: config.deliveries.allowLoopbackHttp }) }),
    // Without SMTP a sandbox engine uses the mailbox, which prints each code here; a production engine gets none, and
    // makeEngine refuses it naming the mailer with the other sandbox parts.
    ...(config.smtp !== undefined
      ? { mailer: MailerSmtp(config.smtp) }
      : config.settings.environment === "sandbox"
        ? { mailer: new SandboxMailbox("sandbox", (m) => process.stdout.write(`[sandbox mail] to ${m.to}: ${m.subject}\n`)).layer }
        : {}),
  })
  acrossWorkers?.answerWith(() => engine.run(localMetricsText))
  // The PDF worker's bundle is built now, not on the first PDF upload.
  warmPdfWorkers()
  const base = config.settings.basePath
  // Demo mode: the demo RP exists before the first request, and its first enrolled account becomes its contact.
  const rpDemoPort = Number(process.env.SIGNET_DEMO_RP_PORT ?? 3001)
  if (config.demo && (!Number.isInteger(rpDemoPort) || rpDemoPort < 1 || rpDemoPort > 65535))
    throw new ConfigError(`SIGNET_DEMO_RP_PORT must be a port number, not ${process.env.SIGNET_DEMO_RP_PORT}`)
  const rpDemoOrigin = `http://localhost:${rpDemoPort}`
  const demoRp = config.demo ? await ensureDemoRp(engine, config.database, [rpDemoOrigin]) : undefined
  const handler = demoRp === undefined ? engine.handler : withDemoContact(engine, demoRp.clientId)
  const server = await listen(handler, config.port, config.host, (req, res) => {
    if (slot !== undefined) res.setHeader(WORKER_HEADER, String(slot))
    if (req.url === "/" && base !== "") {
      res.writeHead(302, { location: `${base}/` }).end()
      return true
    }
    return false
  })
  const origin = config.settings.publicOrigin
  const lines = [
    `Signet ${config.settings.environment} listening on ${config.host}:${server.port} (database: ${config.database})`,
    "Adapters:",
    `  storage: ${config.database.startsWith("postgres") ? "PostgreSQL" : "SQLite"}; key store: software, sealed by the master key`,
    ...engine.adapters.map((a) => `  ${a.port}: ${a.adapter}${a.sandbox ? " (SANDBOX: answers from test fixtures)" : ""}`),
    `  client address: ${config.trustedProxies.length === 0 ? "the peer (X-Forwarded-For ignored)" : `X-Forwarded-For behind ${config.trustedProxies.join(", ")}`}`,
    ...(slot === undefined ? [] : [`Workers: ${config.workers} processes share the port (SIGNET_WORKERS; each answer names its worker in ${WORKER_HEADER})`]),
  ]
  let rpDemo: { close: () => Promise<void> } | undefined
  if (demoRp !== undefined) {
    // The RP demo: a relying-party site on a second port (another origin) that frames the signing frame.
    const rp = demoRp
    rpDemo = await listen(makeRpDemo({ signetOrigin: origin, basePath: base, clientId: rp.clientId, sscSecret: rp.sscSecret }), rpDemoPort, config.host)
    lines.push(
      "",
      "Demo relying party (approved, Business plan; organisation check passed, so LOA-4 is allowed; KYC of its customers on, sandbox fixtures):",
      `  client_id      ${rp.clientId}`,
      `  client_secret  ${rp.clientSecret}`,
      `  ssc_secret     ${rp.sscSecret}`,
      "",
      `1. Enrol a passkey:   ${origin}${base}/enrol  (the first account enrolled becomes the demo RP's contact: webhooks, usage)`,
      `2. Sign in with it:   ${origin}${base}/signin?client_id=${rp.clientId}`,
      `3. Call the API:      curl -H "Authorization: Bearer <access token from step 2>" ${origin}${base}/v2/me`,
      `   Client token:      curl -u ${rp.clientId}:<client_secret> -d grant_type=client_credentials ${origin}${base}/oauth/token`,
      `   OpenAPI document:  ${origin}${base}/openapi.json`,
      `4. Sign a document:   ${rpDemoOrigin}/  (the RP demo: another origin framing ${origin}${base}/ssc/frame)`,
      '5. Webhooks, 6. KYC on sandbox fixtures (pnpm admin kyc-fixture), 7. the phone handoff: README.md, "Two commands"',
    )
  }
  // Under a primary, worker 1 prints the banner for all.
  if (slot === undefined || slot === 1) process.stdout.write(`${lines.join("\n")}\n`)
  // Graceful shutdown (docs/operations.md): readiness 503 and event streams ended with a reconnect
  // hint, no new connections, requests in flight finished, the delivery in hand finished, then exit 0.
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    const started = performance.now()
    await engine.drain()
    // Readiness answers 503 from here on: said in the log, so an operator (and the SIGTERM test) can tell when draining began.
    process.stdout.write(`${JSON.stringify({ level: "INFO", message: "draining", ...(slot === undefined ? {} : { worker: slot }), signal })}\n`)
    const [served] = await Promise.all([server.shutdown(config.shutdownGraceMs), rpDemo?.close()])
    const left = Math.max(0, config.shutdownGraceMs - (performance.now() - started))
    const workerStopped = await engine.workerStopped(left)
    await engine.dispose()
    process.stdout.write(
      `${JSON.stringify({ level: "INFO", message: "stopped", ...(slot === undefined ? {} : { worker: slot }), signal, requestsFinished: served.inTime, requestsCut: served.cut, workerStopped, ms: Math.round(performance.now() - started) })}\n`,
    )
    process.exit(0)
  }
  process.on("SIGINT", () => void stop("SIGINT"))
  process.on("SIGTERM", () => void stop("SIGTERM"))
  announceReady()
}

main().catch((e: unknown) => {
  process.stderr.write(`signet: ${e instanceof ConfigError || e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
