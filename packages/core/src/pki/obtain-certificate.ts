/**
 * Find-or-issue of a certificate for a KeyStore key, safe when callers race (on one node or many).
 *
 * Keys come in generations (`.../1`, `.../2`, ...): a key whose certificate is revoked or expired is
 * left behind and the next generation is certified. `KeyStore.ensure` is idempotent, and the serial
 * is a function of the key id and public key (`certificateSerial`), so two racers that both find no
 * certificate build certificates with the same serial; the repository's unique serial lets one
 * insert win, and the other (on `UniqueViolation`, outside its rolled-back transaction) reads and
 * returns the winner's. Everyone ends with the one stored certificate.
 */
import { Effect, Option } from "effect"
import { toBase64 } from "../kernel/encoding.ts"
import { KeyStore, type KeyAlgorithm } from "../ports/key-store.ts"
import { Certificates } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import { certificateSerial, publicKeyInfo } from "./issue-certificate.ts"
import type { StoredCertificate } from "./model.ts"

/** A key generation ready to be certified. */
export interface KeyToCertify {
  readonly keyId: string
  readonly serial: string
  /** DER SubjectPublicKeyInfo */
  readonly publicKey: Uint8Array
}

/** How to find, judge and issue the certificate of one line of keys. */
export interface CertificateLine {
  /** KeyStore id of generation `n` (from 1) of the key. */
  readonly keyIdOf: (generation: number) => string
  /** Whether a stored certificate may still be used (valid, unexpired, issued by the current CA...). */
  readonly usable: (certificate: StoredCertificate) => boolean
  /** The kind of key certified (default `ES256`, signing). */
  readonly algorithm?: KeyAlgorithm
  /** Issues the certificate of a key generation (not stored yet). */
  readonly issue: (key: KeyToCertify) => Effect.Effect<StoredCertificate, never, KeyStore>
}

const MAX_GENERATIONS = 1000

/** The first usable certificate among the line's key generations, issuing and storing one if none is. */
export const obtainCertificate = (line: CertificateLine): Effect.Effect<StoredCertificate, never, KeyStore | Certificates | Storage> =>
  Effect.gen(function* () {
    const store = yield* KeyStore
    const certificates = yield* Certificates
    const storage = yield* Storage
    const stored = (serial: string) =>
      certificates.findBySerial(serial).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.die(new Error(`certificate ${serial} vanished after a unique violation`)),
            onSome: Effect.succeed,
          }),
        ),
      )

    const attempt = (generation: number): Effect.Effect<StoredCertificate> =>
      Effect.gen(function* () {
        if (generation > MAX_GENERATIONS)
          return yield* Effect.die(new Error(`no usable certificate in ${MAX_GENERATIONS} key generations of ${line.keyIdOf(1)}`))
        const keyId = line.keyIdOf(generation)
        const publicKey = yield* publicKeyInfo(yield* store.ensure(keyId, line.algorithm ?? "ES256"))
        const serial = yield* certificateSerial(keyId, publicKey)
        const existing = yield* certificates.findBySerial(serial)
        if (Option.isSome(existing)) return line.usable(existing.value) ? existing.value : yield* attempt(generation + 1)
        const fresh = yield* line.issue({ keyId, serial, publicKey }).pipe(Effect.provideService(KeyStore, store))
        const winner = yield* storage
          .transaction(
            Effect.gen(function* () {
              const raced = yield* certificates.findBySerial(serial)
              if (Option.isSome(raced)) return raced.value
              yield* certificates.insert(fresh)
              return fresh
            }),
          )
          .pipe(Effect.catchTag("UniqueViolation", () => stored(serial)))
        return line.usable(winner) ? winner : yield* attempt(generation + 1)
      })
    return yield* attempt(1)
  })

/** A stored-certificate row for a freshly issued certificate. */
export const storedCertificate = (fields: {
  readonly key: KeyToCertify
  readonly kind: StoredCertificate["kind"]
  readonly environment: StoredCertificate["environment"]
  readonly userId: string | null
  readonly subject: string
  readonly issuerSerial: string | null
  readonly der: Uint8Array
  readonly notBefore: number
  readonly notAfter: number
  readonly createdAt: number
}): StoredCertificate => ({
  serial: fields.key.serial,
  kind: fields.kind,
  environment: fields.environment,
  userId: fields.userId,
  keyId: fields.key.keyId,
  subject: fields.subject,
  issuerSerial: fields.issuerSerial,
  der: toBase64(fields.der),
  notBefore: fields.notBefore,
  notAfter: fields.notAfter,
  status: "valid",
  revokedAt: null,
  revocationReason: null,
  createdAt: fields.createdAt,
})
