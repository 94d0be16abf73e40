/**
 * The OpenID provider against `openid-client` (panva's certified relying-party library): the
 * authorization code flow with PKCE, the hosted sign-in driven over HTTP with a software
 * passkey, token exchange, ID-token validation, userinfo, refresh rotation with reuse
 * detection, revocation, key rotation and RP-initiated logout; on SQLite and PostgreSQL.
 */
import { administerRelyingParty, openSignedInSession, registerRelyingParty, rotateSigningKey } from "@signet/core"
import { enrol, ok, SoftwarePasskey, type ErrorBody, type TokenAnswer } from "@signet/testkit"
import { StoragePostgres } from "@signet/adapters-postgres"
import { findPostgres, withFreshSchema } from "@signet/testkit/storage"
import * as client from "openid-client"
import { ManualClock } from "@signet/testkit/models"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

const postgres = await findPostgres()
const STORAGES: ReadonlyArray<readonly [string, string | undefined]> = [["SQLite", undefined], ...(postgres ? [["PostgreSQL", postgres] as const] : [])]

const CALLBACK = "http://127.0.0.1:8123/callback"
const AFTER_LOGOUT = "http://127.0.0.1:8123/signed-out"

/** A user agent over plain HTTP: keeps the session cookie, follows nothing by itself. */
class Agent {
  cookie: string | undefined
  csrf: string | undefined
  constructor(readonly origin: string) {}

  async get(url: string): Promise<Response> {
    return fetch(new URL(url, this.origin), { redirect: "manual", headers: this.cookie ? { cookie: this.cookie } : {} })
  }

  /** What the hosted page's script does: open a session (cookie + CSRF token) once, then POST JSON with both. */
  async post<T>(path: string, body: unknown): Promise<{ status: number; body: T }> {
    if (this.csrf === undefined) {
      const r = await this.get("/api/session")
      this.cookie = r.headers.getSetCookie()[0]!.split(";")[0]
      this.csrf = ((await r.json()) as { csrfToken: string }).csrfToken
    }
    const r = await fetch(new URL(`/api${path}`, this.origin), {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/json", cookie: this.cookie!, "x-csrf-token": this.csrf },
      body: JSON.stringify(body),
    })
    return { status: r.status, body: (await r.json()) as T }
  }
}

