/**
 * The engine's certificate authority: a self-signed root and an issuing CA below it, per
 * environment, made on first use. Their keys live in the KeyStore (`<environment>/ca/root/<n>`,
 * `<environment>/ca/issuing/<n>`); sandbox certificates say SANDBOX in their subjects.
 */
import { Clock, Effect, Option } from "effect"
import { EngineConfig, type Environment } from "../ports/engine-config.ts"
import type { KeyStore } from "../ports/key-store.ts"
import { Certificates } from "./ports.ts"
import type { Storage } from "../ports/storage.ts"
import type { Random } from "../ports/random.ts"
import { issueCertificate, issuerOf, rfc4514, validity, type DistinguishedName } from "./issue-certificate.ts"
import type { StoredCertificate } from "./model.ts"
import { obtainCertificate, storedCertificate, type KeyToCertify } from "./obtain-certificate.ts"
import { loadX509, type X509 } from "./x509.ts"

/** The CA of this engine's environment: root and issuing certificate (created on first use, idempotent and race-safe). */
export interface CertificateAuthority {
  readonly root: StoredCertificate
  readonly issuing: StoredCertificate
}

/** Lifetime of the root certificate, in years. */
export const ROOT_VALIDITY_YEARS = 20
/** Lifetime of the issuing CA certificate, in years. */
export const ISSUING_VALIDITY_YEARS = 10

const sandboxed = (environment: Environment, dn: DistinguishedName): DistinguishedName =>
  environment === "sandbox" ? [{ type: "O", value: "Signet" }, { type: "OU", value: "SANDBOX" }, ...dn] : [{ type: "O", value: "Signet" }, ...dn]

/** Subject of the root: `CN=Signet Root CA, O=Signet` (sandbox: `CN=Signet Sandbox Root CA, OU=SANDBOX, O=Signet`). */
export const rootSubject = (environment: Environment): DistinguishedName =>
  sandboxed(environment, [{ type: "CN", value: environment === "sandbox" ? "Signet Sandbox Root CA" : "Signet Root CA" }])

/** Subject of issuing CA number `generation`: `CN=Signet Issuing CA 1, O=Signet` (sandbox: `CN=Signet Sandbox Issuing CA 1, OU=SANDBOX, O=Signet`). */
export const issuingSubject = (environment: Environment, generation: number): DistinguishedName =>
  sandboxed(environment, [{ type: "CN", value: `Signet ${environment === "sandbox" ? "Sandbox " : ""}Issuing CA ${generation}` }])

const generationOf = (keyId: string): number => Number(keyId.slice(keyId.lastIndexOf("/") + 1))

const caExtensions = (x509: typeof X509, pathLength: number | undefined): ReadonlyArray<X509.Extension> => [
  new x509.BasicConstraintsExtension(true, pathLength, true),
  new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
]

/** The CA of this engine's environment, creating root and issuing certificate when there are none usable. */
export const certificateAuthority: Effect.Effect<CertificateAuthority, never, KeyStore | Certificates | EngineConfig | Random | Storage> = Effect.gen(
  function* () {
    const { environment } = yield* EngineConfig
    const certificates = yield* Certificates
    const now = yield* Clock.currentTimeMillis
    const live = (c: StoredCertificate) => c.environment === environment && c.status === "valid" && c.notAfter > now
    const current = yield* certificates.findCurrentCas(environment)

    const rootUsable = (c: StoredCertificate) => live(c) && c.kind === "root" && c.issuerSerial === null
    const root =
      Option.getOrUndefined(Option.filter(current.root, rootUsable)) ??
      (yield* obtainCertificate({
        keyIdOf: (generation) => `${environment}/ca/root/${generation}`,
        usable: rootUsable,
        issue: (key: KeyToCertify) =>
          Effect.gen(function* () {
            const x509 = yield* loadX509
            const subject = rootSubject(environment)
            const { notBefore, notAfter } = validity(now, ROOT_VALIDITY_YEARS, null)
            const der = yield* issueCertificate({
              serial: key.serial,
              subject,
              publicKey: key.publicKey,
              issuer: { self: key.keyId },
              notBefore,
              notAfter,
              extensions: caExtensions(x509, undefined),
            })
            return storedCertificate({
              key,
              kind: "root",
              environment,
              userId: null,
              subject: rfc4514(x509, subject),
              issuerSerial: null,
              der,
              notBefore,
              notAfter,
              createdAt: now,
            })
          }),
      }))

    const issuingUsable = (c: StoredCertificate) => live(c) && c.kind === "issuing" && c.issuerSerial === root.serial
    const issuing =
      // Read with the root: when the root was just made, no issuing CA is usable under it, and obtainCertificate finds or makes one.
      Option.getOrUndefined(Option.filter(current.issuing, issuingUsable)) ??
      (yield* obtainCertificate({
        keyIdOf: (generation) => `${environment}/ca/issuing/${generation}`,
        usable: issuingUsable,
        issue: (key: KeyToCertify) =>
          Effect.gen(function* () {
            const x509 = yield* loadX509
            const subject = issuingSubject(environment, generationOf(key.keyId))
            const { notBefore, notAfter } = validity(now, ISSUING_VALIDITY_YEARS, root.notAfter)
            const der = yield* issueCertificate({
              serial: key.serial,
              subject,
              publicKey: key.publicKey,
              issuer: yield* issuerOf(root),
              notBefore,
              notAfter,
              extensions: caExtensions(x509, 0),
            })
            return storedCertificate({
              key,
              kind: "issuing",
              environment,
              userId: null,
              subject: rfc4514(x509, subject),
              issuerSerial: root.serial,
              der,
              notBefore,
              notAfter,
              createdAt: now,
            })
          }),
      }))

    return { root, issuing }
  },
)
