/**
 * Sign-in through an external OpenID provider, end to end against a real second provider
 * (panva's `oidc-provider`) on 127.0.0.1: registration with discovery, the browser flow with
 * cookies and redirects over HTTP, the linking rules, state replay and mismatch, unlinking.
 */
import {
  administerRelyingParty,
  CONSOLE_CLIENT_ID,
  issueAccessToken,
  listIdentityProviders,
  openSignedInSession,
  registerIdentityProvider,
  removeIdentityProvider,
  signedInUserOf,
} from "@signet/core"
import { enrol, ok, proveEmail, signIn, SoftwarePasskey, type Account, type ErrorBody, type TokenAnswer } from "@signet/testkit"
import { StoragePostgres } from "@signet/adapters-postgres"
import { findPostgres, withFreshSchema } from "@signet/testkit/storage"
import { Effect, Option } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BrowserAgent, type Page } from "./test-support/browser-agent.ts"
import { startExternalProvider, type ExternalProvider } from "./test-support/external-provider.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

type Identity = { id: string; providerId: string; issuer: string; subject: string; email: string | null; createdAt: number }
type AccountWithIdentities = Account & { identities: ReadonlyArray<Identity> }

const ACCOUNTS = {
  "ext-ada": { email: "ada.external@example.com", emailVerified: true, name: "Ada External" },
  "ext-grace": { email: "grace@example.com", emailVerified: true, name: "Grace (external)" },
  "ext-unverified": { email: "nobody@example.com", emailVerified: false, name: "Unverified" },
  "ext-victim": { email: "victim@example.com", emailVerified: true, name: "Victor Victim" },
  "ext-preclaim": { email: "later-owner@example.com", emailVerified: true, name: "Claimed by the RP" },
}

const postgres = await findPostgres()
const STORAGES: ReadonlyArray<readonly [string, string | undefined]> = [["SQLite", undefined], ...(postgres ? [["PostgreSQL", postgres] as const] : [])]

