import { Es256Verifier, type Es256VerifierService } from "@signet/core"
import { Effect, Layer } from "effect"
import { generateKeyPairSync, sign } from "node:crypto"
import { describe, expect, it } from "vitest"
import { Es256VerifierNode } from "./es256-verifier-node.ts"

const pair = generateKeyPairSync("ec", { namedCurve: "P-256" })
const jwk = pair.publicKey.export({ format: "jwk" })
const point = new Uint8Array(Buffer.concat([Buffer.of(4), Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]))
const data = new TextEncoder().encode("authenticatorData || SHA-256(clientDataJSON)")
const signature = new Uint8Array(sign("sha256", data, { key: pair.privateKey, dsaEncoding: "ieee-p1363" }))

/** What a verifier answers for a good signature, a changed message, a changed signature, and a point off the curve. */
const answers = (layer: Layer.Layer<never> | Layer.Layer<Es256Verifier>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const verifier: Es256VerifierService = yield* Es256Verifier
      const key = yield* verifier.importKey(point)
      if (key === undefined) throw new Error("a valid point was refused")
      const flipped = new Uint8Array(signature)
      flipped[10]! ^= 1
      const offCurve = new Uint8Array(point)
      offCurve[64]! ^= 1
      return {
        good: yield* key.verify(data, signature),
        otherMessage: yield* key.verify(new TextEncoder().encode("another message"), signature),
        otherSignature: yield* key.verify(data, flipped),
        offCurve: (yield* verifier.importKey(offCurve)) === undefined,
        // what the immediate answer says, where the verifier gives one
        now:
          key.verifyNow === undefined
            ? "none"
            : [key.verifyNow(data, signature), key.verifyNow(new TextEncoder().encode("another message"), signature), key.verifyNow(data, flipped)],
      }
    }).pipe(Effect.provide(layer)),
  )

describe("Es256VerifierNode", () => {
  it("answers as the Web Crypto default does: valid, wrong message, wrong signature, point off the curve; at once too", async () => {
    const expected = { good: true, otherMessage: false, otherSignature: false, offCurve: true }
    expect(await answers(Es256VerifierNode)).toEqual({ ...expected, now: [true, false, false] })
    expect(await answers(Layer.empty)).toEqual({ ...expected, now: "none" })
  })
})
