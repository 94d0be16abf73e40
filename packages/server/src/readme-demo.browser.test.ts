/**
 * The README's demo steps, walked in order in Chromium as a newcomer would: the demo server, enrolment with
 * the printed e-mail code, sign-in, `/v2/me`, a webhook to a local receiver (checked with @signet/client), a
 * signing on the RP demo, KYC on fixtures made by `pnpm admin kyc-fixture`, and the phone handoff's QR code.
 * Each URL, call and body the walk uses is first looked up in the README (`says`), and the KYC calls are read
 * from the README's own text and sent as written: a step the README does not state fails here.
 */
import { verifyWebhook } from "@signet/client"
import { execFile, spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import jpeg from "jpeg-js"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addVirtualAuthenticator, launchChromium, openPage, requireBrowser } from "../../adapters-http/src/test-support/chromium.ts"
import { freePort, spawnServer, type ServerProcess } from "./test-support/server-process.ts"

// jsqr is CommonJS whose typings declare an ES default export: required, it is the decoder itself.
const jsQR = createRequire(import.meta.url)("jsqr") as typeof import("jsqr").default
const run = promisify(execFile)
const README = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")
const DEMO = README.slice(README.indexOf("## Two commands"), README.indexOf("## Running it for real"))
const says = (text: string) => expect(DEMO.includes(text), `the README's demo steps do not say: ${text}`).toBe(true)
/** The README's numbered step `n` of the demo list. */
const stepText = (n: number) => {
  const from = DEMO.indexOf(`\n${n}. `)
  expect(from, `the README has no step ${n}`).toBeGreaterThan(0)
  const to = DEMO.indexOf(`\n${n + 1}. `, from)
  return DEMO.slice(from, to < 0 ? DEMO.indexOf("\n\n", from + 4) : to)
}

const browserThere = requireBrowser("the README's demo walk")