describe.each(STORAGES)("on %s", (_name, databaseUrl) => {
  let env: RunningEngine
  let op: ExternalProvider
  let providerId: string
  let impostor: Server
  let impostorUrl: string

  beforeAll(async () => {
    env = await startEngine(databaseUrl === undefined ? {} : { storage: withFreshSchema(databaseUrl, StoragePostgres) })
    op = await startExternalProvider(`${env.origin}/api/idp/callback`, ACCOUNTS)
    // An impostor that serves the real provider's discovery document from its own address.
    impostor = createServer(async (req, res) => {
      const real = await fetch(`${op.issuer}${req.url}`)
      res.writeHead(real.status, { "content-type": real.headers.get("content-type") ?? "application/json" })
      res.end(await real.text())
    })
    await new Promise<void>((resolve) => impostor.listen(0, "127.0.0.1", resolve))
    impostorUrl = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`
    const registered = await env.engine.run(
      registerIdentityProvider(
        { kind: "admin" },
        {
          issuer: op.issuer,
          clientId: op.clientId,
          clientSecret: op.clientSecret,
          name: "Example ID",
        },
      ),
    )
    providerId = registered.id
  })
  afterAll(async () => {
    await new Promise<void>((resolve) => impostor?.close(() => resolve()))
    await op?.stop()
    await env?.stop()
  })

  const api = () => `${env.origin}/api`
  const isCallback = (u: URL) => u.pathname === "/api/idp/callback"

  /** Runs the external provider's login (and consent) until the provider redirects back to Signet's callback. */
  const toCallback = async (browser: BrowserAgent, start: string, login: string): Promise<URL> => {
    let page = await browser.follow(start, { stopAt: isCallback })
    for (let step = 0; step < 5 && !isCallback(page.url); step++) {
      expect(page.status, page.text.slice(0, 300)).toBe(200)
      const prompt = /name="prompt" value="([a-z]+)"/.exec(page.text)?.[1]
      page = await browser.submit(page, prompt === "login" ? { login, password: "any" } : {}, { stopAt: isCallback })
    }
    expect(isCallback(page.url)).toBe(true)
    return page.url
  }

  /** The meta-refresh target of the callback's "Signed in" page. */
  const refreshTarget = (page: Page) => /http-equiv="refresh" content="0;url=([^"]+)"/.exec(page.text)?.[1]?.replace(/&#38;/g, "&")

  // A token issued to Signet's console: only the console may change how an account signs in (unlinking).
  const meOf = async (userId: string) => {
    const token = await env.engine.run(issueAccessToken({ sub: userId, clientId: CONSOLE_CLIENT_ID, scope: ["openid", "basic"] }))
    return { token: token.token, account: ok(await env.client.me(token.token)) as AccountWithIdentities }
  }

  describe("registration", () => {
    it("an administrator's registration fetched discovery for real: endpoints stored, secret never shown", async () => {
      const listed = await env.engine.run(listIdentityProviders({ kind: "admin" }))
      const mine = listed.find((p) => p.id === providerId)!
      expect(mine).toMatchObject({ issuer: op.issuer, clientId: op.clientId, name: "Example ID", ownerClientId: null, scopes: ["openid", "email", "profile"] })
      expect(JSON.stringify(listed)).not.toContain(op.clientSecret)
    })

    it("a discovery document that names another issuer is refused (422) and nothing is stored", async () => {
      const before = (await env.engine.run(listIdentityProviders({ kind: "admin" }))).length
      const refused = await env.engine.run(
        Effect.flip(
          registerIdentityProvider(
            { kind: "admin" },
            {
              issuer: impostorUrl,
              clientId: op.clientId,
              clientSecret: op.clientSecret,
              name: "Impostor",
            },
          ),
        ),
      )
      expect(refused.status).toBe(422)
      expect(refused.message).toBe(`Identity provider issuer mismatch: discovery names ${op.issuer}, not ${impostorUrl}`)
      expect((await env.engine.run(listIdentityProviders({ kind: "admin" }))).length).toBe(before)
    })

    it("issuers and the endpoints the engine calls pass the address guard (issue 13 item 15): internal ones are refused and nothing is stored", async () => {
      const before = (await env.engine.run(listIdentityProviders({ kind: "admin" }))).length
      const register = (issuer: string) =>
        env.engine.run(
          Effect.flip(
            registerIdentityProvider(
              { kind: "admin" },
              {
                issuer,
                clientId: op.clientId,
                clientSecret: op.clientSecret,
                name: "Internal",
              },
            ),
          ),
        )
      // (this engine has the loopback development switch on, so only loopback itself would pass)
      for (const issuer of [
        "https://metadata.google.internal./",
        "https://[2002:a9fe:a9fe::1]",
        "https://[fec0::1]",
        "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]",
        "https://[64:ff9b:1::a9fe:a9fe]",
        "https://169.254.169.254",
        "http://10.0.0.1",
      ]) {
        const refused = await register(issuer)
        expect([issuer, refused.status]).toEqual([issuer, 400])
        expect(refused.message).toMatch(/^issuer .*: providers must be at public https URLs$/)
      }
      // a provider whose discovery sends the engine's own calls to an internal address
      const inner = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            issuer: innerUrl,
            authorization_endpoint: `${innerUrl}/auth`,
            token_endpoint: "https://169.254.169.254/token",
            jwks_uri: `${innerUrl}/jwks`,
          }),
        )
      })
      await new Promise<void>((resolve) => inner.listen(0, "127.0.0.1", resolve))
      const innerUrl = `http://127.0.0.1:${(inner.address() as AddressInfo).port}`
      try {
        const refused = await register(innerUrl)
        expect(refused.status).toBe(502)
        expect(refused.message).toContain("points at a link-local address")
      } finally {
        await new Promise<void>((resolve) => inner.close(() => resolve()))
      }
      expect((await env.engine.run(listIdentityProviders({ kind: "admin" }))).length).toBe(before)
    })

    it("the RP contact account registers a provider for its RP over HTTP; other accounts get 403; the sign-in page lists it only for that RP", async () => {
      const contact = SoftwarePasskey.create({ origin: env.origin })
      const enrolled = await enrol(env.client, contact, { email: "contact@example.com" })
      await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId: enrolled.userId }))
      const token = (ok(await signIn(env.client, contact, { clientId: env.rp.clientId, email: "contact@example.com" })) as TokenAnswer).access_token
      const body = { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, name: "RP Partner ID", scopes: ["email"] }

      const wrongIssuer = await env.client.raw<ErrorBody>("POST", "/v2/identity-providers", {
        body: { ...body, issuer: impostorUrl },
        headers: { authorization: `Bearer ${token}` },
      })
      expect(wrongIssuer.status).toBe(422)

      const created = await env.client.raw<{ id: string; ownerClientId: string; scopes: Array<string> }>("POST", "/v2/identity-providers", {
        body,
        headers: { authorization: `Bearer ${token}` },
      })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ ownerClientId: env.rp.clientId, scopes: ["openid", "email"] })
      expect(JSON.stringify(created.body)).not.toContain(op.clientSecret)
      const listed = ok(await env.client.raw<Array<{ id: string }>>("GET", "/v2/identity-providers", { headers: { authorization: `Bearer ${token}` } }))
      expect(listed.map((p) => p.id)).toEqual([created.body.id])

      const other = SoftwarePasskey.create({ origin: env.origin })
      await enrol(env.client, other, { email: "not-contact@example.com" })
      const otherToken = (ok(await signIn(env.client, other, { clientId: env.rp.clientId, email: "not-contact@example.com" })) as TokenAnswer).access_token
      const forbidden = await env.client.raw<ErrorBody>("POST", "/v2/identity-providers", { body, headers: { authorization: `Bearer ${otherToken}` } })
      expect(forbidden.status).toBe(403)
      expect(forbidden.body).toEqual({ error: "Only the RP contact account can manage its identity providers" })

      const withRp = await (await fetch(`${api()}/signin?client_id=${env.rp.clientId}`)).text()
      const withoutRp = await (await fetch(`${api()}/signin`)).text()
      expect(withRp).toContain("RP Partner ID")
      expect(withRp).toContain("Example ID")
      expect(withoutRp).toContain("Example ID")
      expect(withoutRp).not.toContain("RP Partner ID")
      // Without the RP's client_id its provider cannot be started either.
      expect((await fetch(`${api()}/idp/${created.body.id}/start`, { redirect: "manual" })).status).toBe(404)

      const removed = await env.client.raw("DELETE", `/v2/identity-providers/${created.body.id}`, { headers: { authorization: `Bearer ${token}` } })
      expect(removed.status).toBe(200)
      expect(
        await env.engine.run(
          Effect.flip(removeIdentityProvider({ kind: "rp-contact", user: { userId: enrolled.userId, clientId: env.rp.clientId, scope: [] } }, providerId)),
        ),
      ).toMatchObject({ status: 404 })
    })
  })

  describe("sign-in through the external provider", () => {
    it("a new person signs in: redirect with state, nonce and PKCE S256; a new account linked to the external identity; a hosted session; back at return_to", async () => {
      const browser = new BrowserAgent()
      const signinPage = await (await fetch(`${api()}/signin?return_to=${encodeURIComponent("/api/?after=idp")}`)).text()
      const start = /href="([^"]*\/idp\/[^"]*\/start[^"]*)"/.exec(signinPage)![1]!.replace(/&#38;/g, "&")
      const first = await browser.request(new URL(start, env.origin))
      expect(first.status).toBe(302)
      const authorize = new URL(first.headers.get("location")!)
      expect(authorize.origin).toBe(op.issuer)
      expect(authorize.searchParams.get("code_challenge_method")).toBe("S256")
      for (const p of ["state", "nonce", "code_challenge"]) expect(authorize.searchParams.get(p)?.length).toBeGreaterThanOrEqual(43)
      expect(authorize.searchParams.get("redirect_uri")).toBe(`${api()}/idp/callback`)

      const callback = await toCallback(browser, start.startsWith("http") ? start : new URL(start, env.origin).toString(), "ext-ada")
      const landed = await browser.request(callback)
      expect(landed.status).toBe(200)
      expect(refreshTarget(landed)).toBe("/api/?after=idp")
      const session = browser.cookies(env.origin).get("signet_session")
      expect(session).toBeDefined()
      const userId = Option.getOrThrow(await env.engine.run(signedInUserOf(session)))
      const home = await browser.request(new URL(refreshTarget(landed)!, env.origin))
      expect(home.status).toBe(200)

      const { account } = await meOf(userId)
      expect(account.email).toBe("ada.external@example.com")
      expect(account.displayName).toBe("Ada External")
      expect(account.passkeys).toEqual([])
      expect(account.identities).toEqual([expect.objectContaining({ providerId, issuer: op.issuer, subject: "ext-ada", email: "ada.external@example.com" })])

      // The same external identity signs in to the same account next time, in another browser.
      const again = new BrowserAgent()
      const back = await again.request(await toCallback(again, `${api()}/idp/${providerId}/start`, "ext-ada"))
      expect(back.status).toBe(200)
      expect(Option.getOrThrow(await env.engine.run(signedInUserOf(again.cookies(env.origin).get("signet_session"))))).toBe(userId)
      expect((await meOf(userId)).account.identities).toHaveLength(1)
    })

    it("a replayed callback is refused, and so is a state the engine did not issue or one from another browser", async () => {
      const browser = new BrowserAgent()
      const callback = await toCallback(browser, `${api()}/idp/${providerId}/start`, "ext-ada")

      const forged = new URL(callback)
      forged.searchParams.set("state", "A".repeat(43))
      const mismatch = await browser.request(forged)
      expect(mismatch.status).toBe(400)
      expect(JSON.parse(mismatch.text)).toEqual({ error: "External sign-in state mismatch or already used" })

      // The right state without the browser-binding cookie (a login CSRF attempt) is refused and uses the state up.
      const elsewhere = await new BrowserAgent().request(callback)
      expect(elsewhere.status).toBe(400)
      expect(JSON.parse(elsewhere.text)).toEqual({ error: "External sign-in state mismatch or already used" })
      const after = await browser.request(callback)
      expect(after.status).toBe(400)

      const fresh = new BrowserAgent()
      const good = await toCallback(fresh, `${api()}/idp/${providerId}/start`, "ext-ada")
      expect((await fresh.request(good)).status).toBe(200)
      const replay = await fresh.request(good)
      expect(replay.status).toBe(400)
      expect(JSON.parse(replay.text)).toEqual({ error: "External sign-in state mismatch or already used" })
    })

    it("an existing account with the same verified e-mail is not linked silently: its passkey must confirm, then the link exists", async () => {
      const passkey = SoftwarePasskey.create({ origin: env.origin })
      const grace = await enrol(env.client, passkey, { email: "grace@example.com" })
      const browser = new BrowserAgent()
      const callback = await toCallback(browser, `${api()}/idp/${providerId}/start?return_to=${encodeURIComponent("/api/signin")}`, "ext-grace")
      const answer = await browser.request(callback)
      expect(answer.status).toBe(303)
      const linkPage = new URL(answer.headers.get("location")!, env.origin)
      expect(linkPage.pathname).toBe("/api/idp/link")
      // Not signed in, not linked.
      expect(browser.cookies(env.origin).has("signet_session")).toBe(false)
      expect((await meOf(grace.userId)).account.identities).toEqual([])

      const offerId = linkPage.searchParams.get("offer")!
      expect((await browser.request(linkPage)).status).toBe(200)
      const session = JSON.parse((await browser.request(`${api()}/session`)).text) as { csrfToken: string }
      const csrf = { "x-csrf-token": session.csrfToken }
      // Another browser cannot take over the offer.
      expect((await new BrowserAgent().request(`${api()}/idp/link/request`, { json: { offerId } })).status).toBe(410)

      const started = JSON.parse((await browser.request(`${api()}/idp/link/request`, { json: { offerId }, headers: csrf })).text)
      expect(started).toMatchObject({ email: "grace@example.com", provider: "Example ID" })
      // Someone else's passkey does not confirm it.
      const mallory = SoftwarePasskey.create({ origin: env.origin })
      await enrol(env.client, mallory, { email: "mallory@example.com" })
      const wrong = await browser.request(`${api()}/idp/link/confirm`, {
        json: { offerId, signinId: started.signinId, assertion: mallory.assert(started.options) },
        headers: csrf,
      })
      expect(wrong.status).toBe(403)
      expect(JSON.parse(wrong.text)).toEqual({ error: "Credential not registered" })
      expect((await meOf(grace.userId)).account.identities).toEqual([])
      // That challenge is used up: even Grace's own passkey cannot answer it now.
      const reused = await browser.request(`${api()}/idp/link/confirm`, {
        json: { offerId, signinId: started.signinId, assertion: passkey.assert(started.options) },
        headers: csrf,
      })
      expect(reused.status).toBe(410)

      const retry = JSON.parse((await browser.request(`${api()}/idp/link/request`, { json: { offerId }, headers: csrf })).text)
      const confirmed = await browser.request(`${api()}/idp/link/confirm`, {
        json: { offerId, signinId: retry.signinId, assertion: passkey.assert(retry.options) },
        headers: csrf,
      })
      expect(confirmed.status, confirmed.text).toBe(200)
      expect(JSON.parse(confirmed.text)).toEqual({ userId: grace.userId, returnTo: "/api/signin" })
      expect(Option.getOrThrow(await env.engine.run(signedInUserOf(browser.cookies(env.origin).get("signet_session"))))).toBe(grace.userId)
      const { account, token } = await meOf(grace.userId)
      expect(account.identities).toEqual([expect.objectContaining({ subject: "ext-grace", issuer: op.issuer })])

      // From now on the external identity signs Grace in directly; and she can unlink it.
      const later = new BrowserAgent()
      expect((await later.request(await toCallback(later, `${api()}/idp/${providerId}/start`, "ext-grace"))).status).toBe(200)
      expect(Option.getOrThrow(await env.engine.run(signedInUserOf(later.cookies(env.origin).get("signet_session"))))).toBe(grace.userId)
      // An RP's token for Grace cannot unlink it (nor add a passkey): that is the console's.
      const rpToken = (await env.engine.run(issueAccessToken({ sub: grace.userId, clientId: env.rp.clientId, scope: ["openid", "basic"] }))).token
      expect(
        (await env.client.raw("DELETE", `/v2/me/identities/${account.identities[0]!.id}`, { headers: { authorization: `Bearer ${rpToken}` } })).status,
      ).toBe(403)
      const unlinked = await env.client.raw("DELETE", `/v2/me/identities/${account.identities[0]!.id}`, { headers: { authorization: `Bearer ${token}` } })
      expect(unlinked.status).toBe(200)
      expect((await meOf(grace.userId)).account.identities).toEqual([])
      const again = await env.client.raw<ErrorBody>("DELETE", `/v2/me/identities/${account.identities[0]!.id}`, {
        headers: { authorization: `Bearer ${token}` },
      })
      expect(again.body).toEqual({ error: "Linked identity not found" })
    })

    it("a signed-in user links a provider explicitly (intent=link), and a provider without a verified e-mail creates no account", async () => {
      const passkey = SoftwarePasskey.create({ origin: env.origin })
      const user = await enrol(env.client, passkey, { email: "linker@example.com" })
      // A signed-in hosted session, made the way every sign-in makes one.
      const browser = new BrowserAgent()
      const session = await env.engine.run(openSignedInSession(user.userId, "passkey"))
      browser.cookies(env.origin).set("signet_session", session.sessionId)
      const back = await browser.request(await toCallback(browser, `${api()}/idp/${providerId}/start?intent=link`, "ext-unverified"))
      expect(back.status).toBe(200)
      expect((await meOf(user.userId)).account.identities).toEqual([expect.objectContaining({ subject: "ext-unverified" })])

      // The same external identity cannot also be linked to another account.
      const other = await enrol(env.client, SoftwarePasskey.create({ origin: env.origin }), { email: "other-linker@example.com" })
      const otherBrowser = new BrowserAgent()
      otherBrowser.cookies(env.origin).set("signet_session", (await env.engine.run(openSignedInSession(other.userId, "passkey"))).sessionId)
      const taken = await otherBrowser.request(await toCallback(otherBrowser, `${api()}/idp/${providerId}/start?intent=link`, "ext-unverified"))
      expect(taken.status).toBe(409)

      // intent=link without a signed-in session is refused before leaving Signet.
      expect((await new BrowserAgent().request(`${api()}/idp/${providerId}/start?intent=link`)).status).toBe(400)
      // Unverified e-mail, no link, not signed in: no account is created.
      const anonymous = new BrowserAgent()
      // Unlink first so the identity is free again.
      const linked = await meOf(user.userId)
      await env.client.raw("DELETE", `/v2/me/identities/${linked.account.identities[0]!.id}`, { headers: { authorization: `Bearer ${linked.token}` } })
      const refused = await anonymous.request(await toCallback(anonymous, `${api()}/idp/${providerId}/start`, "ext-unverified"))
      expect(refused.status).toBe(403)
      expect(anonymous.cookies(env.origin).has("signet_session")).toBe(false)
    })

    it("return_to must be a same-origin relative path", async () => {
      for (const bad of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"]) {
        const answer = await fetch(`${api()}/idp/${providerId}/start?return_to=${encodeURIComponent(bad)}`, { redirect: "manual" })
        expect(answer.status, bad).toBe(400)
        expect(await answer.json()).toEqual({ error: "return_to must be a relative path on this origin" })
      }
    })
  })
  // Issue 13: accounts that cannot be taken.
  describe("accounts that cannot be taken", () => {
    it("item 2: an account the provider made has no passkey, and an e-mail alone attaches no stranger's passkey; its owner adds one from the provider's session", async () => {
      const browser = new BrowserAgent()
      expect((await browser.request(await toCallback(browser, `${api()}/idp/${providerId}/start`, "ext-victim"))).status).toBe(200)
      const victimId = Option.getOrThrow(await env.engine.run(signedInUserOf(browser.cookies(env.origin).get("signet_session"))))
      expect((await meOf(victimId)).account.passkeys).toEqual([])

      // The attack as reported: POST /enrolment/request { email } with no token.
      const refused = await env.client.enrolmentRequest({ email: "victim@example.com" })
      expect(refused).toMatchObject({
        status: 403,
        body: { error: "Verify this e-mail address first (POST /enrolment/email), or sign in to add a passkey to your own account" },
      })
      // A verification the attacker started but cannot answer proves nothing; five wrong codes end it for good.
      const asked = ok(await env.client.enrolmentEmail({ email: "victim@example.com" }))
      expect((await env.client.enrolmentRequest({ email: "victim@example.com", emailVerificationId: asked.verificationId })).status).toBe(403)
      for (let i = 0; i < 5; i++) {
        expect((await env.client.enrolmentEmailVerify({ verificationId: asked.verificationId, code: String(10_000_000 + i) })).status).toBe(400)
      }
      const right = await env.codeFor("victim@example.com")
      expect(await env.client.enrolmentEmailVerify({ verificationId: asked.verificationId, code: right })).toMatchObject({
        status: 400,
        body: { error: "E-mail verification code is wrong, used or expired" },
      })
      // Another account's token is no proof of this one either.
      const stranger = SoftwarePasskey.create({ origin: env.origin })
      await enrol(env.client, stranger, { email: "stranger@example.com" })
      const strangerToken = (ok(await signIn(env.client, stranger, { clientId: env.rp.clientId })) as TokenAnswer).access_token
      expect((await env.client.enrolmentRequest({ email: "victim@example.com" }, strangerToken)).status).toBe(403)
      expect((await meOf(victimId)).account.passkeys).toEqual([])

      // The owner, signed in through the provider (the hosted session), enrols a passkey on the hosted page's API.
      const csrf = { "x-csrf-token": (JSON.parse((await browser.request(`${api()}/session`)).text) as { csrfToken: string }).csrfToken }
      const started = JSON.parse((await browser.request(`${api()}/enrolment/request`, { json: { email: "victim@example.com" }, headers: csrf })).text)
      const own = SoftwarePasskey.create({ origin: env.origin })
      const stored = await browser.request(`${api()}/enrolment/verify`, {
        json: { enrolmentId: started.enrolmentId, credential: own.register(started.options) },
        headers: csrf,
      })
      expect(stored.status, stored.text).toBe(200)
      expect(JSON.parse(stored.text)).toMatchObject({ userId: victimId })
      expect((await meOf(victimId)).account.passkeys).toHaveLength(1)
    })

    it("item 2: proving the e-mail is the account's own proof; the proof is used up by the one passkey it let in", async () => {
      const browser = new BrowserAgent()
      expect((await browser.request(await toCallback(browser, `${api()}/idp/${providerId}/start`, "ext-victim"))).status).toBe(200)
      const victimId = Option.getOrThrow(await env.engine.run(signedInUserOf(browser.cookies(env.origin).get("signet_session"))))
      const verificationId = await proveEmail(env.client, "victim@example.com")
      const started = ok(await env.client.enrolmentRequest({ email: "victim@example.com", emailVerificationId: verificationId }))
      const second = SoftwarePasskey.create({ origin: env.origin })
      expect(ok(await env.client.enrolmentVerify({ enrolmentId: started.enrolmentId, credential: second.register(started.options) })).userId).toBe(victimId)
      // The same proof does not let a third passkey in.
      const again = await env.client.enrolmentRequest({ email: "victim@example.com", emailVerificationId: verificationId })
      expect(again.status).toBe(403)
    })

    it("item 5: an RP contact's own provider cannot open an account for an e-mail it claims; the owner's enrolment is theirs alone", async () => {
      const contact = SoftwarePasskey.create({ origin: env.origin })
      const enrolled = await enrol(env.client, contact, { email: "rp-contact@example.com" })
      await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId: enrolled.userId }))
      const token = (ok(await signIn(env.client, contact, { clientId: env.rp.clientId, email: "rp-contact@example.com" })) as TokenAnswer).access_token
      const registered = await env.client.raw<{ id: string }>("POST", "/v2/identity-providers", {
        body: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, name: "RP's own ID" },
        headers: { authorization: `Bearer ${token}` },
      })
      expect(registered.status).toBe(201)
      const rpProvider = registered.body.id

      // The RP's provider claims later-owner@example.com (email_verified: true): no account is made, nobody is signed in.
      const rpBrowser = new BrowserAgent()
      const claimed = await rpBrowser.request(await toCallback(rpBrowser, `${api()}/idp/${rpProvider}/start?client_id=${env.rp.clientId}`, "ext-preclaim"))
      expect(claimed.status).toBe(403)
      expect(JSON.parse(claimed.text)).toEqual({
        error: "This identity provider belongs to one relying party and cannot create Signet accounts; enrol with a passkey, then link it from your account",
      })
      expect(rpBrowser.cookies(env.origin).has("signet_session")).toBe(false)

      // The real owner enrols later: a fresh account with no link, which the RP's provider cannot sign in to.
      const owner = SoftwarePasskey.create({ origin: env.origin })
      const mine = await enrol(env.client, owner, { email: "later-owner@example.com" })
      expect((await meOf(mine.userId)).account.identities).toEqual([])
      const later = new BrowserAgent()
      const offer = await later.request(await toCallback(later, `${api()}/idp/${rpProvider}/start?client_id=${env.rp.clientId}`, "ext-preclaim"))
      // Same e-mail: at most a link offer that the owner's own passkey would have to confirm.
      expect(offer.status).toBe(303)
      expect(later.cookies(env.origin).has("signet_session")).toBe(false)
      expect((await meOf(mine.userId)).account.identities).toEqual([])
      await env.client.raw("DELETE", `/v2/identity-providers/${rpProvider}`, { headers: { authorization: `Bearer ${token}` } })
    })
  })
})
