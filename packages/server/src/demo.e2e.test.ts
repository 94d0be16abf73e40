/**
 * Demo mode as a newcomer meets it: the server binary with `SIGNET_DEMO=1` makes the demo RP,
 * the first account enrolled becomes its contact (so its token manages webhooks), a later one
 * does not, and KYC of the demo RP's customers is on.
 */
import { enrol, ok, SignetClient, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { freePort, spawnServer, type ServerProcess } from "./test-support/server-process.ts"

let server: ServerProcess | undefined
afterAll(async () => server?.stop())

describe("demo mode", () => {
  it("the first enrolled account is the demo RP's contact, and the demo RP has KYC on", async () => {
    server = await spawnServer({ SIGNET_DEMO: "1", SIGNET_DEMO_RP_PORT: String(await freePort()) })
    const demoRp = JSON.parse(readFileSync(join(dirname(server.database), "demo-rp.json"), "utf8")) as { clientId: string; clientSecret: string }
    const banner = server.stdout.join("\n")
    expect(banner).toContain("organisation check passed")
    expect(banner).toContain("KYC of its customers on")
    expect(banner).toContain("the first account enrolled becomes the demo RP's contact")
    const client = new SignetClient(`${server.origin}/api`)
    const printed = server.stdout
    // The sandbox server prints each code it "sends" (README step 1).
    client.mailbox = async (email) => {
      for (let tries = 0; tries < 60; tries++) {
        const code = printed.findLast((l) => l.includes(`[sandbox mail] to ${email}:`))?.match(/code: (\d{8})/)?.[1]
        if (code !== undefined) return code
        await new Promise((r) => setTimeout(r, 50))
      }
      throw new Error(`no code for ${email} in the server's output`)
    }
    const webhook = (token: string) =>
      client.raw("POST", "/v2/webhooks/register", {
        headers: { authorization: `Bearer ${token}` },
        body: { url: "https://hooks.example.com/signet", events: ["sign.complete"], secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` },
      })
    const first = SoftwarePasskey.create({ origin: server.origin })
    await enrol(client, first, { email: "newcomer@example.com" })
    const firstToken = (ok(await signIn(client, first, { clientId: demoRp.clientId })) as TokenAnswer).access_token
    expect((await webhook(firstToken)).status).toBe(200)
    // A second account is an ordinary user of the demo RP.
    const second = SoftwarePasskey.create({ origin: server.origin })
    await enrol(client, second, { email: "second@example.com" })
    const secondToken = (ok(await signIn(client, second, { clientId: demoRp.clientId })) as TokenAnswer).access_token
    expect(await webhook(secondToken)).toMatchObject({ status: 403, body: { error: "Only the RP contact account can manage webhooks" } })
    // KYC is on for the demo RP: its backend starts a verification.
    const started = await client.raw("POST", "/kyc/verifications", {
      headers: { authorization: `Basic ${btoa(`${demoRp.clientId}:${demoRp.clientSecret}`)}` },
      body: { customer_id: "ada@example.com", phone_number: "+254712000001" },
    })
    expect(started).toMatchObject({ status: 200, body: { customer_id: "ada@example.com", status: "pending" } })
  }, 120_000)
})
