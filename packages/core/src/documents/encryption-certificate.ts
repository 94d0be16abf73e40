/**
 * A user's encryption key and certificate: an RSA-OAEP 2048 key in the KeyStore
 * (`<environment>/encryption/<userId>/<n>`) certified by the environment's issuing CA for key
 * transport (keyUsage keyEncipherment), so `openssl cms -encrypt` and the engine can address
 * CMS EnvelopedData to it. Issued on first use; a new generation replaces a revoked or expired one.
 */
import type { Effect } from "effect"
import type { User } from "../identity/model.ts"
import type { KeyStore } from "../ports/key-store.ts"
import type { Certificates } from "../pki/ports.ts"
import type { Storage } from "../ports/storage.ts"
import type { EngineConfig } from "../ports/engine-config.ts"
import type { Random } from "../ports/random.ts"
import type { StoredCertificate } from "../pki/model.ts"
import { userCertificateFor } from "../pki/signer-certificate.ts"

/** The user's encryption certificate with the chain up to (not including) the root. */
export interface EncryptionIdentity {
  readonly keyId: string
  readonly certificate: StoredCertificate
  readonly chain: ReadonlyArray<StoredCertificate>
}

/** The user's current encryption key and certificate, issuing them when the user has none usable. */
export const encryptionIdentityFor = (user: User): Effect.Effect<EncryptionIdentity, never, KeyStore | Certificates | EngineConfig | Random | Storage> =>
  userCertificateFor(user, "encryption")
