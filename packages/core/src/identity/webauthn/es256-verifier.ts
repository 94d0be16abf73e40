/**
 * ECDSA P-256 / SHA-256 verification of passkey assertions. The core's default is Web Crypto, which
 * every runtime has but which answers through a thread-pool round trip; hosts provide a synchronous
 * native one (the Node adapter uses `node:crypto`) through this reference.
 */
import { Context, Effect } from "effect"

/** A public key ready to verify with. */
export interface Es256Key {
  /** Whether `signature` (r || s, 64 bytes) is a valid ECDSA P-256 signature of SHA-256(`data`). */
  readonly verify: (data: Uint8Array, signature: Uint8Array<ArrayBuffer>) => Effect.Effect<boolean>
  /** The same answer at once, for a host that verifies in the calling thread (`node:crypto`); absent for Web Crypto. */
  readonly verifyNow?: (data: Uint8Array, signature: Uint8Array<ArrayBuffer>) => boolean
}

/** Imports uncompressed P-256 points (0x04 || x || y); undefined for a point that is not a valid key. */
export interface Es256VerifierService {
  readonly importKey: (point: Uint8Array<ArrayBuffer>) => Effect.Effect<Es256Key | undefined>
}

const webCrypto: Es256VerifierService = {
  importKey: (point) =>
    Effect.promise(() =>
      globalThis.crypto.subtle.importKey("raw", point, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]).then(
        (key): Es256Key => ({
          verify: (data, signature) =>
            Effect.promise(() => globalThis.crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, signature, new Uint8Array(data))),
        }),
        () => undefined,
      ),
    ),
}

/** The ES256 verifier assertions are checked with; defaults to Web Crypto. */
export class Es256Verifier extends Context.Reference<Es256Verifier>()("@signet/core/Es256Verifier", {
  defaultValue: (): Es256VerifierService => webCrypto,
}) {}
