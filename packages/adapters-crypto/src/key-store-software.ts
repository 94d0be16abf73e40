/**
 * The software KeyStore: keys made with Web Crypto, private halves sealed with AES-256-GCM
 * under the master key before they reach storage. The master key lives only in the
 * process (configuration), never in the database; the key id is bound as associated data
 * so a sealed key cannot be swapped under another id.
 */
import {
  KeyDecryptionFailed,
  KeyNotFound,
  KeyRecords,
  KeyStore,
  fromBase64,
  type KeyAlgorithm,
  type KeyInfo,
  type OaepHash,
  type SignatureHash,
  type StoredKey,
  traced,
} from "@signet/core"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { sealPrivateKey, unsealPrivateKey } from "./sealed-private-key.ts"
import { KeyObject, sign as nodeSign } from "node:crypto"

/** The 32-byte master key that seals private keys at rest. */
export class MasterKey extends Context.Tag("@signet/adapters-crypto/MasterKey")<MasterKey, Uint8Array>() {}

/** The master key is missing or not 32 bytes. */
export class InvalidMasterKey extends Error {
  override readonly name = "InvalidMasterKey"
}

/** Parses a master key given as 64 hex characters or base64(url) of 32 bytes. */
export const parseMasterKey = (text: string): Uint8Array => {
  const trimmed = text.trim()
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Uint8Array.from(trimmed.match(/../g)!.map((h) => parseInt(h, 16))) : fromBase64(trimmed)
  if (bytes === undefined || bytes.length !== 32) {
    throw new InvalidMasterKey("master key must be 32 bytes, as 64 hex characters or base64")
  }
  return bytes
}

