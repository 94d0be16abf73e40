/**
 * RS256 and ES256 JWS made inside the KeyStore, checked by `jose` against the published JWKS,
 * and the algorithm-confusion tokens an attacker builds from the public keys refused.
 * The KeyStore here holds real WebCrypto key pairs (non-extractable private halves).
 */
import { Effect, Layer } from "effect"
import { base64url, createLocalJWKSet, jwtVerify } from "jose"
import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { signJwt, verifyJwt } from "../identity/jws.ts"
import { jwks } from "../identity/access-token.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { KeyNotFound, KeyStore, type KeyAlgorithm, type KeyInfo } from "../ports/key-store.ts"
import { SigningKeys } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import type { SigningKey } from "./model.ts"
import { acceptedIdTokenKeyIds, currentIdTokenKeyId, rotateSigningKey } from "../identity/signing-keys.ts"

const subtle = globalThis.crypto.subtle
const PARAMS = {
  ES256: { name: "ECDSA", namedCurve: "P-256" },
  RS256: { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
} as const

const world = () => {
  const pairs = new Map<string, { readonly algorithm: KeyAlgorithm; readonly pair: CryptoKeyPair; readonly publicJwk: KeyInfo["publicJwk"] }>()
  const generations: Array<SigningKey> = []
  const info = (keyId: string): Effect.Effect<KeyInfo, KeyNotFound> =>
    Effect.suspend(() => {
      const k = pairs.get(keyId)
      return k === undefined ? Effect.fail(new KeyNotFound({ keyId })) : Effect.succeed({ keyId, algorithm: k.algorithm, publicJwk: k.publicJwk, createdAt: 0 })
    })
  const keyStore = KeyStore.of({
    ensure: (keyId, algorithm) =>
      Effect.promise(async () => {
        if (!pairs.has(keyId)) {
          if (algorithm === "RSA-OAEP-2048") throw new Error("signing keys only")
          const pair = (await subtle.generateKey(PARAMS[algorithm], false, ["sign", "verify"])) as CryptoKeyPair
          const { kty, crv, x, y, n, e } = await subtle.exportKey("jwk", pair.publicKey)
          pairs.set(keyId, { algorithm, pair, publicJwk: algorithm === "RS256" ? { kty: kty!, n: n!, e: e! } : { kty: kty!, crv: crv!, x: x!, y: y! } })
        }
      }).pipe(Effect.flatMap(() => Effect.orDie(info(keyId)))),
    get: info,
    sign: (keyId, data) =>
      Effect.flatMap(info(keyId), () =>
        Effect.promise(async () => {
          const k = pairs.get(keyId)!
          const algorithm = k.algorithm === "RS256" ? { name: "RSASSA-PKCS1-v1_5" } : { name: "ECDSA", hash: "SHA-256" }
          return new Uint8Array(await subtle.sign(algorithm, k.pair.privateKey, new Uint8Array(data)))
        }),
      ),
    decrypt: (keyId) => Effect.die(new Error(`no decryption keys here (${keyId})`)),
  })
  const layer = Layer.mergeAll(
    Layer.succeed(KeyStore, keyStore),
    Layer.succeed(Storage, Storage.of({ transaction: (effect) => effect })),
    Layer.succeed(
      SigningKeys,
      SigningKeys.of({
        insert: (key) =>
          Effect.sync(() => {
            generations.unshift(key)
          }),
        list: (environment) => Effect.sync(() => generations.filter((g) => g.environment === environment).sort((a, b) => b.seq - a.seq)),
        listWithRevocation: (environment) =>
          Effect.sync(() => ({ generations: generations.filter((g) => g.environment === environment).sort((a, b) => b.seq - a.seq), revoked: false })),
      }),
    ),
    Layer.succeed(
      EngineConfig,
      EngineConfig.of({
        environment: "sandbox",
        publicOrigin: "https://signet.example",
        basePath: "",
        accessTokenTtlSeconds: 3600,
        ceremonyTtlSeconds: 300,
        sessionTtlSeconds: 3600,
      }),
    ),
  )
  const run = <A, E>(effect: Effect.Effect<A, E, KeyStore | Storage | SigningKeys | EngineConfig>) => Effect.runPromise(Effect.provide(effect, layer))
  return { run }
}

const claims = () => {
  const now = Math.floor(Date.now() / 1000)
  return { iss: "https://signet.example", aud: "rp_sbx_client", sub: "usr_1", iat: now, exp: now + 600 }
}
const expectation = { typ: "JWT", issuer: "https://signet.example", audience: "rp_sbx_client" }
const part = (value: unknown) => base64url.encode(JSON.stringify(value))

describe("ID-token JWS", () => {
  it("an RS256 ID token (RSASSA-PKCS1-v1_5 SHA-256, 2048-bit key) verifies with jose against the JWKS, which lists the RSA key by its own kid", async () => {
    const { run } = world()
    const token = await run(Effect.flatMap(currentIdTokenKeyId("RS256"), (kid) => signJwt(kid, "JWT", claims(), "RS256")))
    const set = await run(jwks)
    const rsa = set.keys.find((k) => k.kty === "RSA")!
    expect(rsa).toMatchObject({ kid: "sandbox/id-token-rs256/1", alg: "RS256", use: "sig", e: "AQAB" })
    expect(base64url.decode(rsa.n!).length * 8).toBe(2048)
    expect(set.keys.map((k) => [k.kid, k.alg])).toEqual([
      ["sandbox/access-token/1", "ES256"],
      ["sandbox/id-token-rs256/1", "RS256"],
    ])
    const verified = await jwtVerify(token, createLocalJWKSet(set as never), {
      algorithms: ["RS256"],
      issuer: expectation.issuer,
      audience: expectation.audience,
    })
    expect(verified.protectedHeader).toEqual({ alg: "RS256", typ: "JWT", kid: "sandbox/id-token-rs256/1" })
    expect(verified.payload.sub).toBe("usr_1")
    expect(await run(Effect.flatMap(acceptedIdTokenKeyIds, (keyIds) => verifyJwt(token, { ...expectation, keyIds })))).toMatchObject({ sub: "usr_1" })
    // One altered claim and the signature no longer holds.
    const [h, , s] = token.split(".")
    const forged = `${h}.${part({ ...claims(), sub: "usr_2" })}.${s}`
    await expect(jwtVerify(forged, createLocalJWKSet(set as never))).rejects.toThrow()
    expect(await run(Effect.flatMap(acceptedIdTokenKeyIds, (keyIds) => verifyJwt(forged, { ...expectation, keyIds })))).toBeUndefined()
  })

  it("refuses algorithm confusion: HS256 keyed with the RSA public key, `none`, and a header naming the other algorithm", async () => {
    const { run } = world()
    const rsToken = await run(Effect.flatMap(currentIdTokenKeyId("RS256"), (kid) => signJwt(kid, "JWT", claims(), "RS256")))
    const esToken = await run(Effect.flatMap(currentIdTokenKeyId("ES256"), (kid) => signJwt(kid, "JWT", claims(), "ES256")))
    const set = await run(jwks)
    const rsa = set.keys.find((k) => k.kty === "RSA")!
    const verify = (token: string) => run(Effect.flatMap(acceptedIdTokenKeyIds, (keyIds) => verifyJwt(token, { ...expectation, keyIds })))
    expect(await verify(rsToken)).toBeDefined()
    expect(await verify(esToken)).toBeDefined()
    // The classic attack: sign HS256 with the published RSA key as the HMAC secret.
    const hsInput = `${part({ alg: "HS256", typ: "JWT", kid: rsa.kid })}.${part({ ...claims(), sub: "usr_admin" })}`
    const hmac = createHmac("sha256", JSON.stringify(rsa)).update(hsInput).digest()
    expect(await verify(`${hsInput}.${base64url.encode(hmac)}`)).toBeUndefined()
    expect(await verify(`${part({ alg: "none", typ: "JWT", kid: rsa.kid })}.${part(claims())}.`)).toBeUndefined()
    // A valid RS256 signature presented under the ES256 key's kid (and the other way round) is refused.
    const [, rsPayload, rsSig] = rsToken.split(".")
    expect(await verify(`${part({ alg: "RS256", typ: "JWT", kid: "sandbox/access-token/1" })}.${rsPayload}.${rsSig}`)).toBeUndefined()
    const [, esPayload, esSig] = esToken.split(".")
    expect(await verify(`${part({ alg: "ES256", typ: "JWT", kid: "sandbox/id-token-rs256/1" })}.${esPayload}.${esSig}`)).toBeUndefined()
  })

  it("rotation adds an RS256 key with the ES256 one; the previous generation's tokens still verify, the one before that no longer does", async () => {
    const { run } = world()
    const sign = () => run(Effect.flatMap(currentIdTokenKeyId("RS256"), (kid) => signJwt(kid, "JWT", claims(), "RS256")))
    const verify = (token: string) => run(Effect.flatMap(acceptedIdTokenKeyIds, (keyIds) => verifyJwt(token, { ...expectation, keyIds })))
    const first = await sign()
    const rotated = await run(rotateSigningKey)
    expect(rotated).toMatchObject({ current: "sandbox/access-token/2", currentRs256: "sandbox/id-token-rs256/2" })
    const second = await sign()
    expect(JSON.parse(utf8Decode(second.split(".")[0]!)).kid).toBe("sandbox/id-token-rs256/2")
    const set = await run(jwks)
    expect(set.keys.map((k) => k.kid)).toEqual(rotated.published)
    expect(await verify(first)).toBeDefined()
    await jwtVerify(first, createLocalJWKSet(set as never))
    await run(rotateSigningKey)
    expect(await verify(first)).toBeUndefined()
    expect(await verify(second)).toBeDefined()
  })
})

const utf8Decode = (b64: string) => new TextDecoder().decode(base64url.decode(b64))
