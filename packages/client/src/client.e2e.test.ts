/**
 * @signet/client against a running engine over HTTP: the three RP flows (signing token → frame, hash signing
 * with callback and events, KYC start → verdict), webhook deliveries verified with its verifier, the event
 * stream resuming after a drop, and the generated types matching the document the engine serves.
 */
import { administerRelyingParty, configureKyc } from "@signet/core"
import { enrol, ok, signIn, SoftwarePasskey, startWebhookReceiver, type TokenAnswer } from "@signet/testkit"
import { passport, passportBadMrz, selfie } from "@signet/testkit/kyc"
import { createHash, randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "../../adapters-http/src/test-support/running-engine.ts"
import { typesOf } from "./test-support/types-of.ts"
import {
  approvalFrameUrl,
  approveSigningRequest,
  createSignetClient,
  createSigningRequest,
  kycClient,
  requestSigningToken,
  type SignetClient,
  SignetError,
  signingFrameUrl,
  streamEvents,
  unwrap,
  verifyWebhook,
  waitForSigning,
  WebhookVerificationError,
} from "./index.ts"

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex")

describe("@signet/client against a running engine", () => {
  let env: RunningEngine
  let api: string
  let client: SignetClient
  let passkey: SoftwarePasskey
  let email: string
  let token: string

  beforeAll(async () => {
    env = await startEngine()
    api = `${env.origin}/api`
    client = createSignetClient({ baseUrl: api })
    passkey = SoftwarePasskey.create({ origin: env.origin })
    email = `signer-${randomBytes(4).toString("hex")}@example.com`
    const enrolled = await enrol(env.client, passkey, { email })
    // The signer is also the RP's contact account, so the same token may register webhooks.
    await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId: enrolled.userId }))
    await env.engine.run(configureKyc(env.rp.clientId, { enabled: true }))
    token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
  })
  afterAll(async () => env?.stop())

  it("the generated types are those of the document the engine serves (else: pnpm --filter @signet/client generate)", async () => {
    const document = (await (await fetch(`${api}/openapi.json`)).json()) as Record<string, unknown>
    expect(readFileSync(new URL("./openapi.ts", import.meta.url), "utf8")).toBe(await typesOf(document))
  })

  it("signing token → frame: the token opens the frame's operation and the passkey's approval signs", async () => {
    const documentHash = sha256(randomBytes(512))
    const issued = await requestSigningToken(client, {
      clientId: env.rp.clientId,
      sscSecret: env.rp.sscSecret,
      documentHash,
      loa: "LOA-2",
      signerEmail: email,
    })
    expect(issued).toMatchObject({ loa: "LOA-2", credentialBound: false })
    const src = signingFrameUrl({ baseUrl: api, clientId: env.rp.clientId, token: issued.token, documentName: "lease.pdf", origin: env.origin })
    const url = new URL(src)
    expect(`${url.origin}${url.pathname}`).toBe(`${api}/ssc/frame`)
    expect(url.searchParams.get("client_id")).toBe(env.rp.clientId)
    const fragment = new URLSearchParams(url.hash.slice(1))
    expect(Object.fromEntries(fragment)).toEqual({ token: issued.token, documentName: "lease.pdf", origin: env.origin })
    expect((await fetch(src)).status).toBe(200)
    // What the frame does with its fragment: challenge, passkey, finalize.
    const operation = unwrap(
      await client.POST("/ssc/challenge", {
        body: {
          documentHash,
          documentName: fragment.get("documentName")!,
          rpOrigin: fragment.get("origin")!,
          mode: "registered",
          token: fragment.get("token")!,
        },
      }),
    )
    const signed = unwrap(
      await client.POST("/ssc/finalize", {
        body: {
          operationId: operation.operationId,
          documentHash,
          assertion: passkey.assert({ challenge: operation.challenge, rpId: operation.rpId }) as never,
        },
      }),
    )
    expect(signed).toMatchObject({ documentHash, levelOfAssurance: "LOA-2", mode: "registered" })
    expect(signed.signatureBase64.length).toBeGreaterThan(100)
    // A wrong SSC secret is the engine's message in a SignetError.
    const refused = await requestSigningToken(client, { clientId: env.rp.clientId, sscSecret: "wrong", documentHash }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(SignetError)
    expect(refused).toMatchObject({ status: 403, error: "Invalid client credentials" })
  })

  it("hash signing: the end arrives on the event stream, at the callback and as a webhook the verifier accepts", async () => {
    const receiver = await startWebhookReceiver()
    try {
      const secret = `whsec_${randomBytes(32).toString("base64")}`
      const subscription = unwrap(
        await client.POST("/v2/webhooks/register", {
          body: { url: `${receiver.url}/webhook`, events: ["sign.complete"], secret },
          headers: { authorization: `Bearer ${token}` },
        }),
      )
      expect(subscription.status).toBe("active")
      const documentHash = sha256(randomBytes(1024))
      const created = await createSigningRequest(client, token, {
        documentHash,
        credentialId: passkey.credentialId,
        documentName: "invoice.pdf",
        callbackUrl: `${receiver.url}/callback`,
      })
      expect(created.status).toBe("pending_auth")
      expect(approvalFrameUrl({ baseUrl: api, clientId: env.rp.clientId, requestId: created.requestId, origin: env.origin })).toContain(
        `#request=${created.requestId}&`,
      )
      // The request was created before the stream opened: resume from before it with an earlier stream's position.
      const ended = waitForSigning({ baseUrl: api, accessToken: token, id: created.requestId, lastEventId: "0" })
      const completion = await approveSigningRequest(client, created.requestId, passkey.assert({ challenge: created.challenge }) as never)
      expect(completion.status).toBe("completed")
      expect(await ended).toMatchObject({ id: created.requestId, status: "signed", document_hash: documentHash })

      await receiver.waitFor((r) => r.some((d) => d.path === "/webhook") && r.some((d) => d.path === "/callback"))
      const webhook = receiver.received.find((d) => d.path === "/webhook")!
      const payload = await verifyWebhook(secret, webhook.headers, webhook.body)
      expect(payload).toMatchObject({ type: "sign.complete", data: { requestId: created.requestId, status: "completed", signature: completion.signature } })
      // Another secret, a changed body or an old timestamp (a replay) are refused.
      await expect(verifyWebhook(`whsec_${randomBytes(32).toString("base64")}`, webhook.headers, webhook.body)).rejects.toBeInstanceOf(WebhookVerificationError)
      await expect(verifyWebhook(secret, webhook.headers, webhook.body.replace("completed", "failed"))).rejects.toThrow("no webhook-signature matches")
      await expect(verifyWebhook(secret, webhook.headers, webhook.body, { nowSeconds: Number(webhook.headers["webhook-timestamp"]) + 301 })).rejects.toThrow(
        "tolerance",
      )
      // A Headers object works as well as Node's record.
      expect((await verifyWebhook(secret, new Headers(webhook.headers as Record<string, string>), webhook.body)).type).toBe("sign.complete")
      // The callback carries the same payload, without a signature (no shared secret).
      const callback = receiver.received.find((d) => d.path === "/callback")!
      expect(callback.headers["webhook-signature"]).toBeUndefined()
      expect(JSON.parse(callback.body)).toMatchObject({ type: "sign.complete", data: { requestId: created.requestId } })
    } finally {
      await receiver.close()
    }
  })

  it("the event stream resumes after a dropped connection with Last-Event-ID: nothing missed, nothing twice", async () => {
    // A fetch that cuts the first connection's body right after its first signing event (a proxy dropping it).
    let connections = 0
    const droppingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      if (++connections > 1 || response.body === null) return response
      const reader = response.body.getReader()
      let seen = ""
      const cut = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value, done } = await reader.read()
          if (done) return controller.close()
          controller.enqueue(value)
          seen += new TextDecoder().decode(value)
          if (/event: signing_request_created[\s\S]*?\n\n/.test(seen)) {
            await reader.cancel()
            controller.error(new Error("connection dropped"))
          }
        },
      })
      return new Response(cut, { status: response.status, headers: response.headers })
    }
    const sent: Array<string | undefined> = []
    const stop = new AbortController()
    const stream = streamEvents({ baseUrl: api, accessToken: token, fetch: droppingFetch, retryMs: 50, signal: stop.signal, onConnect: (id) => sent.push(id) })
    const seen: Array<{ id: string | undefined; event: string; requestId: string | undefined }> = []
    const ids: Array<string> = []
    const reading = (async () => {
      for await (const e of stream) {
        seen.push({ id: e.id, event: e.event, requestId: e.event === "connected" ? undefined : (JSON.parse(e.data) as { id: string }).id })
        if (seen.filter((s) => s.event === "signing_request_completed").length === 2) stop.abort()
      }
    })()
    while (!seen.some((s) => s.event === "connected")) await new Promise((r) => setTimeout(r, 20))
    for (let i = 0; i < 2; i++) {
      const created = await createSigningRequest(client, token, { documentHash: sha256(randomBytes(64)), credentialId: passkey.credentialId })
      ids.push(created.requestId)
      await approveSigningRequest(client, created.requestId, passkey.assert({ challenge: created.challenge }) as never)
    }
    await reading
    expect(connections).toBe(2)
    // The second connection sent the id of the last event the first one yielded.
    const firstCreated = seen.find((s) => s.event === "signing_request_created")!
    expect(sent).toEqual([undefined, firstCreated.id])
    const signing = seen.filter((s) => s.event !== "connected")
    expect(signing.map((s) => `${s.event} ${ids.indexOf(s.requestId!)}`)).toEqual([
      "signing_request_created 0",
      "signing_request_completed 0",
      "signing_request_created 1",
      "signing_request_completed 1",
    ])
    expect(new Set(signing.map((s) => s.id)).size).toBe(4)
    expect(stream.lastEventId).toBe(signing[3]!.id)
  })

  it("KYC: start → document → liveness session → capture → face → verdict", async () => {
    const kyc = kycClient(client, { clientId: env.rp.clientId, clientSecret: env.rp.clientSecret })
    const customer = `customer-${randomBytes(4).toString("hex")}@example.com`
    expect(await kyc.start(customer, "+254712345678")).toMatchObject({ customer_id: customer, status: "pending" })
    expect(await kyc.submitDocument(customer, [passport("alice")])).toMatchObject({ status: "document_verified", reasons: [] })
    const session = await kyc.livenessSession(customer)
    const captured = await kyc.relayCapture(session.token, [selfie("alice", 0.93)])
    expect(captured.status).toBe("confirmed")
    const verdict = await kyc.submitFace(customer, (captured as { transactionId: string }).transactionId)
    expect(verdict).toMatchObject({ status: "verified", liveness_score: 0.93 })
    expect(await kyc.verdict(customer)).toMatchObject({ status: "verified", customer_id: customer })
    // A document that fails is a verdict, not an error; a wrong secret is a SignetError.
    const other = `customer-${randomBytes(4).toString("hex")}@example.com`
    await kyc.start(other, "+254712345679")
    expect(await kyc.submitDocument(other, [passportBadMrz()])).toMatchObject({ status: "failed", reasons: expect.arrayContaining(["mrz_check_failed"]) })
    const wrong = kycClient(client, { clientId: env.rp.clientId, clientSecret: "nope" })
    await expect(wrong.verdict(customer)).rejects.toMatchObject({ status: 401, error: "invalid_client" })
  })

  it("KYC phone handoff: the status the desktop polls follows what the phone sends", async () => {
    const kyc = kycClient(client, { clientId: env.rp.clientId, clientSecret: env.rp.clientSecret })
    const customer = `customer-${randomBytes(4).toString("hex")}@example.com`
    await kyc.start(customer, "+254712345670")
    const handoff = await kyc.handoff(customer)
    expect(handoff.url).toBe(`/api/kyc/handoff/${handoff.handoffId}`)
    // The phone's part, as its page does it.
    ok(await env.client.raw("POST", `/kyc/handoff/${handoff.handoffId}/document`, { body: { images: [passport("bob")] } }))
    const captured = ok(
      await env.client.raw<{ transactionId: string }>("POST", "/kyc/faceapi", {
        body: { frames: [selfie("bob")] },
        headers: { authorization: `Bearer ${handoff.handoffId}` },
      }),
    ) as { transactionId: string }
    ok(
      await env.client.raw("POST", "/kyc/capture/finish", {
        body: { transactionId: captured.transactionId },
        headers: { authorization: `Bearer ${handoff.handoffId}` },
      }),
    )
    expect(await kyc.waitForHandoff(handoff.handoffId, { intervalMs: 50, timeoutMs: 5000 })).toMatchObject({ status: "verified", code: handoff.code })
  })
})
