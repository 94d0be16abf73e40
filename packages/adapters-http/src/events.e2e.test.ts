/** `GET /v2/events` consumed by a real SSE parser while signing, including a resume with Last-Event-ID. */
import { EventBusPostgres, StoragePostgres } from "@signet/adapters-postgres"
import { EventBus, userEventsTopic } from "@signet/core"
import { enrol, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { findPostgres, freshSchemaName, withFreshSchema, dropSchema } from "@signet/testkit/storage"
import { Effect, Option, Stream } from "effect"
import { createParser, type EventSourceMessage } from "eventsource-parser"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex")
const RECORD_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

/** An SSE client over fetch and eventsource-parser (not ours): collects messages until closed. */
const connect = async (url: string, token: string, lastEventId?: string) => {
  const controller = new AbortController()
  const messages: Array<EventSourceMessage> = []
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
    signal: controller.signal,
  })
  const parser = createParser({ onEvent: (m) => messages.push(m) })
  const reading = (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }))
    } catch {
      // aborted
    }
  })()
  const waitFor = async (predicate: (m: ReadonlyArray<EventSourceMessage>) => boolean, timeoutMs = 5000) => {
    const started = Date.now()
    while (!predicate(messages)) {
      if (Date.now() - started > timeoutMs) throw new Error(`timed out; got ${JSON.stringify(messages.map((m) => m.event))}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  return {
    response,
    messages,
    waitFor,
    close: async () => {
      controller.abort()
      await reading
    },
  }
}

const postgres = await findPostgres()
const STORAGES: ReadonlyArray<readonly [string, string | undefined]> = [["SQLite", undefined], ...(postgres ? [["PostgreSQL", postgres] as const] : [])]

describe.each(STORAGES)("the live event stream on %s", (_name, databaseUrl) => {
  let env: RunningEngine
  let passkey: SoftwarePasskey
  let token: string
  beforeAll(async () => {
    env = await startEngine(databaseUrl === undefined ? {} : { storage: withFreshSchema(databaseUrl, StoragePostgres) })
    passkey = SoftwarePasskey.create({ origin: env.origin })
    await enrol(env.client, passkey, { email: "stream@example.com" })
    token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
  })
  afterAll(async () => env?.stop())

  const headers = () => ({ authorization: `Bearer ${token}` })
  const signSingle = async () => {
    const hash = sha256(randomBytes(8))
    const pending = ok(
      await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        headers: headers(),
        body: { documentHash: hash, credentialId: passkey.credentialId },
      }),
    )
    ok(
      await env.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
        body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
      }),
    )
    return { id: pending.requestId, hash }
  }

  it("starts with connected, then created and completed in order, with the spec's record", async () => {
    const stream = await connect(`${env.origin}/api/v2/events`, token)
    expect(stream.response.status).toBe(200)
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    await stream.waitFor((m) => m.length >= 1)
    expect(stream.messages[0]!.event).toBe("connected")

    const single = await signSingle()
    const docs = [
      { id: "a", hash: sha256(randomBytes(4)), hash_algo: "2.16.840.1.101.3.4.2.1" },
      { id: "b", hash: "bad", hash_algo: "2.16.840.1.101.3.4.2.1" },
    ]
    const batch = ok(
      await env.client.raw<{ batchId: string; challenge: string }>("POST", "/v2/sign/batch", {
        headers: headers(),
        body: { credentialId: passkey.credentialId, documents: docs },
      }),
    )
    ok(
      await env.client.raw("POST", `/v2/sign/batch/${batch.batchId}/auth`, {
        body: { assertion: passkey.assert({ challenge: batch.challenge }, { includeUserHandle: false }) },
      }),
    )
    await stream.waitFor((m) => m.filter((e) => e.event !== "connected").length >= 4)
    await stream.close()

    const events = stream.messages.slice(1).map((m) => ({ event: m.event, id: m.id, data: JSON.parse(m.data) as Record<string, unknown> }))
    expect(events.map((e) => [e.event, e.data["id"]])).toEqual([
      ["signing_request_created", single.id],
      ["signing_request_completed", single.id],
      ["signing_request_created", batch.batchId],
      ["signing_request_completed", batch.batchId],
    ])
    const [created, completed] = [events[0]!.data, events[1]!.data]
    expect(Object.keys(created).sort()).toEqual(["created_at", "document_hash", "error_message", "id", "signed_at", "status"])
    expect(created).toMatchObject({ status: "pending_auth", document_hash: single.hash, signed_at: null, error_message: null })
    expect(created["created_at"]).toMatch(RECORD_TIME)
    expect(completed).toMatchObject({ status: "signed", document_hash: single.hash, error_message: null })
    expect(completed["signed_at"]).toMatch(RECORD_TIME)
    expect(events[3]!.data["status"]).toBe("partial")
    // ids increase: they are positions in the event log
    const ids = events.map((e) => Number(e.id))
    expect([...ids].sort((a, b) => a - b)).toEqual(ids)
  })

  it("a reconnect with Last-Event-ID misses nothing that happened while away", async () => {
    const first = await connect(`${env.origin}/api/v2/events`, token)
    const one = await signSingle()
    await first.waitFor((m) => m.some((e) => e.event === "signing_request_completed" && JSON.parse(e.data).id === one.id))
    const lastSeen = first.messages.at(-1)!.id!
    await first.close()
    const missed = [await signSingle(), await signSingle()]
    const second = await connect(`${env.origin}/api/v2/events`, token, lastSeen)
    await second.waitFor((m) => m.filter((e) => e.event !== "connected").length >= 4)
    await second.close()
    expect(second.messages.slice(1, 5).map((e) => [e.event, JSON.parse(e.data).id])).toEqual([
      ["signing_request_created", missed[0]!.id],
      ["signing_request_completed", missed[0]!.id],
      ["signing_request_created", missed[1]!.id],
      ["signing_request_completed", missed[1]!.id],
    ])
  })

  it("needs a user token and a well-formed Last-Event-ID", async () => {
    expect(await env.client.raw("GET", "/v2/events")).toMatchObject({ status: 401, body: { error: "Missing Authorization header" } })
    expect(await env.client.raw("GET", "/v2/events", { headers: { ...headers(), "last-event-id": "abc" } })).toMatchObject({
      status: 400,
      body: { error: "Last-Event-ID must be an event id of this stream" },
    })
  })
})

describe.skipIf(postgres === undefined)("across nodes on PostgreSQL", () => {
  it("a client connected to node A receives the events of a request completed through node B", async () => {
    const url = postgres!
    const schema = freshSchemaName()
    const masterKey = globalThis.crypto.getRandomValues(new Uint8Array(32))
    const node = (peer?: RunningEngine) =>
      startEngine({
        masterKey,
        storage: StoragePostgres({ connectionString: url, schema }),
        eventBus: EventBusPostgres({ connectionString: url, schema }),
        // Nodes of one deployment share its public origin (a load balancer in front of them).
        ...(peer ? { rp: peer.rp, publicOrigin: peer.origin } : {}),
      })
    const a = await node()
    const b = await node(a)
    try {
      const passkey = SoftwarePasskey.create({ origin: a.origin })
      await enrol(a.client, passkey, { email: "nodes@example.com" })
      const token = (ok(await signIn(a.client, passkey, { clientId: a.rp.clientId })) as TokenAnswer).access_token
      const stream = await connect(`${a.client.baseUrl}/v2/events`, token)
      await stream.waitFor((m) => m.length >= 1)
      // A third listener on the deployment's bus: it hears B's poke only over LISTEN/NOTIFY (the
      // streams' periodic re-read publishes nothing), which is what lets A's stream answer at once.
      const userId = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).sub as string
      const poked = Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const bus = yield* EventBus
            const pokes = yield* bus.subscribe(userEventsTopic(userId))
            return yield* Stream.runHead(pokes)
          }),
        ).pipe(Effect.provide(EventBusPostgres({ connectionString: url, schema })), Effect.timeout("20 seconds")),
      )
      const hash = sha256(randomBytes(8))
      const pending = ok(
        await b.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
          headers: { authorization: `Bearer ${token}` },
          body: { documentHash: hash, credentialId: passkey.credentialId },
        }),
      )
      ok(
        await b.client.raw("POST", `/v2/sign/auth/${pending.requestId}`, {
          body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
        }),
      )
      expect(Option.isSome(await poked)).toBe(true)
      await stream.waitFor((m) => m.some((e) => e.event === "signing_request_completed" && JSON.parse(e.data).id === pending.requestId), 20_000)
      await stream.close()
    } finally {
      await a.stop()
      await b.stop()
      await dropSchema(url, schema)
    }
  })
})
