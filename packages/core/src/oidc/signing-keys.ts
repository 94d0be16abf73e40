/**
 * Token-signing key rotation. Generation 1 is the KeyStore key `<env>/access-token/1` every
 * engine has used; a rotation adds generation n+1, which signs from then on. The JWKS
 * publishes the current and the previous generation, so tokens signed before a rotation
 * verify until they expire (rotate no more often than the longest token lifetime).
 */
import { Clock, Effect } from "effect"
import { EngineConfig, type EngineSettings } from "../ports/engine-config.ts"
import { KeyStore } from "../ports/key-store.ts"
import { SigningKeys, Storage } from "../ports/storage.ts"

/** The KeyStore id of generation `seq` of an environment's token-signing key. */
export const signingKeyId = (s: Pick<EngineSettings, "environment">, seq: number): string => `${s.environment}/access-token/${seq}`

/** How many generations verify: the current one and the one before it. */
const PUBLISHED_GENERATIONS = 2

/** Key ids newest first: the current generation, then the previous one. */
export const acceptedSigningKeyIds = Effect.gen(function* () {
  const settings = yield* EngineConfig
  const generations = yield* Effect.flatMap(SigningKeys, (k) => k.list(settings.environment))
  if (generations.length === 0) return [signingKeyId(settings, 1)]
  return generations.slice(0, PUBLISHED_GENERATIONS).map((g) => g.keyId)
})

/** The key id that signs new tokens. */
export const currentSigningKeyId = Effect.map(acceptedSigningKeyIds, (ids) => ids[0]!)

/** Starts a new key generation (the admin CLI's `keys rotate`); answers the new and the still-published key ids. */
export const rotateSigningKey = Effect.gen(function* () {
  const settings = yield* EngineConfig
  const store = yield* KeyStore
  const storage = yield* Storage
  const now = yield* Clock.currentTimeMillis
  return yield* storage.transaction(Effect.gen(function* () {
    const repo = yield* SigningKeys
    const generations = yield* repo.list(settings.environment)
    // Generation 1 predates the table: record it first so the ordering is complete.
    if (generations.length === 0) {
      yield* store.ensure(signingKeyId(settings, 1), "ES256")
      yield* repo.insert({ keyId: signingKeyId(settings, 1), environment: settings.environment, seq: 1, createdAt: now })
    }
    const seq = (generations[0]?.seq ?? 1) + 1
    const keyId = signingKeyId(settings, seq)
    yield* store.ensure(keyId, "ES256")
    yield* repo.insert({ keyId, environment: settings.environment, seq, createdAt: now })
    return { current: keyId, published: [keyId, generations[0]?.keyId ?? signingKeyId(settings, 1)] }
  })).pipe(Effect.catchTag("UniqueViolation", () => Effect.dieMessage("a concurrent key rotation won; run it again")))
})