describe.each(STORAGES)("openid-client against Signet on %s", (_name, databaseUrl) => {
  let env: RunningEngine
  let clientId: string
  let clientSecret: string
  let issuer: URL
  // The engine's clock: the real time at the start of each test, moved by the expiry test.
  const clock = new ManualClock(Date.now())
  beforeEach(() => {
    clock.now = Date.now()
  })

  beforeAll(async () => {
    env = await startEngine({
      clock,
      deliveries: { worker: false },
      ...(databaseUrl === undefined ? {} : { storage: withFreshSchema(databaseUrl, StoragePostgres) }),
    })
    const rp = await env.engine.run(
      registerRelyingParty({
        name: "Acme Bank",
        status: "approved",
        signingOrigins: [env.origin],
        redirectUris: [CALLBACK],
        postLogoutRedirectUris: [AFTER_LOGOUT],
      }),
    )
    clientId = rp.rp.clientId
    clientSecret = rp.clientSecret
    issuer = new URL(`${env.origin}/api`)
  })
  afterAll(async () => env?.stop())

  const discover = (auth: client.ClientAuth = client.ClientSecretBasic(clientSecret)) =>
    client.discovery(issuer, clientId, undefined, auth, { execute: [client.allowInsecureRequests] })

  const newUser = async (email: string, displayName: string) => {
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    const enrolled = await enrol(env.client, passkey, { email, displayName })
    return { passkey, userId: enrolled.userId, agent: new Agent(env.origin) }
  }

  /** Sign-in on the hosted page as its script does it: request, passkey assertion, verify (which signs the session in). */
  const signInOnPage = async (agent: Agent, passkey: SoftwarePasskey, forClient = clientId) => {
    const started = await agent.post<{ signinId: string; options: { challenge: string; rpId?: string } }>("/signin/request", { clientId: forClient })
    expect(started.status).toBe(200)
    const verified = await agent.post<TokenAnswer>("/signin/verify", { signinId: started.body.signinId, assertion: passkey.assert(started.body.options) })
    expect(verified.status).toBe(200)
  }

  /**
   * Follows an authorization URL the way a browser and the hosted pages would: to the sign-in
   * page if nobody is signed in, then the consent page if needed, and answers with the RP callback URL.
   */
  const authorizeInBrowser = async (agent: Agent, passkey: SoftwarePasskey, url: URL, consent: "allow" | "deny" = "allow") => {
    const forClient = url.searchParams.get("client_id")!
    let r = await agent.get(url.toString())
    if (r.status === 302 && new URL(r.headers.get("location")!, env.origin).pathname === "/api/signin") {
      const signin = new URL(r.headers.get("location")!, env.origin)
      expect(signin.searchParams.get("client_id")).toBe(forClient)
      const back = signin.searchParams.get("return_to")!
      expect(back.startsWith("/api/authorize?")).toBe(true)
      const signinPage = await agent.get(signin.toString())
      expect(await signinPage.text()).toContain('id="enrol-link"')
      await signInOnPage(agent, passkey, forClient)
      r = await agent.get(back)
    }
    if (r.status === 200) {
      const html = await r.text()
      expect(html).toContain("Allow Acme Bank?")
      const request = /name="request" value="([^"]*)"/.exec(html)![1]!.replace(/&#38;/g, "&")
      const answer = await agent.post<{ redirectTo: string }>("/authorize/consent", { request, decision: consent })
      expect(answer.status).toBe(200)
      return new URL(answer.body.redirectTo)
    }
    expect(r.status).toBe(302)
    return new URL(r.headers.get("location")!)
  }

  /** A complete authorization: PKCE, state, nonce; the code exchanged by openid-client. */
  const codeFlow = async (config: client.Configuration, user: { agent: Agent; passkey: SoftwarePasskey }, scope = "openid basic email profile") => {
    const verifier = client.randomPKCECodeVerifier()
    const state = client.randomState()
    const nonce = client.randomNonce()
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope,
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    })
    const callback = await authorizeInBrowser(user.agent, user.passkey, url)
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce })
    return { tokens, callback, nonce }
  }

  const me = (accessToken: string) => env.client.me(accessToken)

  it("completes the code flow with PKCE: discovery, passkey sign-in, consent, token, validated ID token, userinfo, /v2/me", async () => {
    const config = await discover()
    expect(config.serverMetadata()).toMatchObject({
      issuer: `${env.origin}/api`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    })
    const user = await newUser("ada@example.com", "Ada Lovelace")
    const { tokens, callback, nonce } = await codeFlow(config, user)
    expect(callback.origin + callback.pathname).toBe(CALLBACK)
    expect(callback.searchParams.get("iss")).toBe(`${env.origin}/api`)
    expect(tokens.token_type).toBe("bearer")
    expect(tokens.refresh_token).toMatch(/^[\w-]{43}$/)
    const claims = tokens.claims()!
    expect(claims).toMatchObject({
      iss: `${env.origin}/api`,
      aud: clientId,
      sub: user.userId,
      nonce,
      email: "ada@example.com",
      name: "Ada Lovelace",
      amr: ["hwk", "user"],
    })
    expect(typeof claims.auth_time).toBe("number")
    expect(typeof claims.at_hash).toBe("string")
    const info = await client.fetchUserInfo(config, tokens.access_token, user.userId)
    expect(info).toMatchObject({ sub: user.userId, email: "ada@example.com", name: "Ada Lovelace" })
    const account = await me(tokens.access_token)
    expect(account.status).toBe(200)
    expect(account.body).toMatchObject({ sub: user.userId, clientId })
  })

  it("remembers consent and the hosted session: a second authorization goes straight back with a code (client_secret_post)", async () => {
    const user = await newUser("grace@example.com", "Grace Hopper")
    const config = await discover(client.ClientSecretPost(clientSecret))
    await codeFlow(config, user)
    const verifier = client.randomPKCECodeVerifier()
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: "openid basic",
      state: "s2",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    })
    const r = await user.agent.get(url.toString())
    expect(r.status).toBe(302)
    const callback = new URL(r.headers.get("location")!)
    expect(callback.searchParams.get("state")).toBe("s2")
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: "s2" })
    expect(tokens.claims()!.sub).toBe(user.userId)
    expect(tokens.claims()!.email).toBeUndefined()
  })

  it("rotates refresh tokens; a rotated one presented again revokes the whole family, access tokens included", async () => {
    const config = await discover()
    const user = await newUser("refresh@example.com", "Re Fresh")
    const { tokens } = await codeFlow(config, user)
    const second = await client.refreshTokenGrant(config, tokens.refresh_token!)
    expect(second.refresh_token).not.toBe(tokens.refresh_token)
    expect(second.claims()!.sub).toBe(user.userId)
    expect((await me(second.access_token)).status).toBe(200)

    const reuse = await client.refreshTokenGrant(config, tokens.refresh_token!).catch((e: unknown) => e)
    expect(reuse).toBeInstanceOf(client.ResponseBodyError)
    expect((reuse as client.ResponseBodyError).error).toBe("invalid_grant")
    // The legitimate holder's newer token and its access token are gone too.
    const after = await client.refreshTokenGrant(config, second.refresh_token!).catch((e: unknown) => e)
    expect((after as client.ResponseBodyError).error).toBe("invalid_grant")
    const refused = await me(second.access_token)
    expect(refused.status).toBe(401)
    expect((refused.body as ErrorBody).error).toBe("Invalid or expired token")
  })

  // Issue 13, item 16: a refresh token presented at the wrong client was used up before the client
  // check, so the rightful client's next refresh looked like reuse and revoked its whole grant.
  it("a refresh token presented by another client is refused without being used up; the rightful client's grant survives", async () => {
    const config = await discover()
    const user = await newUser("wrong-client@example.com", "Wrong Client")
    const { tokens } = await codeFlow(config, user)
    const other = await env.engine.run(registerRelyingParty({ name: "Other Bank", status: "approved", signingOrigins: [env.origin], redirectUris: [CALLBACK] }))
    const stolen = await fetch(`${env.origin}/api/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${other.rp.clientId}:${other.clientSecret}`)}` },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token! }).toString(),
    })
    expect(stolen.status).toBe(400)
    expect(await stolen.json()).toMatchObject({ error: "invalid_grant" })
    // The rightful client refreshes as if nothing happened, and its access tokens still work.
    expect((await me(tokens.access_token)).status).toBe(200)
    const next = await client.refreshTokenGrant(config, tokens.refresh_token!)
    expect(next.claims()!.sub).toBe(user.userId)
    expect((await me(next.access_token)).status).toBe(200)
  })

  it("revokes access and refresh tokens (RFC 7009)", async () => {
    const config = await discover()
    const user = await newUser("revoke@example.com", "Re Voke")
    const { tokens } = await codeFlow(config, user)
    await client.tokenRevocation(config, tokens.access_token, { token_type_hint: "access_token" })
    expect((await me(tokens.access_token)).body).toEqual({ error: "Invalid or expired token" })
    await client.tokenRevocation(config, tokens.refresh_token!)
    const refresh = await client.refreshTokenGrant(config, tokens.refresh_token!).catch((e: unknown) => e)
    expect((refresh as client.ResponseBodyError).error).toBe("invalid_grant")
    // Unknown tokens answer 200 and change nothing (RFC 7009 §2.2).
    await client.tokenRevocation(config, "not-a-token")
  })

  it("refuses a wrong PKCE verifier, a reused code (revoking what the first exchange gave) and an unregistered redirect_uri", async () => {
    const config = await discover()
    const user = await newUser("neg@example.com", "Neg Ative")
    const verifier = client.randomPKCECodeVerifier()
    const url = () =>
      client.calculatePKCECodeChallenge(verifier).then((challenge) =>
        client.buildAuthorizationUrl(config, {
          redirect_uri: CALLBACK,
          scope: "openid basic",
          state: "st",
          code_challenge: challenge,
          code_challenge_method: "S256",
        }),
      )
    const wrong = await authorizeInBrowser(user.agent, user.passkey, await url())
    const bad = await client
      .authorizationCodeGrant(config, wrong, { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: "st" })
      .catch((e: unknown) => e)
    expect((bad as client.ResponseBodyError).error).toBe("invalid_grant")
    expect((bad as client.ResponseBodyError).error_description).toBe("code_verifier does not match the code_challenge")

    const good = await authorizeInBrowser(user.agent, user.passkey, await url())
    const first = await client.authorizationCodeGrant(config, good, { pkceCodeVerifier: verifier, expectedState: "st" })
    expect((await me(first.access_token)).status).toBe(200)
    const again = await client.authorizationCodeGrant(config, good, { pkceCodeVerifier: verifier, expectedState: "st" }).catch((e: unknown) => e)
    expect((again as client.ResponseBodyError).error_description).toBe("authorization code was already used")
    expect((await me(first.access_token)).body).toEqual({ error: "Invalid or expired token" })

    const elsewhere = new URL((await url()).toString())
    elsewhere.searchParams.set("redirect_uri", "http://127.0.0.1:8123/callback/evil")
    const r = await user.agent.get(elsewhere.toString())
    expect(r.status).toBe(400)
    expect(r.headers.get("location")).toBeNull()
    expect(await r.text()).toContain("redirect_uri is not registered for this client")
  })

  it("answers request errors at the redirect URI with state and iss: no PKCE, prompt=none without a session", async () => {
    const config = await discover()
    const agent = new Agent(env.origin)
    const noPkce = client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: "openid", state: "x1" })
    let r = await agent.get(noPkce.toString())
    let back = new URL(r.headers.get("location")!)
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: "invalid_request",
      error_description: "code_challenge is required (PKCE with S256)",
      state: "x1",
      iss: `${env.origin}/api`,
    })
    const silent = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: "openid",
      state: "x2",
      prompt: "none",
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: "S256",
    })
    r = await agent.get(silent.toString())
    back = new URL(r.headers.get("location")!)
    expect(back.searchParams.get("error")).toBe("login_required")
    expect(back.searchParams.get("state")).toBe("x2")
  })

  it("a token without the basic scope and a client-credentials token are refused by /v2/*", async () => {
    const config = await discover()
    const user = await newUser("scope@example.com", "Sco Pe")
    const { tokens } = await codeFlow(config, user, "openid email")
    const narrow = await me(tokens.access_token)
    expect(narrow.status).toBe(403)
    expect((narrow.body as ErrorBody).error).toBe("Token lacks required scope: basic")
    expect((await client.fetchUserInfo(config, tokens.access_token, user.userId)).email).toBe("scope@example.com")

    const backend = await client.clientCredentialsGrant(config, { scope: "basic" })
    const refused = await me(backend.access_token)
    expect(refused.status).toBe(401)
    expect((refused.body as ErrorBody).error).toBe("Token missing subject claim")
    expect(ok(await env.client.clientToken(clientId, clientSecret))).toMatchObject({ token_type: "Bearer" })
  })

  const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString()) as { alg: string; kid: string }

  /** Another approved RP with the same callback, its ID tokens signed with `alg` (undefined: registered without a choice). */
  const registerClient = async (alg: "RS256" | "ES256" | undefined) => {
    const created = await env.engine.run(
      registerRelyingParty({
        name: "Acme Bank",
        status: "approved",
        signingOrigins: [env.origin],
        redirectUris: [CALLBACK],
        postLogoutRedirectUris: [AFTER_LOGOUT],
        ...(alg === undefined ? {} : { idTokenSignedResponseAlg: alg }),
      }),
    )
    return created
  }

  it.each(["RS256", "ES256"] as const)(
    "a client registered for %s ID tokens: discovery lists it, the code flow's ID token is signed with it and openid-client validates it",
    async (alg) => {
      const created = await registerClient(alg)
      // openid-client refuses an ID token whose alg differs from the client's registered id_token_signed_response_alg.
      const config = await client.discovery(
        issuer,
        created.rp.clientId,
        { id_token_signed_response_alg: alg },
        client.ClientSecretBasic(created.clientSecret),
        { execute: [client.allowInsecureRequests] },
      )
      expect(config.serverMetadata().id_token_signing_alg_values_supported).toEqual(["RS256", "ES256"])
      const user = await newUser(`${alg.toLowerCase()}@example.com`, `Alg ${alg}`)
      const { tokens, nonce } = await codeFlow(config, user)
      expect(headerOf(tokens.id_token!)).toMatchObject({ alg, kid: alg === "RS256" ? "sandbox/id-token-rs256/1" : "sandbox/access-token/1" })
      expect(tokens.claims()).toMatchObject({ aud: created.rp.clientId, sub: user.userId, nonce })
      // Access tokens stay ES256 whatever the client's ID-token algorithm.
      expect(headerOf(tokens.access_token).alg).toBe("ES256")
      const jwks = ok(await env.client.raw<{ keys: Array<Record<string, string>> }>("GET", "/.well-known/jwks.json"))
      expect(jwks.keys.find((k) => k["kid"] === headerOf(tokens.id_token!).kid)).toMatchObject({ kty: alg === "RS256" ? "RSA" : "EC", alg, use: "sig" })
      // The same token with the other algorithm pinned is refused by the RP library: the algorithm is the client's, not a guess.
      const other = await client.discovery(
        issuer,
        created.rp.clientId,
        { id_token_signed_response_alg: alg === "RS256" ? "ES256" : "RS256" },
        client.ClientSecretBasic(created.clientSecret),
        { execute: [client.allowInsecureRequests] },
      )
      const refused = await codeFlow(other, user).then(
        () => undefined,
        (e: unknown) => e as { cause?: { message?: string } },
      )
      expect(refused?.cause?.message).toBe('unexpected JWT "alg" header parameter')
    },
  )

  it("an RP registered without a choice gets RS256 ID tokens (the OIDC default); switching it to ES256 takes effect at the next token", async () => {
    const created = await registerClient(undefined)
    expect(created.rp.idTokenSignedResponseAlg).toBe("RS256")
    const config = await client.discovery(issuer, created.rp.clientId, undefined, client.ClientSecretBasic(created.clientSecret), {
      execute: [client.allowInsecureRequests],
    })
    const user = await newUser("default-alg@example.com", "De Fault")
    expect(headerOf((await codeFlow(config, user)).tokens.id_token!).alg).toBe("RS256")
    await env.engine.run(administerRelyingParty(created.rp.clientId, { _tag: "SetIdTokenAlgorithm", alg: "ES256" }))
    expect(headerOf((await codeFlow(config, user)).tokens.id_token!).alg).toBe("ES256")
  })

  it("rotates the signing keys of both algorithms: the JWKS publishes both generations, old tokens still verify, new ID tokens validate", async () => {
    const user = await newUser("keys@example.com", "Key Holder")
    const es = await registerClient("ES256")
    const esConfig = await client.discovery(issuer, es.rp.clientId, { id_token_signed_response_alg: "ES256" }, client.ClientSecretBasic(es.clientSecret), {
      execute: [client.allowInsecureRequests],
    })
    const before = await codeFlow(await discover(), user)
    const esBefore = await codeFlow(esConfig, user)
    const rotated = await env.engine.run(rotateSigningKey)
    const jwks = ok(await env.client.raw<{ keys: Array<{ kid: string; kty: string }> }>("GET", "/.well-known/jwks.json"))
    expect(jwks.keys.map((k) => k.kid)).toEqual(rotated.published)
    expect(jwks.keys.map((k) => k.kty)).toEqual(["EC", "RSA", "EC", "RSA"])
    expect((await me(before.tokens.access_token)).status).toBe(200)
    // An ID token of the previous generation still names its user at logout (a hint that does not verify gets a 400 page).
    const logout = (config: client.Configuration, idToken: string) =>
      user.agent.get(client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: AFTER_LOGOUT, state: "old" }).toString())
    expect((await logout(esConfig, esBefore.tokens.id_token!)).headers.get("location")).toBe(`${AFTER_LOGOUT}?state=old`)
    const after = await codeFlow(await discover(), user)
    expect(headerOf(after.tokens.id_token!).kid).toBe(rotated.currentRs256)
    expect(after.tokens.claims()!.sub).toBe(user.userId)
    expect((await logout(await discover(), before.tokens.id_token!)).headers.get("location")).toBe(`${AFTER_LOGOUT}?state=old`)
    const esAfter = await codeFlow(esConfig, user)
    expect(headerOf(esAfter.tokens.id_token!).kid).toBe(rotated.current)
  })

  it("RP-initiated logout ends the hosted session and returns to the registered address with state", async () => {
    const config = await discover()
    const user = await newUser("logout@example.com", "Log Out")
    const { tokens } = await codeFlow(config, user)
    const end = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: AFTER_LOGOUT, state: "bye" })
    const r = await user.agent.get(end.toString())
    expect(r.status).toBe(302)
    expect(r.headers.get("location")).toBe(`${AFTER_LOGOUT}?state=bye`)
    const again = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: "openid",
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: "S256",
    })
    const next = await user.agent.get(again.toString())
    expect(new URL(next.headers.get("location")!, env.origin).pathname).toBe("/api/signin")
    const elsewhere = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: "https://evil.example/" })
    expect((await user.agent.get(elsewhere.toString())).status).toBe(400)
  })

  it("a logout request without the user's ID token asks the user first (Logout 1.0 §2): a link alone signs no one out", async () => {
    const config = await discover()
    const user = await newUser("ask-first@example.com", "Ask First")
    await codeFlow(config, user)
    const stillSignedIn = async () => {
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: CALLBACK,
        scope: "openid",
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
        code_challenge_method: "S256",
      })
      const r = await user.agent.get(url.toString())
      return new URL(r.headers.get("location")!, env.origin).pathname !== "/api/signin"
    }
    const request = new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: AFTER_LOGOUT, state: "s1" })
    const asked = await user.agent.get(`/api/logout?${request}`)
    expect(asked.status).toBe(200)
    expect(await asked.text()).toContain(`<form id="logout">`)
    expect(await stillSignedIn()).toBe(true)

    // A cross-site POST carries the cookie but not the page's CSRF token.
    const forged = await fetch(`${env.origin}/api/logout/confirm`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: user.agent.cookie! },
      body: JSON.stringify({ request: request.toString(), decision: "logout" }),
    })
    expect(forged.status).toBe(403)
    expect(await stillSignedIn()).toBe(true)

    const stay = await user.agent.post<{ redirectTo: string }>("/logout/confirm", { request: request.toString(), decision: "stay" })
    expect(stay).toEqual({ status: 200, body: { redirectTo: `${AFTER_LOGOUT}?state=s1` } })
    expect(await stillSignedIn()).toBe(true)
    const out = await user.agent.post<{ redirectTo: string }>("/logout/confirm", { request: request.toString(), decision: "logout" })
    expect(out).toEqual({ status: 200, body: { redirectTo: `${AFTER_LOGOUT}?state=s1` } })
    expect(await stillSignedIn()).toBe(false)
    const unregistered = await user.agent.post<{ error: string }>("/logout/confirm", {
      request: new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: "https://evil.example/" }).toString(),
      decision: "logout",
    })
    expect(unregistered.status).toBe(400)
  })

  it("refuses a code older than 60 seconds", async () => {
    const config = await discover()
    const user = await newUser("slow@example.com", "Slow Poke")
    const verifier = client.randomPKCECodeVerifier()
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: "openid",
      state: "late",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    })
    const callback = await authorizeInBrowser(user.agent, user.passkey, url)
    clock.advance(61_000)
    const late = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: "late" }).catch((e: unknown) => e)
    expect((late as client.ResponseBodyError).error_description).toBe("authorization code expired")
  })

  it("the consent answer needs the session's CSRF token", async () => {
    const user = await newUser("csrf@example.com", "Cs Rf")
    await signInOnPage(user.agent, user.passkey)
    const r = await fetch(`${env.origin}/api/authorize/consent`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: user.agent.cookie! },
      body: JSON.stringify({ request: `client_id=${clientId}`, decision: "allow" }),
    })
    expect(r.status).toBe(403)
    expect(await r.json()).toEqual({ error: "CSRF token validation failed" })
  })

  it("a declined consent, an unknown scope, another response type and a pending RP are refused as the standards say", async () => {
    const config = await discover()
    const user = await newUser("deny@example.com", "De Ny")
    const pkce = { code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: "S256" }
    const declined = await authorizeInBrowser(
      user.agent,
      user.passkey,
      client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: "openid", state: "d", ...pkce }),
      "deny",
    )
    expect(Object.fromEntries(declined.searchParams)).toMatchObject({ error: "access_denied", state: "d", iss: `${env.origin}/api` })

    const errorOf = async (params: Record<string, string>) => {
      const r = await user.agent.get(client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, ...pkce, ...params }).toString())
      return new URL(r.headers.get("location")!).searchParams.get("error")
    }
    expect(await errorOf({ scope: "openid admin" })).toBe("invalid_scope")
    expect(await errorOf({ scope: "basic" })).toBe("invalid_scope")
    expect(await errorOf({ scope: "openid", response_type: "token" })).toBe("unsupported_response_type")
    expect(await errorOf({ scope: "openid", code_challenge_method: "plain" })).toBe("invalid_request")

    const pending = await env.engine.run(registerRelyingParty({ name: "Pending", redirectUris: [CALLBACK] }))
    const r = await user.agent.get(
      `${env.origin}/api/authorize?${new URLSearchParams({ client_id: pending.rp.clientId, redirect_uri: CALLBACK, response_type: "code", scope: "openid", ...pkce })}`,
    )
    expect(r.status).toBe(400)
    expect(await r.text()).toContain("RP registration not approved. Status: pending")
  })

  it("accepts a hosted session signed in some other way (an external identity provider's callback opens one)", async () => {
    const config = await discover()
    const user = await newUser("external@example.com", "Ex Ternal")
    const session = await env.engine.run(openSignedInSession(user.userId, "external:idp-1"))
    user.agent.cookie = `signet_session=${session.sessionId}`
    user.agent.csrf = session.csrfToken
    const verifier = client.randomPKCECodeVerifier()
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: "openid",
      state: "ext",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    })
    // No passkey is used: the session is already signed in, so the next stop is the consent page.
    const callback = await authorizeInBrowser(user.agent, SoftwarePasskey.create({ origin: "https://unused.example" }), url)
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: "ext" })
    expect(tokens.claims()!.sub).toBe(user.userId)
    expect(tokens.claims()!.amr).toBeUndefined()
  })

  it("the sign-in page continues to a same-origin return_to (also through enrolment and the external providers) and drops any other", async () => {
    const back = "/api/authorize?client_id=x&response_type=code"
    const hiddenReturn = (html: string) => /name="returnTo" value="([^"]*)"/.exec(html)?.[1]
    const kept = await (await fetch(`${env.origin}/api/signin?client_id=x&return_to=${encodeURIComponent(back)}`)).text()
    expect(hiddenReturn(kept)).toBe(back.replaceAll("&", "&#38;"))
    expect(kept).toContain(`id="enrol-link" href="/api/enrol?client_id=x&#38;return_to=${encodeURIComponent(back)}"`)
    for (const bad of ["https://evil.example/authorize?x", "//evil.example/x", "/\\evil.example"]) {
      const html = await (await fetch(`${env.origin}/api/signin?client_id=x&return_to=${encodeURIComponent(bad)}`)).text()
      expect(hiddenReturn(html), bad).toBe("")
      expect(html).not.toContain("enrol-link")
    }
  })
})
