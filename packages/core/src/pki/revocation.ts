/**
 * Certificate status and revocation: a holder revokes their own signer certificate (RFC 5280
 * reasons), an RP's contact account one that signed for its RP, an administrator any; a revoked certificate never signs again (the next signature gets a new key and
 * certificate), and the issuing CA publishes a CRL listing every certificate it revoked.
 */
import { Clock, Effect, Option } from "effect"
import * as pkijs from "pkijs"
import { auditEvent, type AuditActor } from "../authorization/audit.ts"
import { requireStepUp } from "../authorization/step-up.ts"
import { CertificateSharedWithOtherRps } from "../authorization/errors.ts"
import { InvalidRequest, ResourceNotFound } from "../kernel/errors.ts"
import { NotCertificateHolder } from "./errors.ts"
import type { BearerUser } from "../identity/access-token.ts"
import { fromBase64, toHex } from "../kernel/encoding.ts"
import { Batches, SigningEvents, SigningRequests } from "../signing/ports.ts"
import { Certificates } from "./ports.ts"
import { SscOperations } from "../ssc/ports.ts"
import { ownRelyingParty } from "../authorization/self-service.ts"
import { certificateAuthority } from "./authority.ts"
import { issuerOf, keyStoreSigning } from "./issue-certificate.ts"
import type { StoredCertificate } from "./model.ts"
import { loadX509, type X509 } from "./x509.ts"

/** RFC 5280 §5.3.1 reason codes a holder may give. */
export const REVOCATION_REASONS = {
  unspecified: 0,
  keyCompromise: 1,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
  privilegeWithdrawn: 9,
} as const
/** A reason a holder may give. */
export type RevocationReason = keyof typeof REVOCATION_REASONS

/** How long a CRL is current: a new one is made on every request, valid a day. */
export const CRL_VALIDITY_MS = 24 * 3_600_000

/** `valid`, `revoked` or `expired` at `now`. */
export const certificateStatus = (c: StoredCertificate, now: number) =>
  c.status === "revoked"
    ? { status: "revoked" as const, revokedAt: c.revokedAt, reason: c.revocationReason }
    : c.notAfter <= now
      ? { status: "expired" as const, revokedAt: null, reason: null }
      : { status: "valid" as const, revokedAt: null, reason: null }

/** The holder's certificate with this serial; another user's is as unknown as a missing one. */
export const holderCertificate = (userId: string, serial: string) =>
  Effect.gen(function* () {
    const found = yield* Effect.flatMap(Certificates, (c) => c.findBySerial(serial.toLowerCase()))
    if (Option.isNone(found) || found.value.kind !== "signer" || found.value.userId !== userId) return yield* new ResourceNotFound({ what: "Certificate" })
    return found.value
  })

// Who revoked: the certificate record has no place for it, so the audit event of each revocation says.
type Revoker =
  | { readonly revokedBy: "holder" | "administrator" }
  | { readonly revokedBy: "rp-contact"; readonly clientId: string; readonly contactUserId: string }

/** Revokes a signer certificate as its holder (`userId`) or as an administrator (`userId` null); idempotent: the first time and reason stay. */
export const revokeCertificate = (userId: string | null, serial: string, reason: string) =>
  revokeAs(userId === null ? { revokedBy: "administrator" } : { revokedBy: "holder" }, userId === null ? "administrator" : "engine", userId, serial, reason)

/**
 * `POST /v2/certificates/{serial}/revoke`: the holder, with a token carrying `certificates` and a
 * fresh passkey approval (`stepUp`) for it.
 */
export const revokeOwnCertificate = (holder: BearerUser, serial: string, reason: string, stepUp: string | null | undefined) =>
  Effect.gen(function* () {
    if (!(reason in REVOCATION_REASONS)) {
      return yield* new InvalidRequest({ detail: `reason must be one of ${Object.keys(REVOCATION_REASONS).join(", ")}` })
    }
    const found = yield* Effect.flatMap(Certificates, (c) => c.findBySerial(serial.toLowerCase()))
    if (Option.isNone(found) || found.value.kind !== "signer") return yield* new ResourceNotFound({ what: "Certificate" })
    if (found.value.userId !== holder.userId) return yield* new NotCertificateHolder()
    yield* requireStepUp(holder, "revoke-certificate", stepUp)
    return yield* revokeAs({ revokedBy: "holder" }, holder, holder.userId, serial, reason)
  })

const revokeAs = (revoker: Revoker, actor: AuditActor, userId: string | null, serial: string, reason: string) =>
  Effect.gen(function* () {
    if (!(reason in REVOCATION_REASONS)) {
      return yield* new InvalidRequest({ detail: `reason must be one of ${Object.keys(REVOCATION_REASONS).join(", ")}` })
    }
    const found = yield* Effect.flatMap(Certificates, (c) => c.findBySerial(serial.toLowerCase()))
    if (Option.isNone(found) || found.value.kind !== "signer") return yield* new ResourceNotFound({ what: "Certificate" })
    if (userId !== null && found.value.userId !== userId) return yield* new NotCertificateHolder()
    const now = yield* Clock.currentTimeMillis
    const certificates = yield* Certificates
    yield* certificates.revoke(found.value.serial, now, reason)
    const revoked = Option.getOrThrow(yield* certificates.findBySerial(found.value.serial))
    yield* auditEvent(actor, "certificate.revoked", revoked.serial, {
      holder: revoked.userId ?? "",
      reason: revoked.revocationReason ?? reason,
      revokedAt: revoked.revokedAt ?? now,
      ...revoker,
    })
    return revoked
  })