const EC = { name: "ECDSA", namedCurve: "P-256" } as const
const RSA_OAEP = { name: "RSA-OAEP", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" } as const
const RSA_PKCS1 = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" } as const
const subtle = () => globalThis.crypto.subtle
const nodeKeys = new WeakMap<CryptoKey, KeyObject>()
const NODE_HASH: Record<SignatureHash, string> = { "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" }

// A record never changes once written and the store keeps the one it read: its info is made once
// (the bearer check asks for it on every request). Shared between callers: domain values are read-only.
const infos = new WeakMap<StoredKey, KeyInfo>()

const infoOf = (stored: StoredKey): KeyInfo => {
  const known = infos.get(stored)
  if (known !== undefined) return known
  const info: KeyInfo = {
    keyId: stored.keyId,
    algorithm: stored.algorithm as KeyAlgorithm,
    publicJwk: JSON.parse(stored.publicJwk) as KeyInfo["publicJwk"],
    createdAt: stored.createdAt,
  }
  infos.set(stored, info)
  return info
}

/** The software KeyStore over the `KeyRecords` repository; unsealed keys are cached as non-extractable handles. */
export const KeyStoreSoftware: Layer.Layer<KeyStore, never, KeyRecords | MasterKey> = Layer.effect(
  KeyStore,
  Effect.gen(function* () {
    const records = yield* KeyRecords
    const masterBytes = yield* MasterKey
    const master = yield* Effect.promise(() => subtle().importKey("raw", new Uint8Array(masterBytes), { name: "AES-GCM" }, false, ["encrypt", "decrypt"]))
    const signers = new Map<string, CryptoKey>()
    // Key records never change once written, so a record read once is kept (keys are few).
    const known = new Map<string, StoredKey>()

    const find = (keyId: string) => {
      const cached = known.get(keyId)
      if (cached !== undefined) return Effect.succeed(cached)
      return records.findById(keyId).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(new KeyNotFound({ keyId })), onSome: Effect.succeed })),
        Effect.tap((stored) => Effect.sync(() => known.set(keyId, stored))),
      )
    }

    const create = (keyId: string, algorithm: KeyAlgorithm) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const stored = yield* Effect.promise(async (): Promise<StoredKey> => {
          if (algorithm === "RSA-OAEP-2048" || algorithm === "RS256") {
            const pair =
              algorithm === "RS256"
                ? ((await subtle().generateKey(RSA_PKCS1, true, ["sign", "verify"])) as CryptoKeyPair)
                : ((await subtle().generateKey(RSA_OAEP, true, ["encrypt", "decrypt"])) as CryptoKeyPair)
            const { kty, n, e } = await subtle().exportKey("jwk", pair.publicKey)
            const pkcs8 = await subtle().exportKey("pkcs8", pair.privateKey)
            return {
              keyId,
              algorithm,
              publicJwk: JSON.stringify({ kty, n, e }),
              encryptedPrivateKey: await sealPrivateKey(master, keyId, pkcs8),
              createdAt: now,
            }
          }
          const pair = (await subtle().generateKey(EC, true, ["sign", "verify"])) as CryptoKeyPair
          const { kty, crv, x, y } = await subtle().exportKey("jwk", pair.publicKey)
          const pkcs8 = await subtle().exportKey("pkcs8", pair.privateKey)
          return {
            keyId,
            algorithm,
            publicJwk: JSON.stringify({ kty, crv, x, y }),
            encryptedPrivateKey: await sealPrivateKey(master, keyId, pkcs8),
            createdAt: now,
          }
        })
        // Another node may have created it first: theirs wins, ours is dropped unseen.
        return yield* records.insert(stored).pipe(
          Effect.as(infoOf(stored)),
          Effect.catchTag("UniqueViolation", () => find(keyId).pipe(Effect.map(infoOf), Effect.orDie)),
        )
      })

    // WebCrypto fixes an RSA signing key's hash at import, so RSA keys are imported once per hash (ECDSA takes it per signature).
    const slotOf = (stored: StoredKey, hash: SignatureHash) => (stored.algorithm === "RS256" ? `${hash} ${stored.keyId}` : stored.keyId)
    const signer = (keyId: string, hash: SignatureHash) =>
      Effect.gen(function* () {
        const stored = yield* find(keyId)
        const rsa = stored.algorithm === "RS256"
        if (stored.algorithm === "RSA-OAEP-2048") return yield* Effect.dieMessage(`key ${keyId} is a decryption key; it does not sign`)
        const slot = slotOf(stored, hash)
        const cached = signers.get(slot)
        if (cached !== undefined) return { key: cached, rsa }
        const key = yield* Effect.promise(async () =>
          subtle().importKey(
            "pkcs8",
            await unsealPrivateKey(master, keyId, stored.encryptedPrivateKey),
            rsa ? { name: "RSASSA-PKCS1-v1_5", hash } : EC,
            false,
            ["sign"],
          ),
        )
        signers.set(slot, key)
        return { key, rsa }
      })

    // WebCrypto fixes the OAEP hash at import, so a decryption key is imported once per hash it is used with.
    const decrypters = new Map<string, CryptoKey>()
    const decrypter = (keyId: string, hash: OaepHash) =>
      Effect.gen(function* () {
        const cached = decrypters.get(`${hash} ${keyId}`)
        if (cached !== undefined) return cached
        const stored = yield* find(keyId)
        if (stored.algorithm !== "RSA-OAEP-2048") return yield* new KeyDecryptionFailed({ keyId })
        const key = yield* Effect.promise(async () =>
          subtle().importKey("pkcs8", await unsealPrivateKey(master, keyId, stored.encryptedPrivateKey), { name: "RSA-OAEP", hash }, false, ["decrypt"]),
        )
        decrypters.set(`${hash} ${keyId}`, key)
        return key
      })

    return {
      ensure: (keyId, algorithm) =>
        find(keyId).pipe(
          Effect.map(infoOf),
          Effect.catchTag("KeyNotFound", () => create(keyId, algorithm)),
        ),
      get: (keyId) => find(keyId).pipe(Effect.map(infoOf)),
      // node:crypto signs in the calling thread: WebCrypto's sign is a thread-pool round trip that costs more than the signature.
      sign: (keyId, data, hash = "SHA-256") => {
        const signNow = ({ key, rsa }: { readonly key: CryptoKey; readonly rsa: boolean }) => {
          const nodeKey = nodeKeys.get(key) ?? KeyObject.from(key)
          nodeKeys.set(key, nodeKey)
          const algorithm = NODE_HASH[hash]
          return new Uint8Array(rsa ? nodeSign(algorithm, data, nodeKey) : nodeSign(algorithm, data, { key: nodeKey, dsaEncoding: "ieee-p1363" }))
        }
        // A key already unsealed signs in one step: the lookup's runtime steps cost about a third of an ECDSA signature.
        const stored = known.get(keyId)
        const key = stored === undefined ? undefined : signers.get(slotOf(stored, hash))
        const signed =
          stored !== undefined && key !== undefined
            ? Effect.sync(() => signNow({ key, rsa: stored.algorithm === "RS256" }))
            : Effect.map(signer(keyId, hash), signNow)
        return signed.pipe(traced("keystore.sign", { attributes: { "signet.key_id": keyId, "signet.hash": hash } }))
      },
      decrypt: (keyId, ciphertext, hash) =>
        decrypter(keyId, hash).pipe(
          Effect.flatMap((key) =>
            Effect.tryPromise({
              try: () => subtle().decrypt({ name: "RSA-OAEP" }, key, new Uint8Array(ciphertext)),
              catch: () => new KeyDecryptionFailed({ keyId }),
            }).pipe(Effect.map((plain) => new Uint8Array(plain))),
          ),
        ),
    }
  }),
)
