/**
 * Compact JWTs signed inside the KeyStore (ES256, or RS256 for ID tokens) and verified with `jose`. jose cannot sign
 * here because the private key never leaves the KeyStore, so the serialisation is assembled
 * around `KeyStore.sign`; every token the engine accepts is checked by jose, in full the first
 * time it is seen (see `verifiedTokens` for the uses after that).
 */
import { Clock, Effect } from "effect"
import { base64url, decodeJwt, importJWK, jwtVerify, type JWTPayload } from "jose"
import { setBounded } from "../kernel/bounded-map.ts"
import { utf8 } from "../kernel/encoding.ts"
import { KeyStore, type KeyInfo } from "../ports/key-store.ts"

/** The JWS algorithms the engine signs with; each is a KeyStore key type of the same name. */
export type JwsAlgorithm = "ES256" | "RS256"

/** Signs `payload` as a JWT of type `typ` with KeyStore key `keyId` (created on first use as an `alg` key). */
export const signJwt = (keyId: string, typ: string, payload: Record<string, unknown>, alg: JwsAlgorithm = "ES256") =>
  Effect.gen(function* () {
    const store = yield* KeyStore
    const info = yield* store.ensure(keyId, alg)
    // A key id names one key type for good: signing under the wrong header would make tokens that never verify.
    if (info.algorithm !== alg) return yield* Effect.dieMessage(`key ${keyId} is ${info.algorithm}, not ${alg}`)
    const header = { alg, typ, kid: keyId }
    const signingInput = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}`
    const signature = yield* store.sign(keyId, utf8(signingInput)).pipe(Effect.orDie)
    return `${signingInput}.${base64url.encode(signature)}`
  })

/** What a token must satisfy. */
export interface JwtExpectation {
  readonly keyIds: ReadonlyArray<string>
  readonly typ: string
  readonly issuer: string
  readonly audience: string
  /** check the lifetime at this time (ms) instead of the Clock's (an expired `id_token_hint` still names its user) */
  readonly at?: number
}

// Imported verification keys by their public coordinates (not by key id: two engines in one
// process may both have a `sandbox/access-token/1`). Importing is an asynchronous round trip
// that every bearer request would otherwise pay.
const verificationKeys = new Map<string, CryptoKey | Uint8Array>()

/** A token that passed jose's check: against which key, which expectation, with which claims. */
interface VerifiedToken {
  readonly keyId: string
  readonly material: string
  readonly typ: string
  readonly issuer: string
  readonly audience: string
  readonly payload: JWTPayload
}

/**
 * Tokens that passed jose's full check, by their compact form. A bearer presents the same token
 * on every call, and a signature that verified under a key stays valid under that key: the
 * signature check (a thread-pool round trip through WebCrypto) is not repeated. What can change
 * is checked again on every use: the key is still accepted and is still the same key, the
 * expectation is the same, and the lifetime holds at this time (jose's rules: `exp` after now,
 * `nbf` not after now). Revocation is the caller's, on every use. Bounded; the oldest goes first.
 */
const verifiedTokens = new Map<string, VerifiedToken>()
const VERIFIED_TOKENS = 4096

/**
 * The `jti` a token names, before its signature is checked (empty when it names none or is not a
 * JWT): from its verification when it was verified before, decoded otherwise. What it is good for
 * is a lookup; only a verification proves it.
 */
export const namedJti = (token: string): string => {
  let jti = verifiedTokens.get(token)?.payload.jti
  if (jti === undefined) {
    try {
      jti = decodeJwt(token).jti
    } catch {
      return ""
    }
  }
  return typeof jti === "string" ? jti : ""
}

/** A key's public coordinates with its algorithm: what a verification depends on. */
const materialOf = (info: KeyInfo) => {
  const j = info.publicJwk
  return `${info.algorithm}:${j.crv}:${j.x}:${j.y}:${j.n}:${j.e}`
}

/** The claims of a token verified before, if it still holds now; undefined to verify it in full. */
const stillValid = (token: string, expected: JwtExpectation, nowMs: number) =>
  Effect.gen(function* () {
    const known = verifiedTokens.get(token)
    if (known === undefined) return undefined
    if (known.typ !== expected.typ || known.issuer !== expected.issuer || known.audience !== expected.audience) return undefined
    if (!expected.keyIds.includes(known.keyId)) return undefined
    const info = yield* Effect.flatMap(KeyStore, (store) => store.get(known.keyId)).pipe(Effect.option)
    if (info._tag === "None" || materialOf(info.value) !== known.material) return undefined
    const now = Math.floor(nowMs / 1000)
    const { exp, nbf } = known.payload
    if (exp !== undefined && exp <= now) return undefined
    if (nbf !== undefined && nbf > now) return undefined
    return known.payload
  })

/** Verifies signature (only with the given keys), type, issuer, audience and lifetime at the Clock's time; undefined when any fails. */
export const verifyJwt = (token: string, expected: JwtExpectation) =>
  Effect.gen(function* () {
    const store = yield* KeyStore
    const nowMs = expected.at ?? (yield* Clock.currentTimeMillis)
    const known = yield* stillValid(token, expected, nowMs)
    if (known !== undefined) return known
    return yield* Effect.promise(async (): Promise<JWTPayload | undefined> => {
      try {
        let verifiedWith: { keyId: string; material: string } | undefined
        const { payload } = await jwtVerify(
          token,
          async (header) => {
            if (header.kid === undefined || !expected.keyIds.includes(header.kid)) throw new Error("unknown key")
            const info = await Effect.runPromise(store.get(header.kid))
            // The key decides the algorithm: a token naming another one (RS256 header on an EC key, `none`, HS256) is refused.
            if (info.algorithm !== "ES256" && info.algorithm !== "RS256") throw new Error("not a signing key")
            if (header.alg !== info.algorithm) throw new Error("algorithm does not match the key")
            const material = materialOf(info)
            verifiedWith = { keyId: header.kid, material }
            const cached = verificationKeys.get(material)
            if (cached !== undefined) return cached
            const key = await importJWK({ ...info.publicJwk }, info.algorithm)
            verificationKeys.set(material, key)
            return key
          },
          { issuer: expected.issuer, audience: expected.audience, algorithms: ["ES256", "RS256"], typ: expected.typ, currentDate: new Date(nowMs) },
        )
        if (verifiedWith !== undefined) {
          setBounded(
            verifiedTokens,
            token,
            { ...verifiedWith, typ: expected.typ, issuer: expected.issuer, audience: expected.audience, payload },
            VERIFIED_TOKENS,
          )
        }
        return payload
      } catch {
        return undefined
      }
    })
  })