describe.runIf(browserThere)("the README's demo, walked in Chromium", () => {
  let server: ServerProcess
  let rpOrigin: string
  let browser: Browser
  let receiver: ChildProcess | undefined
  let receiverPort = 0
  // what the README's receiver printed (complete lines are complete deliveries)
  let receiverOutput = ""

  beforeAll(async () => {
    says("npx -y pnpm@10.34.8 install && npx -y pnpm@10.34.8 demo")
    // `pnpm demo` is `pnpm build && node packages/server/dist/bin/server.js --demo`: the built server in demo mode,
    // on free ports here instead of 3000 and 3001 (the URLs below map the README's ports to these).
    const rpPort = await freePort()
    rpOrigin = `http://localhost:${rpPort}`
    server = await spawnServer({ SIGNET_DEMO: "1", SIGNET_DEMO_RP_PORT: String(rpPort) })
    browser = await launchChromium()
    receiverPort = await freePort()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    receiver?.kill()
  })

  /** A URL the README gives, on this walk's ports. */
  const at = (readmeUrl: string) => {
    says(readmeUrl)
    return readmeUrl.replace("http://localhost:3000", server.origin).replace("http://localhost:3001", rpOrigin)
  }
  /** A command the README gives in backticks, as this walk runs it: placeholders filled in, its ports mapped. */
  const command = (text: string, start: string, values: Record<string, string>) => {
    const found = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).find((c) => c.startsWith(start))
    expect(found, `the README gives no command starting with ${start}`).toBeDefined()
    return found!
      .replace(/<(\w+)>/g, (m, name: string) => values[name] ?? m)
      .replaceAll("http://localhost:3000", server.origin)
      .replaceAll("http://localhost:3001", rpOrigin)
      .replaceAll("127.0.0.1:4000", `127.0.0.1:${receiverPort}`)
      .replace(".listen(4000)", `.listen(${receiverPort})`)
  }
  const shell = async (line: string) => (await run("bash", ["-c", line])).stdout
  const printed = (name: string) => {
    says(`\`${name}\``)
    const value = server.stdout.map((l) => new RegExp(`^\\s+${name}\\s+(\\S+)$`).exec(l)?.[1]).find((v) => v !== undefined)
    expect(value, `the demo did not print ${name}`).toBeDefined()
    return value!
  }

  it("steps 1 to 7 as the README says them", async () => {
    says("It prints the demo RP's `client_id`, `client_secret` and `ssc_secret`")
    const clientId = printed("client_id")
    const clientSecret = printed("client_secret")
    const { page } = await openPage(browser)
    await addVirtualAuthenticator(page)

    // 1. Enrol, with the code the server prints.
    const email = "newcomer@example.com"
    await page.goto(at("http://localhost:3000/api/enrol"))
    await page.fill("#email", email)
    await page.fill("#displayName", "New Comer")
    await page.getByRole("button", { name: "Create passkey" }).click()
    says("`[sandbox mail] to <address>: Your Signet code: <code>`")
    const code = await expect
      .poll(() => server.stdout.findLast((l) => l.startsWith(`[sandbox mail] to ${email}: Your Signet code: `))?.match(/code: (\d{8})/)?.[1])
      .toBeDefined()
      .then(() => server.stdout.findLast((l) => l.startsWith(`[sandbox mail] to ${email}: `))!.match(/code: (\d{8})/)![1]!)
    await page.fill("#code", code)
    await page.getByRole("button", { name: "Create passkey" }).click()
    await expect.poll(() => page.textContent("#result")).toContain(`Passkey enrolled for ${email}`)

    // 2. Sign in for the demo RP: the page shows the access token.
    await page.goto(at("http://localhost:3000/api/signin?client_id=<client_id>").replace("<client_id>", clientId))
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => page.inputValue("#token")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    const token = await page.inputValue("#token")

    // 3. The API with it: the README's curl, run as written.
    const me = JSON.parse(await shell(command(stepText(3), "curl ", { token }))) as { email: string }
    expect(me.email).toBe(email)

    // 5 (before signing, as the README orders it): the README's receiver and secret one-liners, and its curl registering them.
    receiver = spawn("bash", ["-c", command(stepText(5), "node -e ", {})], { stdio: ["ignore", "pipe", "inherit"] })
    receiver.stdout!.on("data", (c: Buffer) => {
      receiverOutput += c.toString("utf8")
    })
    const secret = (await shell(command(stepText(5), "node -p ", {}))).trim()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    for (let i = 0; ; i++) {
      // up once it answers; the probe is printed too, and told apart from deliveries (no webhook-id)
      const up = await fetch(`http://127.0.0.1:${receiverPort}/probe`).then(
        () => true,
        () => false,
      )
      if (up) break
      expect(i, "the README's receiver did not start").toBeLessThan(100)
      await new Promise((r) => setTimeout(r, 50))
    }
    const registered = JSON.parse(await shell(command(stepText(5), "curl ", { token, secret }))) as { status?: string; error?: string }
    expect(registered, JSON.stringify(registered)).toMatchObject({ status: "active" })

    // 4 and 5: the RP demo on its own origin; the token pasted, the request approved in the frame.
    await page.goto(at("http://localhost:3001/"))
    says("**Your access token**")
    await page.getByLabel("Your access token").fill(token)
    says("**Use my token**")
    await page.getByRole("button", { name: "Use my token" }).click()
    await page.frameLocator("iframe").getByRole("button", { name: "Approve with passkey" }).click()
    await expect.poll(() => page.textContent("#result"), { timeout: 15_000 }).toMatch(/^Signed: request [0-9a-f-]{36} \(completed/)
    const requestId = /request ([0-9a-f-]{36})/.exec((await page.textContent("#result"))!)![1]!
    // What the README's receiver printed: the probe, then the delivery.
    const deliveries = () =>
      receiverOutput
        .split("\n")
        .slice(0, -1)
        .map((l) => JSON.parse(l) as { headers: Record<string, string>; body: string })
        .filter((d) => d.headers["webhook-id"] !== undefined)
    await expect.poll(() => deliveries().length, { timeout: 15_000 }).toBeGreaterThan(0)
    says("`verifyWebhook(secret, headers, body)` from `@signet/client`")
    const delivery = deliveries()[0]!
    const payload = await verifyWebhook(secret, delivery.headers, delivery.body)
    expect(payload).toMatchObject({ type: "sign.complete", data: { requestId, status: "completed" } })

    // 6. KYC on the fixtures `pnpm admin kyc-fixture` writes (`pnpm admin` is `pnpm -s build && node packages/server/dist/bin/admin.js`).
    says("`npx -y pnpm@10.34.8 admin kyc-fixture` writes `kyc-fixtures/`")
    const cwd = mkdtempSync(join(tmpdir(), "signet-newcomer-"))
    await run(process.execPath, [new URL("../dist/bin/admin.js", import.meta.url).pathname, "kyc-fixture"], { cwd })
    const answers: Record<string, string> = {}
    // The calls of a step as the README writes them: `POST /api/...` then its JSON body, placeholders filled in.
    const callsOf = (text: string) => [...text.matchAll(/`POST (\/api\/[\w/-]+)`(?: with `Authorization: Bearer <token>` and)? `(\{[^`]*\})`/g)]
    const send = async (path: string, template: string) => {
      const body = template
        .replace(/<base64 -w0 (kyc-fixtures\/[\w.-]+)>/g, (_m, file: string) => readFileSync(join(cwd, file)).toString("base64"))
        .replace(/<(\w+)>/g, (_m, name: string) => answers[name] ?? `<${name}>`)
      expect(body, `${path}: the README's body needs a value no earlier step gave`).not.toMatch(/<\w+>/)
      const bearerStep = path === "/api/kyc/faceapi"
      if (bearerStep) says("`POST /api/kyc/faceapi` with `Authorization: Bearer <token>`")
      const answer = await fetch(`${server.origin}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: bearerStep ? `Bearer ${answers["token"]}` : `Basic ${btoa(`${clientId}:${clientSecret}`)}`,
        },
        body,
      })
      const json = (await answer.json()) as Record<string, unknown>
      expect(answer.status, `${path}: ${JSON.stringify(json)}`).toBe(200)
      for (const [k, v] of Object.entries(json)) if (typeof v === "string") answers[k] = v
      return json
    }
    says("(HTTP Basic with `client_id` and `client_secret`")
    const kycCalls = callsOf(stepText(6))
    expect(kycCalls.map((c) => c[1])).toEqual([
      "/api/kyc/verifications",
      "/api/kyc/customers/document",
      "/api/kyc/customers/liveness-session",
      "/api/kyc/faceapi",
      "/api/kyc/customers/face",
    ])
    const verdicts: Array<unknown> = []
    for (const [, path, template] of kycCalls) verdicts.push((await send(path!, template!))["status"])
    expect(verdicts).toEqual(["pending", "document_verified", undefined, "confirmed", "verified"])
    says("(→ `verified`)")
    // The README's curl of the first call, run as written: the verification it started is found again.
    const again = JSON.parse(await shell(command(stepText(6), "curl ", { client_id: clientId, client_secret: clientSecret }))) as Record<string, unknown>
    expect(again).toMatchObject({ customer_id: "ada@example.com", created: false, status: "verified" })

    // 7. The phone handoff: the desktop page's QR code decodes to the handoff URL.
    const handoffCalls = callsOf(stepText(7))
    expect(handoffCalls.map((c) => c[1])).toEqual(["/api/kyc/verifications", "/api/kyc/handoff"])
    for (const [, path, template] of handoffCalls) await send(path!, template!)
    const handoffId = answers["handoffId"]!
    await page.goto(at("http://localhost:3000/api/kyc/capture#handoff=<handoffId>").replace("<handoffId>", handoffId))
    const phoneUrl = at("http://localhost:3000/api/kyc/handoff/<handoffId>").replace("<handoffId>", handoffId)
    await expect.poll(() => page.textContent("#phoneUrl")).toBe(phoneUrl)
    const shot = jpeg.decode(await page.locator("#phoneQr").screenshot({ type: "jpeg", quality: 100 }), { useTArray: true })
    expect(jsQR(new Uint8ClampedArray(shot.data), shot.width, shot.height)?.data).toBe(phoneUrl)
  }, 180_000)
})