// The serial of a CMS signature's signer (IssuerAndSerialNumber), or null when it does not parse.
const signerSerialOf = (base64: string): string | null => {
  const der = fromBase64(base64)
  if (der === undefined) return null
  try {
    const signed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(der)).content })
    const sid = signed.signerInfos[0]?.sid
    return sid instanceof pkijs.IssuerAndSerialNumber ? toHex(new Uint8Array(sid.serialNumber.valueBlock.valueHexView)) : null
  } catch {
    return null
  }
}

// The RPs the holder signed for with this certificate: completed requests and batches (the
// holder's signing event log names the RP, a request records the certificate's serial, a batch's
// signatures name it as their signer) and finalized signing-token operations.
const relyingPartiesSignedFor = (holderId: string, serial: string) =>
  Effect.gen(function* () {
    const log = yield* SigningEvents
    const requests = yield* SigningRequests
    const batches = yield* Batches
    const found = new Set<string>(yield* Effect.flatMap(SscOperations, (s) => s.clientIdsSignedWith(serial)))
    let after = 0
    for (;;) {
      const page = yield* log.listForUser(holderId, after, 500)
      for (const event of page) {
        if (event.type !== "signing_request_completed" || found.has(event.clientId)) continue
        if (event.subjectKind === "request") {
          const request = yield* requests.findById(event.subjectId)
          if (Option.isSome(request) && request.value.certificateSerial === serial) found.add(event.clientId)
        } else {
          const batch = yield* batches.findById(event.subjectId)
          const signatures = Option.isSome(batch) ? (batch.value.results ?? []).flatMap((r) => (r.signature === undefined ? [] : [r.signature])) : []
          if (signatures.some((s) => signerSerialOf(s) === serial)) found.add(event.clientId)
        }
      }
      if (page.length < 500) return found
      after = page[page.length - 1]!.seq
    }
  })

/**
 * Revokes, as an RP's contact account, a signer certificate that signed for that RP (docs/certificates.md):
 * 404 `RP <clientId> not found` to anyone but the contact (or a token issued to another client),
 * 404 `Certificate not found` for a certificate that never signed a completed request, batch or
 * signing-token operation of the RP, 403 when it also signed for another RP (the certificate is
 * the user's, shared by every RP: one RP must not cut off the others); a fresh passkey approval
 * of the contact (`stepUp`) is needed too.
 */
export const revokeRelyingPartyUserCertificate = (contact: BearerUser, clientId: string, serial: string, reason: string, stepUp?: string | null) =>
  Effect.gen(function* () {
    const rp = yield* ownRelyingParty(contact, clientId)
    if (!(reason in REVOCATION_REASONS)) {
      return yield* new InvalidRequest({ detail: `reason must be one of ${Object.keys(REVOCATION_REASONS).join(", ")}` })
    }
    const found = yield* Effect.flatMap(Certificates, (c) => c.findBySerial(serial.toLowerCase()))
    if (Option.isNone(found) || found.value.kind !== "signer" || found.value.userId === null) return yield* new ResourceNotFound({ what: "Certificate" })
    const signedFor = yield* relyingPartiesSignedFor(found.value.userId, found.value.serial)
    if (!signedFor.has(rp.clientId)) return yield* new ResourceNotFound({ what: "Certificate" })
    if (signedFor.size > 1) return yield* new CertificateSharedWithOtherRps()
    yield* requireStepUp(contact, "revoke-certificate", stepUp)
    return yield* revokeAs(
      { revokedBy: "rp-contact", clientId: rp.clientId, contactUserId: contact.userId },
      contact,
      found.value.userId,
      found.value.serial,
      reason,
    )
  })

// CRLNumber (RFC 5280 §5.2.3): a monotonically increasing integer; the issuing time in seconds is one.
const crlNumber = (x509: typeof X509, value: number) => {
  const hex = value.toString(16)
  const bytes = (hex.length % 2 ? `0${hex}` : hex).match(/../g)!.map((h) => parseInt(h, 16))
  const content = bytes[0]! >= 0x80 ? [0, ...bytes] : bytes
  return new x509.Extension("2.5.29.20", false, new Uint8Array([0x02, content.length, ...content]))
}

/** The DER CRL of this environment's issuing CA, signed by its KeyStore key. */
export const issuingCrl = Effect.gen(function* () {
  const x509 = yield* loadX509
  const ca = yield* certificateAuthority
  const now = yield* Clock.currentTimeMillis
  const revoked = yield* Effect.flatMap(Certificates, (c) => c.listRevokedBy(ca.issuing.serial))
  const issuer = yield* issuerOf(ca.issuing)
  const { handle, crypto } = yield* keyStoreSigning(ca.issuing.keyId)
  const crl = yield* Effect.promise(() =>
    x509.X509CrlGenerator.create(
      {
        issuer: issuer.name,
        thisUpdate: new Date(Math.floor(now / 1000) * 1000),
        nextUpdate: new Date(Math.floor(now / 1000) * 1000 + CRL_VALIDITY_MS),
        signingKey: handle,
        signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
        extensions: [new x509.AuthorityKeyIdentifierExtension(issuer.keyIdentifier), crlNumber(x509, Math.floor(now / 1000))],
        entries: revoked.map((c) => ({
          serialNumber: c.serial,
          revocationDate: new Date(c.revokedAt ?? now),
          reason: REVOCATION_REASONS[(c.revocationReason ?? "unspecified") as RevocationReason] ?? 0,
        })),
      },
      crypto,
    ),
  )
  return new Uint8Array(crl.rawData)
})
