/**
 * Token-signing key rotation. Generation 1 is the KeyStore key `<env>/access-token/1` every
 * engine has used; a rotation adds generation n+1, which signs from then on. The JWKS
 * publishes the current and the previous generation, so tokens signed before a rotation
 * verify until they expire (rotate no more often than the longest token lifetime).
 * Each generation has two keys: the ES256 key (access tokens, ES256 ID tokens) and the
 * RS256 key `<env>/id-token-rs256/<seq>` (RS256 ID tokens); both rotate together.
 */
import { Clock, Effect } from "effect"
import { EngineConfig, type EngineSettings } from "../ports/engine-config.ts"
import { KeyStore } from "../ports/key-store.ts"
import { ID_TOKEN_ALGORITHMS, type IdTokenAlgorithm } from "../oidc/model.ts"
import type { SigningKey } from "../oidc/model.ts"
import { SigningKeys } from "../oidc/ports.ts"
import { Storage } from "../ports/storage.ts"

/** The KeyStore id of generation `seq` of an environment's token-signing key. */
export const signingKeyId = (s: Pick<EngineSettings, "environment">, seq: number): string => `${s.environment}/access-token/${seq}`

/** The KeyStore id of generation `seq` of an environment's RS256 ID-token key. */
export const rsaSigningKeyId = (s: Pick<EngineSettings, "environment">, seq: number): string => `${s.environment}/id-token-rs256/${seq}`

/** The key that signs with `alg` in generation `seq`. */
export const keyIdFor = (s: Pick<EngineSettings, "environment">, alg: IdTokenAlgorithm, seq: number): string =>
  alg === "RS256" ? rsaSigningKeyId(s, seq) : signingKeyId(s, seq)

/** How many generations verify: the current one and the one before it. */
const PUBLISHED_GENERATIONS = 2

/** The generations that verify, of an environment's generations newest first: the current one, then the one before it. */
export const acceptedOf = (generations: ReadonlyArray<SigningKey>): ReadonlyArray<number> =>
  generations.length === 0 ? [1] : generations.slice(0, PUBLISHED_GENERATIONS).map((g) => g.seq)

/** Generation numbers newest first: the current generation, then the previous one. */
export const acceptedGenerations = Effect.gen(function* () {
  const settings = yield* EngineConfig
  return acceptedOf(yield* Effect.flatMap(SigningKeys, (k) => k.list(settings.environment)))
})

/** ES256 key ids newest first: the current generation, then the previous one. */
export const acceptedSigningKeyIds = Effect.gen(function* () {
  const settings = yield* EngineConfig
  return (yield* acceptedGenerations).map((seq) => signingKeyId(settings, seq))
})

/** The ID-token key ids of both algorithms, current generation first (what an `id_token_hint` may be signed with). */
export const acceptedIdTokenKeyIds = Effect.gen(function* () {
  const settings = yield* EngineConfig
  return (yield* acceptedGenerations).flatMap((seq) => ID_TOKEN_ALGORITHMS.map((alg) => keyIdFor(settings, alg, seq)))
})

/** The key id that signs new ID tokens with `alg`. */
export const currentIdTokenKeyId = (alg: IdTokenAlgorithm) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    return keyIdFor(settings, alg, (yield* acceptedGenerations)[0]!)
  })

/** The key id that signs new tokens. */
export const currentSigningKeyId = Effect.map(acceptedSigningKeyIds, (ids) => ids[0]!)

/**
 * Whether the master key opens the stored keys (readiness): the current token-signing key signs a
 * probe. "none yet" on a database that has issued no token; a key that cannot be unsealed dies.
 */
export const probeSigningKey = Effect.gen(function* () {
  const store = yield* KeyStore
  const keyId = yield* currentSigningKeyId
  const found = yield* Effect.either(store.get(keyId))
  if (found._tag === "Left") return "none yet" as const
  yield* store.sign(keyId, new TextEncoder().encode("readiness probe"))
  return "ok" as const
})

/**
 * Starts a new key generation, ES256 and RS256 keys together (the admin CLI's `keys rotate`);
 * answers the new key ids and every still-published one.
 */
export const rotateSigningKey = Effect.gen(function* () {
  const settings = yield* EngineConfig
  const store = yield* KeyStore
  const storage = yield* Storage
  const now = yield* Clock.currentTimeMillis
  return yield* storage
    .transaction(
      Effect.gen(function* () {
        const repo = yield* SigningKeys
        const generations = yield* repo.list(settings.environment)
        // Generation 1 predates the table: record it first so the ordering is complete.
        if (generations.length === 0) {
          yield* store.ensure(signingKeyId(settings, 1), "ES256")
          yield* store.ensure(rsaSigningKeyId(settings, 1), "RS256")
          yield* repo.insert({ keyId: signingKeyId(settings, 1), environment: settings.environment, seq: 1, createdAt: now })
        }
        const seq = (generations[0]?.seq ?? 1) + 1
        const keyId = signingKeyId(settings, seq)
        yield* store.ensure(keyId, "ES256")
        yield* store.ensure(rsaSigningKeyId(settings, seq), "RS256")
        yield* repo.insert({ keyId, environment: settings.environment, seq, createdAt: now })
        const previous = generations[0]?.seq ?? 1
        return {
          current: keyId,
          currentRs256: rsaSigningKeyId(settings, seq),
          // in JWKS order: each generation's ES256 key, then its RS256 key; newest first
          published: [keyId, rsaSigningKeyId(settings, seq), signingKeyId(settings, previous), rsaSigningKeyId(settings, previous)],
        }
      }),
    )
    .pipe(Effect.catchTag("UniqueViolation", () => Effect.dieMessage("a concurrent key rotation won; run it again")))
})
