import { ok } from "@signet/testkit"
import { createHash, randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import { gunzipSync } from "node:zlib"
import { afterAll, describe, expect, it } from "vitest"
import type { Engine } from "@signet/adapters-http"
import { spawnServer, type ServerProcess } from "./test-support/server-process.ts"
import { administer, contactSigner } from "./test-support/signer.ts"

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
}

/** A local OTLP/HTTP receiver: every JSON body posted, by path. */
const startReceiver = async () => {
  const received: Array<{ readonly path: string; readonly body: unknown }> = []
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const raw = Buffer.concat(chunks)
      const text = (req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8")
      received.push({ path: req.url ?? "", body: JSON.parse(text) })
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, received, close: () => server.close() }
}

const spansOf = (bodies: ReadonlyArray<{ readonly path: string; readonly body: unknown }>): Array<OtlpSpan> =>
  bodies
    .filter((b) => b.path === "/v1/traces")
    .flatMap((b) => (b.body as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan> }> }> }).resourceSpans)
    .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))

const processes: Array<ServerProcess> = []
const engines: Array<Engine> = []
const receivers: Array<{ close: () => void }> = []
afterAll(async () => {
  for (const p of processes) await p.stop()
  for (const e of engines) await e.dispose()
  for (const r of receivers) r.close()
})

/** A server process with an RP, an enrolled signer and a token: what one signing needs. */
const serverWithSigner = async (env: Record<string, string>) => {
  const server = await spawnServer({ SIGNET_ENVIRONMENT: "sandbox", ...env })
  processes.push(server)
  const { admin, mailbox } = await administer(server)
  engines.push(admin)
  const { client, passkey, token } = await contactSigner(server, admin, mailbox, "Traced RP", "traced@example.com")
  const register = async (url: string) =>
    ok(
      await client.raw("POST", "/v2/webhooks/register", {
        headers: { authorization: `Bearer ${token}` },
        body: { url, events: ["sign.complete"], secret: `whsec_${randomBytes(32).toString("base64")}` },
      }),
    )
  const sign = async () => {
    const pending = ok(
      await client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        headers: { authorization: `Bearer ${token}` },
        body: { documentHash: createHash("sha256").update(randomBytes(8)).digest("hex"), credentialId: passkey.credentialId },
      }),
    )
    const done = ok(
      await client.raw<{ status: string }>("POST", `/v2/sign/auth/${pending.requestId}`, {
        body: { assertion: passkey.assert({ challenge: pending.challenge }) },
      }),
    )
    expect(done.status).toBe("completed")
  }
  return { server, sign, register }
}

describe("OTLP export (SIGNET_OTEL_ENDPOINT)", () => {
  it("one signing arrives as spans: create and complete, with storage and CMS child spans; metrics too", async () => {
    const receiver = await startReceiver()
    receivers.push(receiver)
    const { server, sign, register } = await serverWithSigner({ SIGNET_OTEL_ENDPOINT: receiver.url, SIGNET_WEBHOOKS_ALLOW_LOOPBACK: "1" })
    // The completion's webhook goes to the same receiver (path /hook): its delivery is a span of the worker.
    await register(`${receiver.url}/hook`)
    const before = spansOf(receiver.received).length
    await sign()
    for (let i = 0; i < 100 && !receiver.received.some((b) => b.path === "/hook"); i++) await new Promise((r) => setTimeout(r, 100))
    // SIGTERM: the engine is disposed, which flushes the exporters.
    await server.stop()
    expect(await server.exited).toBe(0)

    const spans = spansOf(receiver.received).slice(before)
    const byId = new Map(spans.map((s) => [s.spanId, s]))
    const ancestors = (s: OtlpSpan): Array<OtlpSpan> => {
      const chain: Array<OtlpSpan> = []
      for (let p = s.parentSpanId ? byId.get(s.parentSpanId) : undefined; p !== undefined; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) {
        chain.push(p)
      }
      return chain
    }
    const create = spans.filter((s) => s.name === "POST /api/v2/sign/single")
    const complete = spans.filter((s) => s.name === "POST /api/v2/sign/auth/{requestId}")
    expect(create).toHaveLength(1)
    expect(complete).toHaveLength(1)
    // server spans (kind 2), each the root of its own trace
    expect(create[0]!.kind).toBe(2)
    expect(complete[0]!.parentSpanId ?? "").toBe("")
    const under = (root: OtlpSpan, name: string) => spans.filter((s) => s.name === name && ancestors(s).some((a) => a.spanId === root.spanId))
    expect(under(create[0]!, "storage.transaction").length).toBeGreaterThanOrEqual(1)
    expect(under(complete[0]!, "storage.transaction").length).toBeGreaterThanOrEqual(1)
    const cms = under(complete[0]!, "cms.sign")
    expect(cms).toHaveLength(1)
    expect(cms[0]!.traceId).toBe(complete[0]!.traceId)
    // the signer's key signs inside the CMS span
    expect(spans.filter((s) => s.name === "keystore.sign" && s.parentSpanId === cms[0]!.spanId)).toHaveLength(1)

    const delivery = spans.filter((s) => s.name === "webhook.deliver")
    expect(delivery).toHaveLength(1)
    expect(delivery[0]!.kind).toBe(4)

    const metrics = JSON.stringify(receiver.received.filter((b) => b.path === "/v1/metrics").map((b) => b.body))
    expect(metrics).toContain("signet_http_requests_total")
    expect(metrics).toContain("signet_signatures_total")
  }, 120_000)

  it("unset: nothing is sent, even with the OpenTelemetry SDK's own variable pointing at a collector", async () => {
    const receiver = await startReceiver()
    receivers.push(receiver)
    const { server, sign } = await serverWithSigner({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })
    await sign()
    await server.stop()
    expect(receiver.received).toEqual([])
  }, 120_000)
})
