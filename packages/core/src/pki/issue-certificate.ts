/**
 * Issues X.509 certificates signed by a KeyStore key. @peculiar/x509 builds and encodes the
 * certificate; its one call to `crypto.subtle.sign` goes to a Crypto whose `sign` runs
 * `KeyStore.sign` for an opaque key handle, so the issuer's private key never leaves the store.
 */
import { Effect, Runtime } from "effect"
import { setBounded } from "../kernel/bounded-map.ts"
import { concatBytes, fromBase64, toHex, utf8 } from "../kernel/encoding.ts"
import { sha256 } from "../kernel/digest.ts"
import { KeyStore, type KeyInfo } from "../ports/key-store.ts"
import type { StoredCertificate } from "./model.ts"
import { loadX509, type X509 } from "./x509.ts"

/** One attribute of a distinguished name. */
export interface NameAttribute {
  readonly type: "O" | "OU" | "CN" | "E"
  readonly value: string
}

/** A distinguished name, one attribute per RDN, in encoding order (most general first). */
export type DistinguishedName = ReadonlyArray<NameAttribute>

/** The signer of a certificate: its KeyStore key, its subject name (DER) and its key identifier (hex). */
export interface CertificateIssuer {
  readonly keyId: string
  readonly name: X509.Name
  readonly keyIdentifier: string
}

/** What to certify; subject and authority key identifiers are added by `issueCertificate`. */
export interface CertificateTemplate {
  /** serial number, lower-case hex, positive */
  readonly serial: string
  readonly subject: DistinguishedName
  /** DER SubjectPublicKeyInfo of the certified key */
  readonly publicKey: Uint8Array
  /** who signs; `self` with the certified key's own KeyStore id for a self-signed root */
  readonly issuer: CertificateIssuer | { readonly self: string }
  readonly notBefore: number
  readonly notAfter: number
  readonly extensions: ReadonlyArray<X509.Extension>
}

const EC_P256 = { name: "ECDSA", namedCurve: "P-256" } as const

const bytesOf = (data: BufferSource): Uint8Array =>
  ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data)

const hashName = (algorithm: AlgorithmIdentifier | EcdsaParams): string | undefined => {
  if (typeof algorithm === "string") return undefined
  const hash = (algorithm as Partial<EcdsaParams>).hash
  return typeof hash === "string" ? hash : hash?.name
}

/**
 * A Crypto that is the runtime's WebCrypto except that signing with `handle` goes to `sign`
 * (which must return what WebCrypto would: a P1363 ECDSA P-256 / SHA-256 signature).
 */
