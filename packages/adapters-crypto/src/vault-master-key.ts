/**
 * `Vault` under the master key: one AES-256-GCM key per purpose, derived with HKDF-SHA-256
 * (info `signet/<purpose>/v1`), a random 96-bit nonce per value, the record id as additional
 * data. The master key stays in the process; the database holds only sealed bytes.
 */
import { Vault } from "@signet/core"
import { Effect, Layer } from "effect"
import { MasterKey } from "./key-store-software.ts"

const subtle = () => globalThis.crypto.subtle
const text = (s: string) => new TextEncoder().encode(s)

/** Seal and open under one master key, as promises (the Vault and the master-key rotation share it). */
export interface SealingKeys {
  readonly seal: (plain: Uint8Array, purpose: string, aad: string) => Promise<Uint8Array>
  /** Rejects when the bytes were sealed under another master key, purpose or record. */
  readonly open: (sealed: Uint8Array, purpose: string, aad: string) => Promise<Uint8Array>
}

/** The per-purpose keys derived from a master key. */
export const sealingKeys = async (master: Uint8Array): Promise<SealingKeys> => {
  const base = await subtle().importKey("raw", new Uint8Array(master), "HKDF", false, ["deriveKey"])
  const keys = new Map<string, Promise<CryptoKey>>()
  const keyFor = (purpose: string) => {
    let key = keys.get(purpose)
    if (key === undefined) {
      key = subtle().deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: text(`signet/${purpose}/v1`) },
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      )
      keys.set(purpose, key)
    }
    return key
  }
  return {
    seal: async (plain, purpose, aad) => {
      const iv = globalThis.crypto.getRandomValues(new Uint8Array(12))
      const sealed = new Uint8Array(await subtle().encrypt({ name: "AES-GCM", iv, additionalData: text(aad) }, await keyFor(purpose), new Uint8Array(plain)))
      const out = new Uint8Array(12 + sealed.length)
      out.set(iv)
      out.set(sealed, 12)
      return out
    },
    open: async (sealed, purpose, aad) =>
      new Uint8Array(
        await subtle().decrypt(
          { name: "AES-GCM", iv: new Uint8Array(sealed.subarray(0, 12)), additionalData: text(aad) },
          await keyFor(purpose),
          new Uint8Array(sealed.subarray(12)),
        ),
      ),
  }
}

/** The vault over the `MasterKey`. */
export const VaultMasterKey: Layer.Layer<Vault, never, MasterKey> = Layer.effect(
  Vault,
  Effect.gen(function* () {
    const master = yield* MasterKey
    const keys = yield* Effect.promise(() => sealingKeys(master))
    return Vault.of({
      seal: (plain, purpose, aad) => Effect.promise(() => keys.seal(plain, purpose, aad)),
      open: (sealed, purpose, aad) => Effect.promise(() => keys.open(sealed, purpose, aad)),
    })
  }),
)
