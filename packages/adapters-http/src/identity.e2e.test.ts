/** Enrol a passkey, sign in, call a bearer endpoint: over real HTTP, with real WebAuthn responses. */
import { administerRelyingParty, issueAccessToken } from "@signet/core"
import { enrol, ok, passkeyFaults, proveEmail, signIn, signInAtConsole, SoftwarePasskey, type Account, type ErrorBody, type TokenAnswer } from "@signet/testkit"
import { Effect, TestContext } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StoragePostgres } from "@signet/adapters-postgres"
import { findPostgres, withFreshSchema } from "@signet/testkit/storage"
import { FAULT_MESSAGES } from "./test-support/fault-messages.ts"
import { startEngine, type RunningEngine } from "./test-support/running-engine.ts"

// The same flows on every storage adapter: SQLite, and PostgreSQL when reachable (required in CI).
const postgres = await findPostgres()
const STORAGES: ReadonlyArray<readonly [string, string | undefined]> = [["SQLite", undefined], ...(postgres ? [["PostgreSQL", postgres] as const] : [])]

describe.each(STORAGES)("on %s", (_name, databaseUrl) => {
  let env: RunningEngine
  beforeAll(async () => {
    env = await startEngine(databaseUrl === undefined ? {} : { storage: withFreshSchema(databaseUrl, StoragePostgres) })
  })
  afterAll(async () => env?.stop())

  const signedIn = async (email: string) => {
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    const enrolled = await enrol(env.client, passkey, { email })
    const token = ok(await signIn(env.client, passkey, { clientId: env.rp.clientId, email })) as TokenAnswer
    return { passkey, enrolled, token }
  }

  describe("enrol, sign in, call a bearer endpoint", () => {
    it("a new user enrols an ES256 passkey, signs in and reads their account", async () => {
      const { passkey, enrolled, token } = await signedIn("ada@example.com")
      expect(enrolled.email).toBe("ada@example.com")
      expect(enrolled.credentialId).toBe(passkey.credentialId)
      expect(token.token_type).toBe("Bearer")
      expect(token.scope.split(" ")).toContain("basic")
      const me = await env.client.me(token.access_token)
      expect(me.status).toBe(200)
      const account = me.body as Account
      expect(account).toMatchObject({ sub: enrolled.userId, email: "ada@example.com", clientId: env.rp.clientId })
      expect(account.passkeys.map((p) => p.id)).toEqual([passkey.credentialId])
    })

    it("RS256 passkeys enrol and sign in too; sign-in without an e-mail uses a discoverable credential", async () => {
      const passkey = SoftwarePasskey.create({ origin: env.origin, algorithm: "RS256" })
      await enrol(env.client, passkey, { email: "rsa@example.com" })
      const answer = await signIn(env.client, passkey, { clientId: env.rp.clientId })
      expect(answer.status).toBe(200)
      expect((ok(await env.client.me((answer.body as TokenAnswer).access_token)) as Account).email).toBe("rsa@example.com")
    })

    it("the access token is a JWT with sub, scope, client_id, aud, iat and exp, verifiable with the JWKS", async () => {
      const { token, enrolled } = await signedIn("claims@example.com")
      const [header, payload] = token.access_token
        .split(".")
        .slice(0, 2)
        .map((p) => JSON.parse(Buffer.from(p!, "base64url").toString()))
      expect(header).toMatchObject({ alg: "ES256", typ: "at+jwt" })
      expect(payload).toMatchObject({ sub: enrolled.userId, client_id: env.rp.clientId, aud: `${env.origin}/api`, iss: `${env.origin}/api` })
      expect(payload.exp - payload.iat).toBe(3600)
      const { createLocalJWKSet, jwtVerify } = await import("jose")
      const jwks = ok(await env.client.raw<{ keys: Array<Record<string, unknown>> }>("GET", "/.well-known/jwks.json"))
      const verified = await jwtVerify(token.access_token, createLocalJWKSet(jwks as never))
      expect(verified.payload.sub).toBe(enrolled.userId)
    })
  })

  describe("bearer authentication answers the spec's three 401 messages", () => {
    it("no Authorization header", async () => {
      const r = await env.client.me()
      expect(r.status).toBe(401)
      expect(r.body).toEqual({ error: "Missing Authorization header" })
    })

    it("a forged, garbled or expired token", async () => {
      const { token } = await signedIn("forged@example.com")
      const [h, p, s] = token.access_token.split(".")
      const claims = JSON.parse(Buffer.from(p!, "base64url").toString())
      const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: "someone-else" })).toString("base64url")}.${s}`
      // issued at the epoch by a test clock: long expired
      const expired = await env.engine.run(
        issueAccessToken({ sub: claims.sub, clientId: env.rp.clientId, scope: ["basic"] }).pipe(Effect.provide(TestContext.TestContext)),
      )
      for (const bad of [`Bearer ${forged}`, "Bearer not-a-jwt", `Basic ${btoa("a:b")}`, `Bearer ${expired.token}`]) {
        const r = await env.client.raw("GET", "/v2/me", { headers: { authorization: bad } })
        expect(r.status, bad).toBe(401)
        expect(r.body).toEqual({ error: "Invalid or expired token" })
      }
    })

    it("a client-credentials token has no subject", async () => {
      const t = ok(await env.client.clientToken(env.rp.clientId, env.rp.clientSecret)) as TokenAnswer
      expect(t.scope).toBe("basic")
      const r = await env.client.me(t.access_token)
      expect(r.status).toBe(401)
      expect(r.body).toEqual({ error: "Token missing subject claim" })
    })

    it("client credentials with a wrong secret are invalid_client", async () => {
      const r = await env.client.clientToken(env.rp.clientId, "sk_sbx_wrong")
      expect(r.status).toBe(401)
      expect((r.body as ErrorBody).error).toBe("invalid_client")
    })
  })

  describe("sign-in rejects each broken assertion with its own message", () => {
    let passkey: SoftwarePasskey
    beforeAll(async () => {
      passkey = SoftwarePasskey.create({ origin: env.origin })
      await enrol(env.client, passkey, { email: "faults@example.com" })
      ok(await signIn(env.client, passkey, { clientId: env.rp.clientId }))
    })

    it.each(passkeyFaults.map((f) => [f]))("%s", async (fault) => {
      const r = await signIn(env.client, passkey, { clientId: env.rp.clientId }, fault)
      expect(r.status).toBe(403)
      expect(r.body).toEqual({ error: FAULT_MESSAGES[fault] })
    })

    it("and the genuine passkey still signs in afterwards", async () => {
      expect((await signIn(env.client, passkey, { clientId: env.rp.clientId })).status).toBe(200)
    })

    it("a sign-in ceremony is used once: replaying it is 410", async () => {
      const started = ok(await env.client.signinRequest({ clientId: env.rp.clientId }))
      const assertion = passkey.assert(started.options)
      expect((await env.client.signinVerify({ signinId: started.signinId, assertion })).status).toBe(200)
      const again = await env.client.signinVerify({ signinId: started.signinId, assertion })
      expect(again.status).toBe(410)
      expect(again.body).toEqual({ error: "Operation expired or not found" })
    })
  })

  describe("relying-party checks at sign-in", () => {
    it("an unknown client id and a suspended RP are refused with the spec's messages", async () => {
      const unknown = await env.client.signinRequest({ clientId: "rp_sbx_nobody" })
      expect(unknown).toMatchObject({ status: 403, body: { error: "Unknown RP client_id" } })
      const other = await env.engine.run(
        Effect.gen(function* () {
          const { registerRelyingParty } = yield* Effect.promise(() => import("@signet/core"))
          return yield* registerRelyingParty({ name: "Other", status: "approved" })
        }),
      )
      await env.engine.run(administerRelyingParty(other.rp.clientId, { _tag: "Suspend" }))
      const suspended = await env.client.signinRequest({ clientId: other.rp.clientId })
      expect(suspended).toMatchObject({ status: 403, body: { error: "RP registration not approved. Status: suspended" } })
    })
  })

  describe("enrolment rules", () => {
    it("a second passkey for an existing account needs that account's console token (or its proven e-mail); an RP's token is refused", async () => {
      const { token, passkey } = await signedIn("two@example.com")
      const second = SoftwarePasskey.create({ origin: env.origin, algorithm: "RS256" })
      const refused = await env.client.enrolmentRequest({ email: "two@example.com" })
      expect(refused).toMatchObject({
        status: 403,
        body: { error: "Verify this e-mail address first (POST /enrolment/email), or sign in to add a passkey to your own account" },
      })
      const other = await signedIn("intruder@example.com")
      expect((await env.client.enrolmentRequest({ email: "two@example.com" }, other.token.access_token)).status).toBe(403)
      // The account's own token from an RP: that RP could add its own passkey and sign in as the user anywhere.
      expect(await env.client.enrolmentRequest({ email: "two@example.com" }, token.access_token)).toMatchObject({
        status: 403,
        body: { error: "This operation needs a token issued to the Signet console" },
      })
      await enrol(env.client, second, { email: "two@example.com" }, await signInAtConsole(env.client, passkey, "two@example.com"))
      expect((ok(await env.client.me(token.access_token)) as Account).passkeys).toHaveLength(2)
    })

    // Issue 13, item 16: e-mails with NUL, bidi overrides or fullwidth look-alikes were accepted.
    it("an e-mail with control, bidirectional, invisible or fullwidth characters is refused before any code is sent", async () => {
      for (const email of [
        "ceo@bank.example\u0000",
        "moc.elpmaxe@\u202Eeoc",
        "ceo\u200B@bank.example",
        "\uFF43\uFF45\uFF4F\uFF20bank.example",
        "ceo@bank\uFF0Eexample",
      ]) {
        for (const answer of [await env.client.enrolmentEmail({ email }), await env.client.enrolmentRequest({ email })]) {
          expect(answer, JSON.stringify(email)).toMatchObject({
            status: 400,
            body: { error: "email must not contain control, bidirectional, invisible or compatibility (e.g. fullwidth) characters" },
          })
        }
      }
      // An accented address in either Unicode form is the same (NFC) address, not a look-alike.
      expect((await env.client.enrolmentEmail({ email: "jose\u0301@example.com" })).status).toBe(200)
    })

    it("a registration with a broken binding is refused and stores nothing", async () => {
      for (const [fault, message] of [
        ["wrongOrigin", "Origin mismatch — possible phishing attack"],
        ["otherChallenge", "Challenge mismatch — dynamic linking failed"],
        ["noUserVerification", "User verification required — biometric or PIN not confirmed"],
        ["wrongRpId", "Passkey was created for a different site (RP ID mismatch)"],
      ] as const) {
        const passkey = SoftwarePasskey.create({ origin: env.origin })
        const email = `bad-${fault.toLowerCase()}@example.com`
        const started = ok(await env.client.enrolmentRequest({ email, emailVerificationId: await proveEmail(env.client, email) }))
        const r = await env.client.enrolmentVerify({ enrolmentId: started.enrolmentId, credential: passkey.register(started.options, fault) })
        expect(r).toMatchObject({ status: 403, body: { error: message } })
        // nothing was written: the e-mail is still free for a proper enrolment
        await enrol(env.client, SoftwarePasskey.create({ origin: env.origin }), { email: `bad-${fault.toLowerCase()}@example.com` })
      }
    })
  })
})
