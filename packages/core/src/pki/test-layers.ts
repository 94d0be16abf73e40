/**
 * Test support for pki (not exported from the package): in-memory Certificates, a pass-through
 * Storage, a WebCrypto KeyStore whose keys stay in a Map, WebCrypto randomness and a sandbox config.
 */
import { Effect, Layer, Option } from "effect"
import { toBase64Url } from "../kernel/encoding.ts"
import { EngineConfig, type Environment } from "../ports/engine-config.ts"
import { KeyNotFound, KeyStore, type KeyInfo } from "../ports/key-store.ts"
import { Certificates } from "./ports.ts"
import { Storage, UniqueViolation } from "../ports/storage.ts"
import { Random } from "../ports/random.ts"
import type { CertificateKind, StoredCertificate } from "./model.ts"

/** Services the pki functions need. */
export type PkiServices = KeyStore | Certificates | EngineConfig | Random | Storage

/** What a test can look into. */
export interface PkiTestWorld {
  readonly layer: Layer.Layer<PkiServices>
  /** stored certificates by serial, in insertion order */
  readonly certificates: Map<string, StoredCertificate>
  /** KeyStore keys by id */
  readonly keys: Map<string, Promise<CryptoKeyPair>>
  /** how many times the KeyStore signed */
  readonly signatures: () => number
}

const EC = { name: "ECDSA", namedCurve: "P-256" } as const

/** A fresh in-memory world; `signHashes: false` makes the KeyStore ignore a requested hash (as the port's SHA-256-only stores do). */
export const pkiTestWorld = (options: { readonly environment?: Environment; readonly signHashes?: boolean } = {}): PkiTestWorld => {
  const certificates = new Map<string, StoredCertificate>()
  const currentCa = (kind: CertificateKind, environment: string) =>
    Option.fromNullable([...certificates.values()].filter((c) => c.kind === kind && c.environment === environment && c.status === "valid").at(-1))
  const keys = new Map<string, Promise<CryptoKeyPair>>()
  const created = new Map<string, number>()
  let signatures = 0
  const subtle = globalThis.crypto.subtle

  const pair = (keyId: string) =>
    Effect.suspend(() => {
      const found = keys.get(keyId)
      return found === undefined ? Effect.fail(new KeyNotFound({ keyId })) : Effect.promise(() => found)
    })
  const info = (keyId: string, keys: CryptoKeyPair): Effect.Effect<KeyInfo> =>
    Effect.promise(async () => {
      const jwk = await subtle.exportKey("jwk", keys.publicKey)
      return {
        keyId,
        algorithm: "ES256" as const,
        publicJwk: { kty: jwk.kty ?? "EC", crv: jwk.crv ?? "P-256", x: jwk.x ?? "", y: jwk.y ?? "" },
        createdAt: created.get(keyId) ?? 0,
      }
    })

  const keyStore = KeyStore.of({
    ensure: (keyId) =>
      Effect.suspend(() => {
        if (!keys.has(keyId)) {
          keys.set(keyId, subtle.generateKey(EC, false, ["sign", "verify"]) as Promise<CryptoKeyPair>)
          created.set(keyId, keys.size)
        }
        return pair(keyId).pipe(
          Effect.orDie,
          Effect.flatMap((k) => info(keyId, k)),
        )
      }),
    get: (keyId) => pair(keyId).pipe(Effect.flatMap((k) => info(keyId, k))),
    sign: (keyId: string, data: Uint8Array, hash?: "SHA-256" | "SHA-384" | "SHA-512") =>
      pair(keyId).pipe(
        Effect.flatMap((k) =>
          Effect.promise(async () => {
            signatures++
            const algorithm = { name: "ECDSA", hash: options.signHashes === false ? "SHA-256" : (hash ?? "SHA-256") }
            return new Uint8Array(await subtle.sign(algorithm, k.privateKey, new Uint8Array(data)))
          }),
        ),
      ),
    decrypt: (keyId) => Effect.die(new Error(`the PKI test KeyStore holds signing keys only (${keyId})`)),
  })

  // Every repository call crosses an async boundary, so racing fibers interleave as they would on a database.
  const io = <A>(f: () => A): Effect.Effect<A> => Effect.promise(() => Promise.resolve().then(f))
  const certificateRepository = Certificates.of({
    insert: (c) =>
      io(() => {
        if (certificates.has(c.serial)) return false
        certificates.set(c.serial, c)
        return true
      }).pipe(Effect.flatMap((ok) => (ok ? Effect.void : Effect.fail(new UniqueViolation({ what: "certificate serial" }))))),
    findBySerial: (serial) => io(() => Option.fromNullable(certificates.get(serial))),
    findCurrentCa: (kind, environment) => io(() => currentCa(kind, environment)),
    findCurrentCas: (environment) => io(() => ({ root: currentCa("root", environment), issuing: currentCa("issuing", environment) })),
    listByUser: (userId) => io(() => [...certificates.values()].filter((c) => c.userId === userId).reverse()),
    listRevokedBy: (issuerSerial) => io(() => [...certificates.values()].filter((c) => c.issuerSerial === issuerSerial && c.status === "revoked")),
    revoke: (serial, at, reason) =>
      io(() => {
        const c = certificates.get(serial)
        if (c !== undefined && c.status === "valid") certificates.set(serial, { ...c, status: "revoked", revokedAt: at, revocationReason: reason })
      }),
  })

  const layer = Layer.mergeAll(
    Layer.succeed(KeyStore, keyStore),
    Layer.succeed(Certificates, certificateRepository),
    Layer.succeed(Storage, Storage.of({ transaction: (effect) => effect })),
    Layer.succeed(Random, Random.of({ bytes: (n) => Effect.sync(() => globalThis.crypto.getRandomValues(new Uint8Array(n))) })),
    Layer.succeed(
      EngineConfig,
      EngineConfig.of({
        environment: options.environment ?? "sandbox",
        publicOrigin: "http://localhost:3000",
        basePath: "",
        accessTokenTtlSeconds: 3600,
        ceremonyTtlSeconds: 300,
        sessionTtlSeconds: 3600,
      }),
    ),
  )
  return { layer, certificates, keys, signatures: () => signatures }
}

/** A user for tests, with a random id. */
export const testUser = (fields: { readonly email?: string; readonly displayName?: string; readonly emailVerifiedAt?: number | null } = {}) => ({
  id: toBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(9))),
  email: fields.email ?? "ada@example.com",
  displayName: fields.displayName ?? "Ada Lovelace",
  createdAt: 0,
  emailVerifiedAt: fields.emailVerifiedAt === undefined ? 0 : fields.emailVerifiedAt,
})
