/**
 * The common case of an assertion signature, checked without the WebAuthn library: an ES256 passkey
 * whose COSE key is a plain EC2 P-256 map, and authenticator data with no extensions. The imported
 * key is kept per stored public key (it never changes), so a signature costs one digest and one
 * verification. Anything else is left to the library (`undefined` here).
 */
import { Effect } from "effect"
import { sha256, sha256Small } from "../../kernel/digest.ts"
import { setBounded } from "../../kernel/bounded-map.ts"
import { concatBytes, fromBase64 } from "../../kernel/encoding.ts"
import type { Es256Key, Es256VerifierService } from "./es256-verifier.ts"

/** Reads a CBOR head at `at`: major type, argument and the offset after it; undefined for what an EC2 key never holds. */
const head = (bytes: Uint8Array, at: number): { readonly major: number; readonly value: number; readonly next: number } | undefined => {
  const first = bytes[at]
  if (first === undefined) return undefined
  const major = first >> 5
  const info = first & 0x1f
  if (info < 24) return { major, value: info, next: at + 1 }
  if (info === 24 && at + 1 < bytes.length) return { major, value: bytes[at + 1]!, next: at + 2 }
  return undefined
}

/** x||y of a COSE EC2 P-256 ES256 key (map of kty 2, alg -7, crv 1, x, y), or undefined. */
const ec2Point = (cose: Uint8Array): Uint8Array | undefined => {
  const map = head(cose, 0)
  if (map === undefined || map.major !== 5 || map.value > 8) return undefined
  let at = map.next
  const ints = new Map<number, number>()
  const bins = new Map<number, Uint8Array>()
  for (let i = 0; i < map.value; i++) {
    const k = head(cose, at)
    if (k === undefined || (k.major !== 0 && k.major !== 1)) return undefined
    const label = k.major === 0 ? k.value : -1 - k.value
    const v = head(cose, k.next)
    if (v === undefined) return undefined
    if (v.major === 0 || v.major === 1) {
      ints.set(label, v.major === 0 ? v.value : -1 - v.value)
      at = v.next
    } else if (v.major === 2) {
      bins.set(label, cose.subarray(v.next, v.next + v.value))
      at = v.next + v.value
    } else return undefined
  }
  if (at !== cose.length) return undefined
  const x = bins.get(-2)
  const y = bins.get(-3)
  if (ints.get(1) !== 2 || ints.get(3) !== -7 || ints.get(-1) !== 1 || x?.length !== 32 || y?.length !== 32) return undefined
  return concatBytes([x, y])
}

/** r||s (32 bytes each) of a strict DER ECDSA-Sig-Value, or undefined. */
const rawSignature = (sig: Uint8Array): Uint8Array<ArrayBuffer> | undefined => {
  if (sig.length < 8 || sig[0] !== 0x30 || sig[1] !== sig.length - 2) return undefined
  const out = new Uint8Array(64)
  let at = 2
  for (let n = 0; n < 2; n++) {
    if (sig[at] !== 0x02) return undefined
    const length = sig[at + 1]!
    let body = sig.subarray(at + 2, at + 2 + length)
    if (body.length !== length || length === 0) return undefined
    if (body.length > 1 && body[0] === 0 && body[1]! < 0x80) return undefined
    if (body[0]! >= 0x80) return undefined
    if (body[0] === 0 && body.length > 1) body = body.subarray(1)
    if (body.length > 32) return undefined
    out.set(body, n * 32 + 32 - body.length)
    at += 2 + length
  }
  return at === sig.length ? out : undefined
}

// Keys are few per user and never change; the bound only stops a flood of distinct keys growing memory.
const KEY_LIMIT = 10_000
// Per verifier implementation, so a host's verifier never answers with another's keys.
const keysByVerifier = new WeakMap<Es256VerifierService, Map<string, Es256Key>>()

const importedKey = (verifier: Es256VerifierService, publicKey: string): Effect.Effect<Es256Key | undefined> => {
  let keys = keysByVerifier.get(verifier)
  if (keys === undefined) {
    keys = new Map()
    keysByVerifier.set(verifier, keys)
  }
  const cached = keys.get(publicKey)
  if (cached !== undefined) return Effect.succeed(cached)
  const point = ec2Point(fromBase64(publicKey) ?? new Uint8Array())
  if (point === undefined) return Effect.succeed(undefined)
  const known = keys
  return verifier.importKey(concatBytes([Uint8Array.of(0x04), point])).pipe(
    Effect.tap((key) =>
      Effect.sync(() => {
        if (key === undefined) return
        setBounded(known, publicKey, key, KEY_LIMIT)
      }),
    ),
  )
}

const BASE64URL = /^[A-Za-z0-9_-]+$/

/**
 * Whether the passkey signed authenticatorData || SHA-256(clientDataJSON); undefined when the case
 * is not the common one (another algorithm or key shape, extensions, unusual encodings): the caller
 * then asks the library. With a key already imported and a verifier that answers at once
 * (`verifyNow`), the answer is computed here, in one step.
 */
export const verifyEs256Signature = (
  verifier: Es256VerifierService,
  input: {
    readonly publicKey: string
    readonly authenticatorData: Uint8Array
    readonly authenticatorDataText: string
    readonly clientDataJSON: Uint8Array
    /** the decoded signature (DER) */
    readonly signature: Uint8Array
    readonly signatureText: string
  },
): Effect.Effect<boolean | undefined> => {
  // Only the bare 37 bytes (no attested credential data, no extensions) and plain base64url take this path.
  if (input.authenticatorData.length !== 37 || (input.authenticatorData[32]! & 0xc0) !== 0) return Effect.succeed(undefined)
  if (!BASE64URL.test(input.authenticatorDataText) || !BASE64URL.test(input.signatureText)) return Effect.succeed(undefined)
  const signature = rawSignature(input.signature)
  if (signature === undefined) return Effect.succeed(undefined)
  // A clientDataJSON is a few hundred bytes, hashed in this thread; a larger one goes through `sha256`.
  const small = sha256Small(input.clientDataJSON)
  const known = keysByVerifier.get(verifier)?.get(input.publicKey)
  if (small !== undefined && known?.verifyNow !== undefined) return Effect.succeed(known.verifyNow(concatBytes([input.authenticatorData, small]), signature))
  return Effect.flatMap(importedKey(verifier, input.publicKey), (key) =>
    key === undefined
      ? Effect.succeed(undefined)
      : Effect.flatMap(small !== undefined ? Effect.succeed(small) : sha256(input.clientDataJSON), (hash) =>
          key.verify(concatBytes([input.authenticatorData, hash]), signature),
        ),
  )
}
