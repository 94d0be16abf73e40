/**
 * The end-to-end check of an example host (scripts/examples-e2e.sh): against a running host's URL,
 * enrol a software passkey, register and approve a relying party, sign a hash, verify the CMS with
 * `openssl cms -verify` against the CA the host serves, see the signing on `/v2/events`, and (given the
 * host's webhook secret) see the host's own receiver accept the `sign.complete` webhook after checking its
 * signature with @signet/client, and refuse a forged one.
 *
 * Usage: node --conditions=@signet/source --import tsx scripts/examples-e2e-check.ts <origin> <host's stdout log> <administrator token> [webhook secret]
 */
import { execFileSync } from "node:child_process"
import { createHash, createHmac, randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
// The testkit from the workspace drives the host from outside, as any client over HTTP would.
import { enrol, ok, signIn, signInAtConsole, SignetClient, SoftwarePasskey, type ErrorBody, type TokenAnswer } from "../packages/testkit/src/index.ts"

const [origin, logFile, adminToken, webhookSecret] = process.argv.slice(2)
if (origin === undefined || logFile === undefined || adminToken === undefined) {
  console.error("usage: examples-e2e-check.ts <origin> <stdout log> <admin token> [webhook secret]")
  process.exit(2)
}
const api = `${origin}/api`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const step = (text: string) => console.log(`  - ${text}`)
const fail = (text: string): never => {
  throw new Error(text)
}

// Up: the host's own route and Signet's health under /api.
for (let i = 0; ; i++) {
  const up = await fetch(`${api}/health`).then(
    (r) => r.ok,
    () => false,
  )
  if (up) break
  if (i > 300) fail(`${api}/health did not answer within 30 s`)
  await sleep(100)
}
const home = await fetch(`${origin}/`)
if (!home.ok || !(await home.text()).includes("the host's own page")) fail("the host's own route / did not answer: Signet took over more than /api")
step("the host answers its own / and Signet's /api/health")

const client = new SignetClient(api)
// The host prints each sandbox e-mail's subject (with the code) on its stdout: read the newest for the address.
client.mailbox = async (email) => {
  for (let tries = 0; tries < 100; tries++) {
    const line = readFileSync(logFile, "utf8")
      .split("\n")
      .findLast((l) => l.includes(`[sandbox mail] to ${email.toLowerCase()}:`))
    const code = line?.match(/code: (\d{8})/)?.[1]
    if (code !== undefined) return code
    await sleep(50)
  }
  return fail(`no code for ${email} in ${logFile}`)
}

const passkey = SoftwarePasskey.create({ origin })
const email = `signer-${randomBytes(4).toString("hex")}@example.com`
const enrolled = await enrol(client, passkey, { email, displayName: "Example Signer" })
step(`enrolled a software passkey for ${enrolled.email} (e-mail proven with the printed code)`)

// A relying party, as its contact registers it and an administrator approves it.
const consoleToken = await signInAtConsole(client, passkey)
const registered = await client.raw<{ clientId: string } | ErrorBody>("POST", "/v2/relying-parties", {
  body: { name: "Example RP", signingOrigins: [origin] },
  headers: { authorization: `Bearer ${consoleToken}` },
})
if (registered.status !== 201) fail(`registering an RP: ${registered.status} ${JSON.stringify(registered.body)}`)
const clientId = (registered.body as { clientId: string }).clientId
const admin = { authorization: `Bearer ${adminToken}` }
for (const command of [{ _tag: "Approve" }, { _tag: "SetPlan", plan: "business" }]) {
  ok(await client.raw("POST", `/admin/api/relying-parties/${clientId}/commands`, { body: command, headers: admin }))
}
step(`registered ${clientId} and approved it with the administrator token (Business plan)`)

const token = (ok(await signIn(client, passkey, { clientId })) as TokenAnswer).access_token
const bearer = { authorization: `Bearer ${token}` }

// The registrant is the RP's contact account: it subscribes the host's own receiver to the RP's completions.
if (webhookSecret !== undefined) {
  const subscribed = await client.raw<{ subscriptionId: number } | ErrorBody>("POST", "/v2/webhooks/register", {
    body: { url: `${origin}/webhooks/signet`, events: ["sign.complete"], secret: webhookSecret },
    headers: bearer,
  })
  if (subscribed.status !== 200) fail(`registering the host's webhook receiver: ${subscribed.status} ${JSON.stringify(subscribed.body)}`)
  step(`subscribed the host's ${origin}/webhooks/signet to sign.complete`)
}

// The live stream, opened before signing.
const events: Array<{ event: string; data: string }> = []
const stream = new AbortController()
const response = await fetch(`${api}/v2/events`, { headers: { ...bearer, accept: "text/event-stream" }, signal: stream.signal })
if (response.status !== 200 || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
  fail(`/v2/events: ${response.status} ${response.headers.get("content-type")}`)
}
const reading = (async () => {
  const decoder = new TextDecoder()
  let buffer = ""
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, "\n")
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const field = (name: string) =>
          block
            .split("\n")
            .filter((l) => l.startsWith(`${name}:`))
            .map((l) => l.slice(name.length + 1).replace(/^ /, ""))
            .join("\n")
        if (field("event") !== "" || field("data") !== "") events.push({ event: field("event") || "message", data: field("data") })
      }
    }
  } catch {
    // aborted at the end
  }
})()
const waitForEvent = async (predicate: (e: { event: string; data: string }) => boolean, what: string) => {
  for (let i = 0; i < 200; i++) {
    if (events.some(predicate)) return
    await sleep(50)
  }
  fail(`no ${what} on /v2/events within 10 s; got ${JSON.stringify(events.map((e) => e.event))}`)
}
await waitForEvent((e) => e.event === "connected", "connected event")

