/**
 * A user's keys and certificates of a kind (signer, encryption), issued by the environment's
 * issuing CA on first use. The key lives in the KeyStore as `<environment>/<kind>/<userId>/<n>`; a new generation is made when the
 * current certificate is revoked or expired, the CA changed, or the certified subject did (an e-mail proven since).
 */
import { Clock, Effect } from "effect"
import type { User } from "../identity/model.ts"
import type { KeyAlgorithm, KeyStore } from "../ports/key-store.ts"
import { Certificates } from "./ports.ts"
import type { Storage } from "../ports/storage.ts"
import { EngineConfig, issuerOf as issuerOfEngine, type Environment } from "../ports/engine-config.ts"
import type { Random } from "../ports/random.ts"
import { certificateAuthority } from "./authority.ts"
import { issueCertificate, issuerOf, rfc4514, validity, type DistinguishedName, type NameAttribute } from "./issue-certificate.ts"
import type { StoredCertificate } from "./model.ts"
import { obtainCertificate, storedCertificate, type CertificateLine, type KeyToCertify } from "./obtain-certificate.ts"
import { KeyUsage, loadX509 } from "./x509.ts"

/** A signer's key and current certificate (created on first use), with the chain up to (not including) the root. */
export interface SigningIdentity {
  readonly keyId: string
  readonly certificate: StoredCertificate
  readonly chain: ReadonlyArray<StoredCertificate>
}

/** Lifetime of a signer certificate, in years (never past the issuing CA's). */
export const SIGNER_VALIDITY_YEARS = 2

/** ub-common-name (RFC 5280): a common name has at most 64 characters. */
const COMMON_NAME_MAX = 64

/** E-mail addresses that fit an IA5String (rfc822Name, emailAddress). */
const asciiEmail = (email: string): boolean => /^[\x21-\x7e]+@[\x21-\x7e]+$/.test(email)

/** The e-mail a certificate may name: one its owner proved (a code sent through the Mailer). */
const provenEmail = (user: Pick<User, "email" | "emailVerifiedAt">): string | undefined => (user.emailVerifiedAt !== null ? user.email : undefined)

/** A proven e-mail that also fits an IA5String (the E attribute, rfc822Name). */
const certifiedEmail = (user: Pick<User, "email" | "emailVerifiedAt">): string | undefined => {
  const email = provenEmail(user)
  return email !== undefined && asciiEmail(email) ? email : undefined
}

/**
 * Subject of a user's certificate: only what the engine verified. The display name is the
 * user's own claim (anyone can call themselves "Chief Executive Officer, Bank Example Ltd")
 * and is never certified: `CN=<proven e-mail>, E=<proven e-mail>`, or, with no proven
 * e-mail, `CN=Signet account <user id>` (sandbox: plus `OU=SANDBOX`).
 */
export const signerSubject = (environment: Environment, user: Pick<User, "id" | "email" | "emailVerifiedAt">): DistinguishedName => {
  const email = certifiedEmail(user)
  const name = provenEmail(user) ?? `Signet account ${user.id}`
  const attributes: Array<NameAttribute> = []
  if (environment === "sandbox") attributes.push({ type: "OU", value: "SANDBOX" })
  attributes.push({ type: "CN", value: Array.from(name).slice(0, COMMON_NAME_MAX).join("") })
  if (email !== undefined) attributes.push({ type: "E", value: email })
  return attributes
}

/** The kinds of certificate a user holds, one key line each. */
export type UserCertificateKind = "signer" | "encryption"

/** What differs between the kinds: the key algorithm and the key usage certified. */
const KINDS: Record<UserCertificateKind, { readonly algorithm: KeyAlgorithm; readonly keyUsage: number }> = {
  signer: { algorithm: "ES256", keyUsage: KeyUsage.digitalSignature | KeyUsage.nonRepudiation },
  // Key transport, so `openssl cms -encrypt` and the engine can address EnvelopedData to it.
  encryption: { algorithm: "RSA-OAEP-2048", keyUsage: KeyUsage.keyEncipherment },
}

