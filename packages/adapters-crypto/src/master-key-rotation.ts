/**
 * Re-sealing under a new master key: what `pnpm admin rotate-master-key` applies to every sealed
 * value in the database. A value already under the new key is left as it is, so an interrupted
 * rotation resumes by running again; a value that neither key opens is refused, never skipped.
 */
import { sealingKeys } from "./vault-master-key.ts"
import { sealPrivateKey, unsealPrivateKey } from "./sealed-private-key.ts"

/** A sealed value opens under neither the old nor the new master key (a wrong `--new`, a wrong current key, or damage). */
export class SealedValueUnopenable extends Error {
  override readonly name = "SealedValueUnopenable"
}

/** Moves one sealed value from the old master key to the new; `undefined` when it is already under the new one. */
export interface MasterKeyResealer {
  /** A software KeyStore private key (base64, bound to its key id). */
  readonly privateKey: (keyId: string, sealed: string) => Promise<string | undefined>
  /** A Vault value (nonce and ciphertext) of a purpose, bound to its record. */
  readonly vault: (sealed: Uint8Array, purpose: string, aad: string) => Promise<Uint8Array | undefined>
}

const opens = <A>(attempt: Promise<A>): Promise<A | undefined> =>
  attempt.then(
    (a) => a,
    () => undefined,
  )

/** The resealer from `previous` to `next` (both 32-byte master keys, different). */
export const masterKeyResealer = async (previous: Uint8Array, next: Uint8Array): Promise<MasterKeyResealer> => {
  if (previous.length === next.length && previous.every((b, i) => b === next[i])) {
    throw new SealedValueUnopenable("the new master key is the current one")
  }
  const aes = (raw: Uint8Array) => globalThis.crypto.subtle.importKey("raw", new Uint8Array(raw), { name: "AES-GCM" }, false, ["encrypt", "decrypt"])
  const [oldAes, newAes, oldVault, newVault] = await Promise.all([aes(previous), aes(next), sealingKeys(previous), sealingKeys(next)])
  return {
    privateKey: async (keyId, sealed) => {
      if ((await opens(unsealPrivateKey(newAes, keyId, sealed))) !== undefined) return undefined
      const plain = await opens(unsealPrivateKey(oldAes, keyId, sealed))
      if (plain === undefined) throw new SealedValueUnopenable(`the private key ${keyId} opens under neither master key`)
      return sealPrivateKey(newAes, keyId, plain)
    },
    vault: async (sealed, purpose, aad) => {
      if ((await opens(newVault.open(sealed, purpose, aad))) !== undefined) return undefined
      const plain = await opens(oldVault.open(sealed, purpose, aad))
      if (plain === undefined) throw new SealedValueUnopenable(`a ${purpose} value (${aad}) opens under neither master key`)
      return newVault.seal(plain, purpose, aad)
    },
  }
}
