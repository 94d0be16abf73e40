/** `Es256Verifier` from `node:crypto`: a synchronous OpenSSL verification, no thread-pool round trip per assertion. */
import { createPublicKey, verify } from "node:crypto"
import { type Es256Key, Es256Verifier } from "@signet/core"
import { Effect, Layer } from "effect"

const base64Url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")

/** ES256 verification by OpenSSL, for hosts on Node. */
export const Es256VerifierNode: Layer.Layer<Es256Verifier> = Layer.succeed(Es256Verifier, {
  importKey: (point) =>
    Effect.sync((): Es256Key | undefined => {
      if (point.length !== 65 || point[0] !== 0x04) return undefined
      try {
        // OpenSSL checks that the point is on the curve here, as Web Crypto's import does.
        const key = createPublicKey({ format: "jwk", key: { kty: "EC", crv: "P-256", x: base64Url(point.subarray(1, 33)), y: base64Url(point.subarray(33)) } })
        const verifyNow = (data: Uint8Array, signature: Uint8Array) => verify("sha256", data, { key, dsaEncoding: "ieee-p1363" }, signature)
        return { verify: (data, signature) => Effect.sync(() => verifyNow(data, signature)), verifyNow }
      } catch {
        return undefined
      }
    }),
})
