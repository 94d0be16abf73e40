import { ok, startWebhookReceiver } from "@signet/testkit"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import type { Engine } from "@signet/adapters-http"
import { spawnServer, type ServerProcess } from "./test-support/server-process.ts"
import { administer, contactSigner } from "./test-support/signer.ts"

const ENV = {
  SIGNET_ENVIRONMENT: "sandbox",
  SIGNET_WEBHOOKS_ALLOW_LOOPBACK: "1",
  SIGNET_WEBHOOK_RETRY_BASE_MS: "300",
  SIGNET_SHUTDOWN_GRACE_MS: "10000",
}

const processes: Array<ServerProcess> = []
let admin: Engine | undefined
afterAll(async () => {
  for (const p of processes) await p.stop()
  await admin?.dispose()
})

/** What became of one request: its status, or where it failed (before any answer, or with the answer cut). */
type Outcome = { readonly status: number } | { readonly failed: "before-answer" | "mid-answer"; readonly detail: string }

const attempt = async (url: string, init: RequestInit): Promise<{ outcome: Outcome; body?: unknown }> => {
  let response: Response
  try {
    response = await fetch(url, init)
  } catch (e) {
    return { outcome: { failed: "before-answer", detail: String((e as Error).cause ?? e) } }
  }
  try {
    const text = await response.text()
    return { outcome: { status: response.status }, body: text === "" ? undefined : JSON.parse(text) }
  } catch (e) {
    return { outcome: { failed: "mid-answer", detail: String((e as Error).cause ?? e) } }
  }
}

describe("SIGTERM", () => {
  it("under load: no 5xx, no answer cut, readiness 503 while draining, exit 0, and no webhook lost", async () => {
    const server = await spawnServer(ENV)
    processes.push(server)
    const api = `${server.origin}/api`
    // Administration in process on the same database (the admin CLI's way), without a delivery worker.
    const administration = await administer(server)
    admin = administration.admin
    const { client, passkey, token } = await contactSigner(server, admin, administration.mailbox, "Shutdown RP", "drain@example.com")
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" }
    // The receiver refuses until after the restart: deliveries are still queued when SIGTERM comes.
    let receiving = false
    const receiver = await startWebhookReceiver(() => (receiving ? 200 : 503))
    ok(
      await client.raw("POST", "/v2/webhooks/register", {
        headers: { authorization: `Bearer ${token}` },
        body: { url: `${receiver.url}/hook`, events: ["sign.complete"], secret: `whsec_${randomBytes(32).toString("base64")}` },
      }),
    )
    const ready = await attempt(`${api}/health/ready`, {})
    expect(ready).toMatchObject({
      outcome: { status: 200 },
      body: { status: "ready", checks: { storage: "ok", keys: "ok", worker: "running", draining: false } },
    })

    // A live event stream, read to its end.
    const stream = await fetch(`${api}/v2/events`, { headers: { authorization: `Bearer ${token}` } })
    const streamText = (async () => {
      let text = ""
      const decoder = new TextDecoder()
      try {
        for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true })
      } catch (e) {
        text += `<<cut: ${String(e)}>>`
      }
      return text
    })()

    const outcomes: Array<{ readonly what: string; readonly outcome: Outcome }> = []
    const completed: Array<string> = []
    let approvals: Promise<unknown> = Promise.resolve()
    let readyWhileDraining: Outcome | undefined
    // Four clients sign one hash after another and fetch the OpenAPI document (a large answer) until
    // the server stops taking connections.
    const lane = async () => {
      for (;;) {
        const created = await attempt(`${api}/v2/sign/single`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ documentHash: createHash("sha256").update(randomBytes(8)).digest("hex"), credentialId: passkey.credentialId }),
        })
        outcomes.push({ what: "sign/single", outcome: created.outcome })
        if (!("status" in created.outcome) || created.outcome.status !== 200) return
        const pending = created.body as { requestId: string; challenge: string }
        // One authenticator: its signature counter must reach the server in order, so approvals take turns.
        const turn = approvals.then(() =>
          attempt(`${api}/v2/sign/auth/${pending.requestId}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ assertion: passkey.assert({ challenge: pending.challenge }) }),
          }),
        )
        approvals = turn.then(() => undefined)
        const approved = await turn
        outcomes.push({ what: "sign/auth", outcome: approved.outcome })
        if ("status" in approved.outcome && approved.outcome.status === 200) completed.push(pending.requestId)
        const document = await attempt(`${api}/openapi.json`, {})
        outcomes.push({ what: "openapi", outcome: document.outcome })
        // Probed only once the server said it drains: the signal reaches it some time after kill() returns.
        if (readyWhileDraining === undefined && server.stdout.some((l) => l.includes('"message":"draining"')))
          readyWhileDraining = (await attempt(`${api}/health/ready`, {})).outcome
        if (!("status" in document.outcome)) return
      }
    }
    const lanes = Promise.all([lane(), lane(), lane(), lane()])
    while (completed.length < 8) await new Promise((r) => setTimeout(r, 20))
    server.child.kill("SIGTERM")
    const code = await server.exited
    await lanes

    expect(code).toBe(0)
    const stopped = server.stdout.map((l) => l.startsWith("{") && JSON.parse(l)).find((l) => l && l.message === "stopped")
    expect(stopped).toMatchObject({ signal: "SIGTERM", requestsFinished: true, requestsCut: 0, workerStopped: true })
    const answered = outcomes.filter((o) => "status" in o.outcome)
    expect(answered.length).toBeGreaterThan(20)
    expect(outcomes.filter((o) => "status" in o.outcome && o.outcome.status >= 500)).toEqual([])
    expect(outcomes.filter((o) => "failed" in o.outcome && o.outcome.failed === "mid-answer")).toEqual([])
    // A readiness probe that still got through while draining (on a kept-alive connection) was told 503.
    if (readyWhileDraining !== undefined && "status" in readyWhileDraining) expect(readyWhileDraining.status).toBe(503)
    // The stream ended cleanly, its last frame the reconnect hint.
    expect(await streamText).toMatch(/retry: \d+\n\n$/)

    // Restart on the same database: every completion made before SIGTERM is delivered.
    receiving = true
    const again = await spawnServer(ENV, { after: server })
    processes.push(again)
    await receiver.waitFor((r) => completed.every((id) => r.some((d) => d.answeredWith === 200 && d.body.includes(id))), 60_000)
    await receiver.close()
  }, 180_000)
})
