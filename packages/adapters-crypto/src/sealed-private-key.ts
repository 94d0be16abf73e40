/** How the software KeyStore seals a private key under the master key (internal: shared with the master-key rotation). */
import { fromBase64, toBase64, utf8 } from "@signet/core"

const subtle = () => globalThis.crypto.subtle

/** Seals a private key (PKCS#8) under the master key, its key id as associated data; base64. */
export const sealPrivateKey = async (master: CryptoKey, keyId: string, plain: ArrayBuffer): Promise<string> => {
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12))
  const sealed = await subtle().encrypt({ name: "AES-GCM", iv, additionalData: new Uint8Array(utf8(keyId)) }, master, plain)
  const out = new Uint8Array(12 + sealed.byteLength)
  out.set(iv)
  out.set(new Uint8Array(sealed), 12)
  return toBase64(out)
}

/** Opens a sealed private key; rejects under another master key or key id. */
export const unsealPrivateKey = async (master: CryptoKey, keyId: string, text: string): Promise<ArrayBuffer> => {
  const bytes = fromBase64(text) ?? new Uint8Array()
  return subtle().decrypt(
    { name: "AES-GCM", iv: new Uint8Array(bytes.slice(0, 12)), additionalData: new Uint8Array(utf8(keyId)) },
    master,
    new Uint8Array(bytes.slice(12)),
  )
}
