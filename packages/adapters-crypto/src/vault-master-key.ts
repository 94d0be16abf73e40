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

/** The vault over the `MasterKey`. */
export const VaultMasterKey: Layer.Layer<Vault, never, MasterKey> = Layer.effect(
  Vault,
  Effect.gen(function* () {
    const master = yield* MasterKey
    const base = yield* Effect.promise(() => subtle().importKey("raw", new Uint8Array(master), "HKDF", false, ["deriveKey"]))
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
    return Vault.of({
      seal: (plain, purpose, aad) =>
        Effect.promise(async () => {
          const iv = globalThis.crypto.getRandomValues(new Uint8Array(12))
          const sealed = new Uint8Array(
            await subtle().encrypt({ name: "AES-GCM", iv, additionalData: text(aad) }, await keyFor(purpose), new Uint8Array(plain)),
          )
          const out = new Uint8Array(12 + sealed.length)
          out.set(iv)
          out.set(sealed, 12)
          return out
        }),
      open: (sealed, purpose, aad) =>
        Effect.promise(
          async () =>
            new Uint8Array(
              await subtle().decrypt(
                { name: "AES-GCM", iv: new Uint8Array(sealed.subarray(0, 12)), additionalData: text(aad) },
                await keyFor(purpose),
                new Uint8Array(sealed.subarray(12)),
              ),
            ),
        ),
    })
  }),
)