/** The line of a user's keys of one kind (`<environment>/<kind>/<userId>/<n>`) and what makes one of their certificates usable now. */
const userCertificateLine = (user: User, kind: UserCertificateKind) =>
  Effect.gen(function* () {
    const x509 = yield* loadX509
    const ca = yield* certificateAuthority
    const settings = yield* EngineConfig
    const { environment } = settings
    const issuerUrl = issuerOfEngine(settings)
    const now = yield* Clock.currentTimeMillis
    const subject = signerSubject(environment, user)
    const subjectText = rfc4514(x509, subject)
    const usable = (c: StoredCertificate) =>
      c.kind === kind &&
      c.environment === environment &&
      c.userId === user.id &&
      c.status === "valid" &&
      c.notAfter > now &&
      c.issuerSerial === ca.issuing.serial &&
      c.subject === subjectText
    const line: CertificateLine = {
      keyIdOf: (generation: number) => `${environment}/${kind}/${user.id}/${generation}`,
      algorithm: KINDS[kind].algorithm,
      usable,
      issue: (key: KeyToCertify) =>
        Effect.gen(function* () {
          const { notBefore, notAfter } = validity(now, SIGNER_VALIDITY_YEARS, ca.issuing.notAfter)
          const der = yield* issueCertificate({
            serial: key.serial,
            subject,
            publicKey: key.publicKey,
            issuer: yield* issuerOf(ca.issuing),
            notBefore,
            notAfter,
            extensions: [
              new x509.BasicConstraintsExtension(false, undefined, true),
              new x509.KeyUsagesExtension(KINDS[kind].keyUsage, true),
              new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection]),
              ...(certifiedEmail(user) !== undefined ? [new x509.SubjectAlternativeNameExtension([{ type: "email", value: user.email }])] : []),
              // Where relying parties check revocation (docs/certificates.md).
              new x509.AuthorityInfoAccessExtension({ ocsp: `${issuerUrl}/v2/ocsp` }),
              new x509.CRLDistributionPointsExtension([`${issuerUrl}/v2/ca/issuing.crl`]),
            ],
          })
          return storedCertificate({
            key,
            kind,
            environment,
            userId: user.id,
            subject: subjectText,
            issuerSerial: ca.issuing.serial,
            der,
            notBefore,
            notAfter,
            createdAt: now,
          })
        }),
    }
    return { ca, line }
  })

/**
 * The user's current key and certificate of a kind, issuing them when the user has none usable.
 * `listed`: the user's certificates as `Certificates.listByUser` answered them in this unit of work.
 */
export const userCertificateFor = (
  user: User,
  kind: UserCertificateKind,
  listed?: ReadonlyArray<StoredCertificate>,
): Effect.Effect<SigningIdentity, never, KeyStore | Certificates | EngineConfig | Random | Storage> =>
  Effect.gen(function* () {
    const { ca, line } = yield* userCertificateLine(user, kind)
    const certificates = listed ?? (yield* Effect.flatMap(Certificates, (c) => c.listByUser(user.id)))
    const certificate = certificates.find(line.usable) ?? (yield* obtainCertificate(line))
    return { keyId: certificate.keyId, certificate, chain: [ca.issuing] }
  })

/**
 * Renewal of a kind: a new key and certificate, which is used from now on (the newest usable one
 * wins); the earlier certificates stay valid until they expire or are revoked.
 */
export const renewUserCertificate = (
  user: User,
  kind: UserCertificateKind,
): Effect.Effect<StoredCertificate, never, KeyStore | Certificates | EngineConfig | Random | Storage> =>
  Effect.gen(function* () {
    const { line } = yield* userCertificateLine(user, kind)
    const current = new Set((yield* Effect.flatMap(Certificates, (c) => c.listByUser(user.id))).filter(line.usable).map((c) => c.serial))
    // Walk the key generations past every certificate in use today: the first new one is certified.
    return yield* obtainCertificate({ ...line, usable: (c) => line.usable(c) && !current.has(c.serial) })
  })

/** The signer's current key and certificate, issuing them when the user has none usable (`listed`: see `userCertificateFor`). */
export const signingIdentityFor = (
  user: User,
  listed?: ReadonlyArray<StoredCertificate>,
): Effect.Effect<SigningIdentity, never, KeyStore | Certificates | EngineConfig | Random | Storage> => userCertificateFor(user, "signer", listed)

/** Renewal of the signer certificate (`renewUserCertificate` for kind `signer`). */
export const renewSigningCertificate = (user: User): Effect.Effect<StoredCertificate, never, KeyStore | Certificates | EngineConfig | Random | Storage> =>
  renewUserCertificate(user, "signer")
