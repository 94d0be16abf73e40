/**
 * The relying party's side of hash signing with a PAdES format: prepare the signature
 * placeholder in its own PDF, hash the byte ranges, have the engine sign the hash
 * (`POST /v2/sign/single` with `signatureFormat: PAdES-BASELINE-B`, approved by the user's
 * passkey), and embed the CMS. It uses the engine's own incremental writer from the core.
 */
import { byteRangeDigest, bytesSource, embedSignature, fromBase64, prepareSignature, toHex, type PreparedSignature, type SignatureOptions } from "@signet/core"
import { Effect } from "effect"
import { ok, type ErrorBody, type SignetClient } from "../http/client.ts"
import type { SoftwarePasskey } from "../passkey/software-passkey.ts"

/** What the RP gets back: the signed PDF, the CMS (base64) and what it prepared. */
export interface RpSignedPdf {
  readonly signed: Uint8Array
  readonly signature: string
  readonly prepared: PreparedSignature
}

/** Signs `pdf` as the RP would: placeholder, byte-range hash, engine hash signing with passkey approval, embedding. */
export const signPdfThroughHashSigning = async (
  client: SignetClient,
  input: { readonly accessToken: string; readonly passkey: SoftwarePasskey; readonly pdf: Uint8Array; readonly options: SignatureOptions },
): Promise<RpSignedPdf> => {
  const prepared = await Effect.runPromise(prepareSignature(bytesSource(input.pdf), input.options))
  const digest = await Effect.runPromise(byteRangeDigest(prepared))
  const pending = ok(
    await client.raw<{ requestId: string; challenge: string } | ErrorBody>("POST", "/v2/sign/single", {
      headers: { authorization: `Bearer ${input.accessToken}` },
      body: { documentHash: toHex(digest), credentialId: input.passkey.credentialId, signatureFormat: "PAdES-BASELINE-B", documentName: "document.pdf" },
    }),
  )
  const done = ok(
    await client.raw<{ signature: string } | ErrorBody>("POST", `/v2/sign/auth/${pending.requestId}`, {
      body: { assertion: input.passkey.assert({ challenge: pending.challenge }, { includeUserHandle: false }) },
    }),
  )
  const update = await Effect.runPromise(embedSignature(prepared, fromBase64(done.signature)!))
  const signed = new Uint8Array(input.pdf.length + update.length)
  signed.set(input.pdf)
  signed.set(update, input.pdf.length)
  return { signed, signature: done.signature, prepared }
}
