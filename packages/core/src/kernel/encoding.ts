/** Byte encodings used across the engine (no Buffer: core runs on any web-standard runtime). */

/** Lower-case hexadecimal of bytes. */
export const toHex = (bytes: Uint8Array): string => {
  let out = ""
  for (const b of bytes) out += HEX[b]!
  return out
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"))

/** Bytes of a hexadecimal string; undefined when it is not hex of whole bytes. */
export const fromHex = (hex: string): Uint8Array | undefined => {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** Past this many bytes the web-standard `btoa` encodes (a CMS signature, a document): see `encode64`. */
const SHORT_ENCODE = 64

/**
 * `bytes` in the 64-character `alphabet`, padded with `=` or not. Short input is written directly: a
 * challenge or a signature is encoded so on every request, where replaces over another encoding cost
 * more. Longer input goes through `btoa`: appending character by character builds a chain of
 * thousands of string pieces (70 KB of garbage for one 2 KB CMS signature, flattened again when the
 * text is stored or sent), where `btoa` makes one string at twice the speed.
 */
const encode64 = (bytes: Uint8Array, alphabet: string, pad: boolean): string => {
  if (bytes.length > SHORT_ENCODE) {
    let binary = ""
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as Array<number>)
    const standard = btoa(binary)
    if (alphabet === B64) return pad ? standard : standard.replace(/=+$/, "")
    const url = standard.replace(/\+/g, "-").replace(/\//g, "_")
    return pad ? url : url.replace(/=+$/, "")
  }
  let out = ""
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0)
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]!
    if (i + 1 < bytes.length) out += alphabet[(n >> 6) & 63]!
    else if (pad) out += "="
    if (i + 2 < bytes.length) out += alphabet[n & 63]!
    else if (pad) out += "="
  }
  return out
}

/** Standard base64 with padding. */
export const toBase64 = (bytes: Uint8Array): string => encode64(bytes, B64, true)

/** base64url without padding (RFC 4648 §5), as WebAuthn and JOSE use. */
export const toBase64Url = (bytes: Uint8Array): string => encode64(bytes, B64URL, false)

// The value of each base64 and base64url character, -1 for any other.
const B64_VALUE = (() => {
  const table = new Int8Array(128).fill(-1)
  for (let i = 0; i < 64; i++) {
    table[B64.charCodeAt(i)] = i
    table[B64URL.charCodeAt(i)] = i
  }
  return table
})()

/** Short text (a WebAuthn field, a key) decoded in JavaScript: `atob` and its string copies cost more. */
const SHORT_BASE64 = 1024

/**
 * Bytes of base64 or base64url text; undefined when it is not valid. The web-standard `atob`
 * decodes (natively: a 10 MiB upload decodes on the request's thread in milliseconds) once the
 * alphabet and length are checked here.
 */
export const fromBase64 = (text: string): Uint8Array | undefined => {
  if (text.length <= SHORT_BASE64) return fromShortBase64(text)
  const s = text.replace(/=+$/, "")
  if (!/^[A-Za-z0-9+/_-]*$/.test(s) || s.length % 4 === 1) return undefined
  const binary = atob(s.replace(/-/g, "+").replace(/_/g, "/"))
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}

/** `fromBase64` by table: trailing `=` dropped, both alphabets, bits past the last whole byte ignored (as `atob`). */
const fromShortBase64 = (text: string): Uint8Array | undefined => {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--
  if (end % 4 === 1) return undefined
  const out = new Uint8Array(Math.floor((end * 3) / 4))
  let bits = 0
  let count = 0
  let at = 0
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i)
    const v = c < 128 ? B64_VALUE[c]! : -1
    if (v < 0) return undefined
    bits = ((bits << 6) | v) & 0xffffff
    count += 6
    if (count >= 8) {
      count -= 8
      out[at++] = (bits >> count) & 0xff
    }
  }
  return out
}

/** UTF-8 bytes of a string. */
export const utf8 = (text: string): Uint8Array => encoder.encode(text)

// Stateless: one instance serves every call.
const encoder = new TextEncoder()

/** Whether two byte strings are the same; for public values (use `constantTimeEqual` for secrets). */
export const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i])

/** Compares two byte strings in time that depends only on their lengths. */
export const constantTimeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  let diff = a.length ^ b.length
  const n = Math.max(a.length, b.length)
  for (let i = 0; i < n; i++) diff |= (a[i % (a.length || 1)] ?? 0) ^ (b[i % (b.length || 1)] ?? 0)
  return diff === 0
}

/** The bytes of all parts, one after another. */
export const concatBytes = (parts: ReadonlyArray<Uint8Array>): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
