/** Ports of the PKI capability: the certificates the engine's CA issued. */
import { Context, type Effect, type Option } from "effect"
import type { UniqueViolation } from "../ports/storage.ts"
import type { CertificateKind, StoredCertificate } from "./model.ts"

/** The current root and issuing CA certificates of an environment, each as `findCurrentCa` finds it. */
export interface CurrentCas {
  readonly root: Option.Option<StoredCertificate>
  readonly issuing: Option.Option<StoredCertificate>
}

/** Certificates issued by the engine's CA. */
export class Certificates extends Context.Tag("@signet/core/Certificates")<
  Certificates,
  {
    readonly insert: (certificate: StoredCertificate) => Effect.Effect<void, UniqueViolation>
    readonly findBySerial: (serial: string) => Effect.Effect<Option.Option<StoredCertificate>>
    /** The oldest valid CA certificate of a kind in an environment: every node settles on the same one. */
    readonly findCurrentCa: (kind: Extract<CertificateKind, "root" | "issuing" | "tsa">, environment: string) => Effect.Effect<Option.Option<StoredCertificate>>
    /** `findCurrentCa` of the root and of the issuing CA, in one read: every signature needs both. */
    readonly findCurrentCas: (environment: string) => Effect.Effect<CurrentCas>
    /** A user's signer certificates, newest first. */
    readonly listByUser: (userId: string) => Effect.Effect<ReadonlyArray<StoredCertificate>>
    /** Revoked certificates an issuing CA issued, oldest revocation first (for its CRL). */
    readonly listRevokedBy: (issuerSerial: string) => Effect.Effect<ReadonlyArray<StoredCertificate>>
    /** Marks a certificate revoked (no-op when already revoked). */
    readonly revoke: (serial: string, at: number, reason: string) => Effect.Effect<void>
  }
>() {}
