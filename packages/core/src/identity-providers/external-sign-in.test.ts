/** ID token validation and the return_to rule, on their own: what an attacker would try against the callback. */
import { Effect, Either, TestClock, TestContext } from "effect"
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from "jose"
import { beforeAll, describe, expect, it } from "vitest"
import { safeReturnTo, validateIdToken } from "./external-sign-in.ts"
import type { IdentityProvider } from "./model.ts"

const provider: IdentityProvider = {
  id: "idp_test",
  ownerClientId: null,
  name: "Example ID",
  issuer: "https://id.example",
  clientId: "signet",
  clientSecretSealed: "",
  scopes: ["openid", "email"],
  authorizationEndpoint: "https://id.example/auth",
  tokenEndpoint: "https://id.example/token",
  jwksUri: "https://id.example/jwks",
  userinfoEndpoint: null,
  createdAt: 0,
}
const NOW_S = 1_800_000_000

let signingKey: CryptoKey
let otherKey: CryptoKey
let jwks: { keys: Array<Record<string, unknown>> }

beforeAll(async () => {
  const pair = await generateKeyPair("RS256", { extractable: true })
  signingKey = pair.privateKey
  otherKey = (await generateKeyPair("RS256")).privateKey
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" }] }
})

const idToken = (claims: JWTPayload, key: CryptoKey = signingKey) =>
  new SignJWT({ iss: provider.issuer, aud: provider.clientId, sub: "248289761001", nonce: "n-1", iat: NOW_S - 10, exp: NOW_S + 300, ...claims })
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .sign(key)

/** Runs validation at NOW_S on the test clock. */
const validate = (token: string, nonce = "n-1") =>
  Effect.runPromise(
    Effect.gen(function* () {
      yield* TestClock.setTime(NOW_S * 1000)
      return yield* Effect.either(validateIdToken(provider, token, nonce, jwks))
    }).pipe(Effect.provide(TestContext.TestContext)),
  )

describe("validateIdToken", () => {
  it("accepts a token signed by the provider's key for this client and nonce, and reads sub, verified e-mail and name", async () => {
    const result = await validate(await idToken({ email: "Ada@Example.com", email_verified: true, name: "Ada" }))
    expect(result).toEqual(Either.right({ sub: "248289761001", email: "ada@example.com", emailVerified: true, name: "Ada" }))
  })

  it("an e-mail without email_verified: true is not verified", async () => {
    const result = await validate(await idToken({ email: "ada@example.com", email_verified: "true" }))
    expect(Either.getOrThrow(result).emailVerified).toBe(false)
  })

  it.each([
    ["another key signed it", {}, "other-key", /ID token rejected/],
    ["another issuer", { iss: "https://evil.example" }, undefined, /ID token rejected .*iss/],
    ["another audience", { aud: "someone-else" }, undefined, /ID token rejected .*aud/],
    ["expired", { exp: NOW_S - 1 }, undefined, /ID token rejected .*exp/],
    ["another nonce", { nonce: "n-2" }, undefined, /^External sign-in failed: ID token nonce mismatch$/],
    ["no nonce", { nonce: undefined }, undefined, /nonce mismatch/],
    ["several audiences, azp not Signet", { aud: ["signet", "other"], azp: "other" }, undefined, /azp mismatch/],
  ] as const)("refuses a token when %s", async (_why, claims, key, message) => {
    const token = await idToken(claims as JWTPayload, key === "other-key" ? otherKey : signingKey)
    const result = await validate(token)
    expect(Either.isLeft(result)).toBe(true)
    const error = Either.getLeft(result).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
    expect(error.status).toBe(401)
    expect(error.message).toMatch(message)
  })

  it("refuses an unsigned (alg none) token", async () => {
    const header = Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")
    const payload = Buffer.from(JSON.stringify({ iss: provider.issuer, aud: "signet", sub: "x", nonce: "n-1", iat: NOW_S, exp: NOW_S + 60 })).toString(
      "base64url",
    )
    expect(Either.isLeft(await validate(`${header}.${payload}.`))).toBe(true)
  })
})

describe("safeReturnTo", () => {
  const settings = { publicOrigin: "https://signet.example", basePath: "/api" }
  const run = (value: string | null) => Effect.runPromise(Effect.either(safeReturnTo(settings, value)))

  it("keeps same-origin relative paths with their query, and defaults to the landing page", async () => {
    expect(await run("/api/authorize?client_id=x&state=y")).toEqual(Either.right("/api/authorize?client_id=x&state=y"))
    expect(await run(null)).toEqual(Either.right("/api/"))
  })

  it.each(["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "api/relative", "/a\nb"])("refuses %j", async (value) => {
    const result = await run(value)
    expect(Either.isLeft(result)).toBe(true)
  })
})