// Sign a document's hash with the passkey's approval.
const document = randomBytes(4096)
const pending = ok(
  await client.raw<{ requestId: string; challenge: string } | ErrorBody>("POST", "/v2/sign/single", {
    headers: bearer,
    body: { documentHash: createHash("sha256").update(document).digest("hex"), credentialId: passkey.credentialId, documentName: "example.pdf" },
  }),
) as { requestId: string; challenge: string }
const signed = ok(
  await client.raw<{ status: string; signature: string } | ErrorBody>("POST", `/v2/sign/auth/${pending.requestId}`, {
    body: { assertion: passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
  }),
) as { status: string; signature: string }
if (signed.status !== "completed") fail(`signing answered ${JSON.stringify(signed)}`)
step(`signed a SHA-256 hash (request ${pending.requestId})`)

// openssl, an independent verifier, against the CA the host serves at /api/v2/ca.
const root = ok(await client.raw<{ root: { pem: string } } | ErrorBody>("GET", "/v2/ca")) as { root: { pem: string } }
const work = mkdtempSync(join(tmpdir(), "signet-example-check-"))
const verifies = (content: Uint8Array) => {
  writeFileSync(join(work, "sig.der"), Buffer.from(signed.signature, "base64"))
  writeFileSync(join(work, "doc.bin"), content)
  writeFileSync(join(work, "root.pem"), root.root.pem)
  try {
    execFileSync(
      "openssl",
      [
        "cms",
        "-verify",
        "-binary",
        "-purpose",
        "any",
        "-inform",
        "DER",
        "-in",
        join(work, "sig.der"),
        "-content",
        join(work, "doc.bin"),
        "-CAfile",
        join(work, "root.pem"),
        "-out",
        "/dev/null",
      ],
      { stdio: "pipe" },
    )
    return true
  } catch {
    return false
  }
}
if (!verifies(document)) fail("openssl cms -verify refused the signature over the signed document")
if (verifies(randomBytes(4096))) fail("openssl cms -verify accepted the signature over another document")
step("openssl cms -verify accepts the CMS for the document (chained to /api/v2/ca) and refuses it for another")

await waitForEvent(
  (e) => e.event === "signing_request_completed" && (JSON.parse(e.data) as { id: string; status: string }).id === pending.requestId,
  "signing_request_completed of the request",
)
const completed = events.find((e) => e.event === "signing_request_completed")!
if ((JSON.parse(completed.data) as { status: string }).status !== "signed") fail(`completed event: ${completed.data}`)
stream.abort()
await reading
step(`/v2/events streamed ${events.map((e) => e.event).join(", ")}`)

if (webhookSecret !== undefined) {
  const logged = (text: string) => readFileSync(logFile, "utf8").split("\n").includes(text)
  for (let i = 0; !logged(`[webhook] verified sign.complete ${pending.requestId}`); i++) {
    if (i > 200) fail(`the host did not log a verified sign.complete webhook for ${pending.requestId} within 10 s`)
    await sleep(50)
  }
  step("the host's receiver checked the sign.complete webhook's signature with @signet/client and accepted it")
  // A delivery signed with another key: the host's receiver must refuse it.
  const body = JSON.stringify({ type: "sign.complete", timestamp: new Date().toISOString(), data: { requestId: "forged" } })
  const id = "msg_forged"
  const at = String(Math.floor(Date.now() / 1000))
  const forged = await fetch(`${origin}/webhooks/signet`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": at,
      "webhook-signature": `v1,${createHmac("sha256", randomBytes(32)).update(`${id}.${at}.${body}`).digest("base64")}`,
    },
    body,
  })
  if (forged.status !== 400 || !logged("[webhook] refused: no webhook-signature matches")) fail(`a forged webhook was answered ${forged.status}`)
  step("and refused a delivery signed with another key (400)")
}
console.log(`PASS ${origin}`)