const keyStoreCrypto = (handle: CryptoKey, sign: (data: Uint8Array) => Promise<Uint8Array>): Crypto => {
  const web = globalThis.crypto
  const subtle = new Proxy(web.subtle, {
    get: (target, property) => {
      if (property === "sign") {
        return async (algorithm: AlgorithmIdentifier | EcdsaParams, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer> => {
          if (key !== handle) return target.sign(algorithm, key, data)
          if (hashName(algorithm)?.toUpperCase() !== "SHA-256") {
            return Promise.reject(new Error(`KeyStore keys sign ECDSA with SHA-256 only, not ${JSON.stringify(algorithm)}`))
          }
          return new Uint8Array(await sign(new Uint8Array(bytesOf(data)))).buffer
        }
      }
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    },
  })
  return new Proxy(web, {
    get: (target, property) => {
      if (property === "subtle") return subtle
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    },
  })
}

/** DER SubjectPublicKeyInfo of a KeyStore key (from its public JWK; RSA keys as rsaEncryption). */
export const publicKeyInfo = (info: KeyInfo): Effect.Effect<Uint8Array> =>
  Effect.promise(async () => {
    if (info.publicJwk.kty === "RSA") {
      const { kty, n, e } = info.publicJwk
      const key = await globalThis.crypto.subtle.importKey("jwk", { kty, n, e, ext: true } as JsonWebKey, { name: "RSA-OAEP", hash: "SHA-256" }, true, [
        "encrypt",
      ])
      return new Uint8Array(await globalThis.crypto.subtle.exportKey("spki", key))
    }
    const { kty, crv, x, y } = info.publicJwk
    const key = await globalThis.crypto.subtle.importKey("jwk", { kty, crv, x, y, ext: true } as JsonWebKey, EC_P256, true, ["verify"])
    return new Uint8Array(await globalThis.crypto.subtle.exportKey("spki", key))
  })

/**
 * The serial number of the certificate of a freshly made key: 16 bytes of SHA-256 over the key id
 * and the public key, positive (top bit 0, next bit 1 so it always encodes in 16 bytes).
 * The public key is random and unknown until the certificate is issued, so the serial is as
 * unpredictable as a random one; being a function of the key, it is the same for two racing
 * issuers of one key, so the repository's unique serial lets only one of them store a certificate.
 */
export const certificateSerial = (keyId: string, spki: Uint8Array): Effect.Effect<string> => {
  const label = utf8(`signet certificate serial\u0000${keyId}\u0000`)
  const input = concatBytes([label, spki])
  return sha256(input).pipe(
    Effect.map((hash) => {
      const serial = hash.slice(0, 16)
      serial[0] = (serial[0]! & 0x3f) | 0x40
      return toHex(serial)
    }),
  )
}

const jsonName = (dn: DistinguishedName): X509.JsonNameParams =>
  dn.map((a) => ({ [a.type]: [a.type === "E" ? { ia5String: a.value } : { utf8String: a.value }] }))

/** The x509 name of a distinguished name, attribute strings encoded as UTF8String (e-mail as IA5String). */
export const toName = (x509: typeof X509, dn: DistinguishedName): X509.Name => new x509.Name(jsonName(dn))

// The texts of the names seen (one per signer): every signature compares its certificate's subject
// with the text, and building an x509 Name costs more than the comparison it serves.
const RFC4514_LIMIT = 4096
const rfc4514Texts = new Map<string, string>()

/** RFC 4514 text of a distinguished name (most specific attribute first), e.g. `CN=Signet Root CA, O=Signet`. */
export const rfc4514 = (x509: typeof X509, dn: DistinguishedName): string => {
  const key = JSON.stringify(dn)
  const known = rfc4514Texts.get(key)
  if (known !== undefined) return known
  const text = new x509.Name(jsonName([...dn].reverse())).toString()
  setBounded(rfc4514Texts, key, text, RFC4514_LIMIT)
  return text
}

/** The DER of a stored certificate (a corrupt row is a defect). */
export const derOf = (certificate: StoredCertificate): Effect.Effect<Uint8Array> => {
  const der = fromBase64(certificate.der)
  return der === undefined ? Effect.die(new Error(`certificate ${certificate.serial} has no valid base64 DER`)) : Effect.succeed(der)
}

/** The issuer facts of a stored CA certificate: its key, subject and subject key identifier. */
export const issuerOf = (ca: StoredCertificate): Effect.Effect<CertificateIssuer> =>
  Effect.gen(function* () {
    const der = yield* derOf(ca)
    const x509 = yield* loadX509
    const cert = yield* Effect.try(() => new x509.X509Certificate(new Uint8Array(der))).pipe(Effect.orDie)
    const ski = cert.getExtension(x509.SubjectKeyIdentifierExtension)
    if (ski === null) return yield* Effect.die(new Error(`CA certificate ${ca.serial} has no subject key identifier`))
    return { keyId: ca.keyId, name: cert.subjectName, keyIdentifier: ski.keyId }
  })

/** A key handle and a Crypto under which @peculiar/x509 signs with KeyStore key `keyId`. */
export const keyStoreSigning = (keyId: string): Effect.Effect<{ readonly handle: CryptoKey; readonly crypto: Crypto }, never, KeyStore> =>
  Effect.gen(function* () {
    const store = yield* KeyStore
    const runtime = yield* Effect.runtime<never>()
    const handle: CryptoKey = { algorithm: EC_P256, extractable: false, type: "private", usages: ["sign"] }
    return { handle, crypto: keyStoreCrypto(handle, (data) => Runtime.runPromise(runtime)(store.sign(keyId, data).pipe(Effect.orDie))) }
  })

/** Builds the certificate and has the issuer's KeyStore key sign it; the DER certificate. */
export const issueCertificate = (template: CertificateTemplate): Effect.Effect<Uint8Array, never, KeyStore> =>
  Effect.gen(function* () {
    const x509 = yield* loadX509
    const ski = yield* Effect.promise(() => x509.SubjectKeyIdentifierExtension.create(new Uint8Array(template.publicKey)))
    const subject = toName(x509, template.subject)
    const issuer: CertificateIssuer = "self" in template.issuer ? { keyId: template.issuer.self, name: subject, keyIdentifier: ski.keyId } : template.issuer
    const { handle, crypto } = yield* keyStoreSigning(issuer.keyId)
    const certificate = yield* Effect.promise(() =>
      x509.X509CertificateGenerator.create(
        {
          serialNumber: template.serial,
          subject,
          issuer: issuer.name,
          notBefore: new Date(template.notBefore),
          notAfter: new Date(template.notAfter),
          publicKey: new Uint8Array(template.publicKey),
          signingKey: handle,
          signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
          extensions: [...template.extensions, ski, new x509.AuthorityKeyIdentifierExtension(issuer.keyIdentifier)],
        },
        crypto,
      ),
    )
    return new Uint8Array(certificate.rawData)
  })

/** Tolerated clock skew of relying parties: certificates are valid from this long before issuance. */
export const CLOCK_SKEW_MS = 5 * 60 * 1000

/** Validity of a certificate issued at `now`: from `now` − 5 minutes for `years` calendar years, never past the issuer's end; whole seconds. */
export const validity = (now: number, years: number, issuerNotAfter: number | null): { readonly notBefore: number; readonly notAfter: number } => {
  const start = Math.floor(now / 1000) * 1000
  const end = new Date(start)
  end.setUTCFullYear(end.getUTCFullYear() + years)
  return { notBefore: start - CLOCK_SKEW_MS, notAfter: Math.min(end.getTime(), issuerNotAfter ?? Number.POSITIVE_INFINITY) }
}
