/**
 * The @peculiar/x509 view of a certificate, read once where validation asks for it several times:
 * a certificate a signature or a timestamp carries is read once per parse of that signature (kept
 * as long as its pkijs object lives), and the engine's own CA certificates, which every validation
 * checks against, once per process (by their DER). The views are only read, never changed.
 */
import type * as pkijs from "pkijs"
import { Effect } from "effect"
import { setBounded } from "../kernel/bounded-map.ts"
import { derOf } from "./issue-certificate.ts"
import type { StoredCertificate } from "./model.ts"
import type { X509 } from "./x509.ts"

const ofParsed = new WeakMap<pkijs.Certificate, X509.X509Certificate>()

/** The x509 view of a certificate pkijs parsed; throws, as x509 does, when x509 cannot read it. */
export const x509OfParsed = (x509: typeof X509, certificate: pkijs.Certificate): X509.X509Certificate => {
  const known = ofParsed.get(certificate)
  if (known !== undefined) return known
  const view = new x509.X509Certificate(new Uint8Array(certificate.toSchema().toBER(false)))
  ofParsed.set(certificate, view)
  return view
}

// a root and an issuing CA per environment, and the ones before a renewal
const STORED_KEPT = 16
const ofStored = new Map<string, X509.X509Certificate>()

/** The x509 view of a stored certificate (the engine's CA), read once per process for the same DER. */
export const x509OfStored = (x509: typeof X509, certificate: StoredCertificate): Effect.Effect<X509.X509Certificate> => {
  const known = ofStored.get(certificate.der)
  if (known !== undefined) return Effect.succeed(known)
  return Effect.map(derOf(certificate), (der) => {
    const view = new x509.X509Certificate(new Uint8Array(der))
    setBounded(ofStored, certificate.der, view, STORED_KEPT)
    return view
  })
}
