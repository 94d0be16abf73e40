/** Errors of the PKI capability: certificate holders and the timestamp authority. */
import { Schema } from "effect"

/** 403: a certificate can be revoked by its holder (or an administrator), no one else. */
export class NotCertificateHolder extends Schema.TaggedError<NotCertificateHolder>()("NotCertificateHolder", {}) {
  readonly status = 403 as const
  override get message() {
    return "Only the certificate's holder can revoke it"
  }
}

/** 503: the timestamp authority did not answer (an external TSA unreachable or refusing); nothing was signed. */
export class TimestampUnavailable extends Schema.TaggedError<TimestampUnavailable>()("TimestampUnavailable", { detail: Schema.String }) {
  readonly status = 503 as const
  override get message() {
    return "Timestamp authority unavailable"
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const pkiErrors = [NotCertificateHolder, TimestampUnavailable] as const
/** An error of this module. */
export type PkiError = InstanceType<(typeof pkiErrors)[number]>
