/**
 * A user's encryption key and certificate: an RSA-OAEP 2048 key in the KeyStore
 * (`<environment>/encryption/<userId>/<n>`) certified by the environment's issuing CA for key
 * transport (keyUsage keyEncipherment), so `openssl cms -encrypt` and the engine can address
 * CMS EnvelopedData to it. Issued on first use; a new generation replaces a revoked or expired one.
 */
import { Clock, Effect } from "effect"
import type { User } from "../identity/model.ts"
import { EngineConfig, issuerOf as issuerOfEngine } from "../ports/engine-config.ts"
import type { KeyStore } from "../ports/key-store.ts"
import type { Random } from "../ports/random.ts"
import { Certificates, type Storage } from "../ports/storage.ts"
import { certificateAuthority } from "../pki/authority.ts"
import { issueCertificate, issuerOf, rfc4514, validity } from "../pki/issue-certificate.ts"
import type { StoredCertificate } from "../pki/model.ts"
import { obtainCertificate, storedCertificate } from "../pki/obtain-certificate.ts"
import { SIGNER_VALIDITY_YEARS, signerSubject } from "../pki/signer-certificate.ts"
import * as x509 from "../pki/x509.ts"

/** The user's encryption certificate with the chain up to (not including) the root. */
export interface EncryptionIdentity {
  readonly keyId: string
  readonly certificate: StoredCertificate
  readonly chain: ReadonlyArray<StoredCertificate>
}

/** The user's current encryption key and certificate, issuing them when the user has none usable. */
export const encryptionIdentityFor = (user: User): Effect.Effect<EncryptionIdentity, never, KeyStore | Certificates | EngineConfig | Random | Storage> =>
  Effect.gen(function* () {
    const ca = yield* certificateAuthority
    const settings = yield* EngineConfig
    const { environment } = settings
    const issuerUrl = issuerOfEngine(settings)
    const now = yield* Clock.currentTimeMillis
    const subject = signerSubject(environment, user)
    const subjectText = rfc4514(subject)
    const usable = (c: StoredCertificate) =>
      c.kind === "encryption" && c.environment === environment && c.userId === user.id && c.status === "valid" &&
      c.notAfter > now && c.issuerSerial === ca.issuing.serial && c.subject === subjectText
    const existing = (yield* Effect.flatMap(Certificates, (c) => c.listByUser(user.id))).find(usable)
    const certificate = existing ?? (yield* obtainCertificate({
      keyIdOf: (generation) => `${environment}/encryption/${user.id}/${generation}`,
      algorithm: "RSA-OAEP-2048",
      usable,
      issue: (key) => Effect.gen(function* () {
        const { notBefore, notAfter } = validity(now, SIGNER_VALIDITY_YEARS, ca.issuing.notAfter)
        const email = user.email
        const der = yield* issueCertificate({
          serial: key.serial, subject, publicKey: key.publicKey, issuer: yield* issuerOf(ca.issuing), notBefore, notAfter,
          extensions: [
            new x509.BasicConstraintsExtension(false, undefined, true),
            new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyEncipherment, true),
            new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection]),
            ...(/^[\x21-\x7e]+@[\x21-\x7e]+$/.test(email) ? [new x509.SubjectAlternativeNameExtension([{ type: "email", value: email }])] : []),
            new x509.AuthorityInfoAccessExtension({ ocsp: `${issuerUrl}/v2/ocsp` }),
            new x509.CRLDistributionPointsExtension([`${issuerUrl}/v2/ca/issuing.crl`]),
          ],
        })
        return storedCertificate({
          key, kind: "encryption", environment, userId: user.id, subject: subjectText, issuerSerial: ca.issuing.serial,
          der, notBefore, notAfter, createdAt: now,
        })
      }),
    }))
    return { keyId: certificate.keyId, certificate, chain: [ca.issuing] }
  })
