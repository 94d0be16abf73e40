/** Certificates the engine's CA issued: its own root and issuing certificates and the signers'. */
import { Schema } from "effect"
import { Environment } from "../ports/engine-config.ts"

/** What a certificate is for. */
export const CertificateKind = Schema.Literal("root", "issuing", "signer", "encryption")
/** What a certificate is for. */
export type CertificateKind = typeof CertificateKind.Type

/** A certificate as stored: its DER and the facts the engine looks it up by. */
export const StoredCertificate = Schema.Struct({
  /** serial number, lower-case hex */
  serial: Schema.String,
  kind: CertificateKind,
  environment: Environment,
  /** the signer's user id (signer certificates only) */
  userId: Schema.NullOr(Schema.String),
  /** KeyStore id of the certified key */
  keyId: Schema.String,
  /** RFC 4514 subject */
  subject: Schema.String,
  /** serial of the issuer's certificate (null for the root) */
  issuerSerial: Schema.NullOr(Schema.String),
  /** base64 DER */
  der: Schema.String,
  notBefore: Schema.Number,
  notAfter: Schema.Number,
  status: Schema.Literal("valid", "revoked"),
  revokedAt: Schema.NullOr(Schema.Number),
  revocationReason: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
})
/** A certificate as stored. */
export type StoredCertificate = typeof StoredCertificate.Type
