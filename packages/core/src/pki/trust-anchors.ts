/**
 * The certificates a signature's chain may end at: this engine's root always, and those the host
 * configures (a PEM bundle read by the server: `SIGNET_TRUST_ANCHORS`), so signatures made by
 * other software under other CAs validate as well as the engine's own.
 */
import { Context } from "effect"

/** DER certificates trusted as chain ends besides this engine's root; none by default. */
export class TrustAnchors extends Context.Reference<TrustAnchors>()("@signet/core/TrustAnchors", {
  defaultValue: (): { readonly certificates: ReadonlyArray<Uint8Array> } => ({ certificates: [] }),
}) {}

/** The DER certificates of a PEM bundle (every `CERTIFICATE` block; anything else is ignored). */
export const certificatesOfPem = (pem: string): ReadonlyArray<Uint8Array> =>
  [...pem.matchAll(/-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+?)-----END CERTIFICATE-----/g)].map((m) => {
    const binary = atob(m[1]!.replace(/\s+/g, ""))
    return Uint8Array.from(binary, (c) => c.charCodeAt(0))
  })
