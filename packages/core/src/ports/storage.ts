/**
 * Storage ports: one repository per aggregate plus a unit of work. Infrastructure failures
 * are defects (the HTTP edge answers 500 and logs them); domain outcomes are values.
 */
import { Context, Effect, Option, Schema } from "effect"
import type { Ceremony, HostedSession, Passkey, User } from "../identity/model.ts"
import type { StoredCertificate, CertificateKind } from "../pki/model.ts"
import type { NewRelyingParty, RelyingParty } from "../rp/relying-party.ts"
import type { NewOrganisationCheck, OrganisationCheck } from "../rp/organisation.ts"
import type { SscOperation } from "../ssc/model.ts"
import type { Delivery, DeliveryAttempt, NewDelivery, NewWebhookSubscription, WebhookEventType, WebhookSubscription } from "../events/model.ts"
import type { Batch, BatchStatus, NewSigningEvent, SigningEvent, SigningRequest, SigningRequestStatus } from "../signing/model.ts"

/** A unique key (e-mail, client id, credential id, key id) is already taken. */
export class UniqueViolation extends Schema.TaggedError<UniqueViolation>()("UniqueViolation", { what: Schema.String }) {}

/** The unit of work: everything inside `transaction` commits together or not at all. */
export class Storage extends Context.Tag("@signet/core/Storage")<Storage, {
  /** Runs `effect` in one database transaction; a failure or defect rolls it back. Nested calls join the outer one. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>() {}

/** Relying parties. */
export class RelyingParties extends Context.Tag("@signet/core/RelyingParties")<RelyingParties, {
  readonly insert: (rp: NewRelyingParty) => Effect.Effect<RelyingParty, UniqueViolation>
  readonly update: (rp: RelyingParty) => Effect.Effect<void>
  readonly findById: (id: number) => Effect.Effect<Option.Option<RelyingParty>>
  readonly findByClientId: (clientId: string) => Effect.Effect<Option.Option<RelyingParty>>
  /** All RPs, oldest first. */
  readonly list: () => Effect.Effect<ReadonlyArray<RelyingParty>>
}>() {}

/** The organisation-KYC record of RPs: contact submissions and administrators' checks, append-only. */
export class RpOrganisationChecks extends Context.Tag("@signet/core/RpOrganisationChecks")<RpOrganisationChecks, {
  readonly insert: (check: NewOrganisationCheck) => Effect.Effect<OrganisationCheck>
  /** An RP's records, oldest first. */
  readonly listByClientId: (clientId: string) => Effect.Effect<ReadonlyArray<OrganisationCheck>>
}>() {}

/** Users. */
export class Users extends Context.Tag("@signet/core/Users")<Users, {
  readonly insert: (user: User) => Effect.Effect<void, UniqueViolation>
  readonly findById: (id: string) => Effect.Effect<Option.Option<User>>
  /** Looks up by e-mail, case-insensitively (e-mails are stored lower-case). */
  readonly findByEmail: (email: string) => Effect.Effect<Option.Option<User>>
  /** Records that the user proved their e-mail at `at`. */
  readonly markEmailVerified: (id: string, at: number) => Effect.Effect<void>
}>() {}

/** Registered passkeys. */
export class Passkeys extends Context.Tag("@signet/core/Passkeys")<Passkeys, {
  readonly insert: (passkey: Passkey) => Effect.Effect<void, UniqueViolation>
  readonly findById: (credentialId: string) => Effect.Effect<Option.Option<Passkey>>
  /** A user's passkeys, oldest first. */
  readonly listByUser: (userId: string) => Effect.Effect<ReadonlyArray<Passkey>>
  /** Records a successful assertion: the new counter and when. */
  readonly recordUse: (credentialId: string, counter: number, at: number) => Effect.Effect<void>
}>() {}

/** WebAuthn ceremonies in flight. */
export class Ceremonies extends Context.Tag("@signet/core/Ceremonies")<Ceremonies, {
  readonly insert: (ceremony: Ceremony) => Effect.Effect<void, UniqueViolation>
  readonly findById: (id: string) => Effect.Effect<Option.Option<Ceremony>>
  /** Marks the ceremony used at `at` if it was not used yet; None when it was (or is unknown). Atomic. */
  readonly consume: (id: string, at: number) => Effect.Effect<Option.Option<Ceremony>>
}>() {}

/** Hosted-page sessions. */
export class HostedSessions extends Context.Tag("@signet/core/HostedSessions")<HostedSessions, {
  readonly insert: (session: HostedSession) => Effect.Effect<void, UniqueViolation>
  readonly findById: (id: string) => Effect.Effect<Option.Option<HostedSession>>
}>() {}

/** A private key as the software KeyStore keeps it: encrypted, never in the clear. */
export interface StoredKey {
  readonly keyId: string
  readonly algorithm: string
  /** JSON of the public JWK */
  readonly publicJwk: string
  /** base64 of AES-GCM(iv || ciphertext) of the PKCS#8 private key, under the master key */
  readonly encryptedPrivateKey: string
  readonly createdAt: number
}

/** Encrypted key records for the software KeyStore. */
export class KeyRecords extends Context.Tag("@signet/core/KeyRecords")<KeyRecords, {
  readonly insert: (key: StoredKey) => Effect.Effect<void, UniqueViolation>
  readonly findById: (keyId: string) => Effect.Effect<Option.Option<StoredKey>>
  /** Every key, oldest first. */
  readonly list: () => Effect.Effect<ReadonlyArray<StoredKey>>
}>() {}

/** Certificates issued by the engine's CA. */
export class Certificates extends Context.Tag("@signet/core/Certificates")<Certificates, {
  readonly insert: (certificate: StoredCertificate) => Effect.Effect<void, UniqueViolation>
  readonly findBySerial: (serial: string) => Effect.Effect<Option.Option<StoredCertificate>>
  /** The oldest valid CA certificate of a kind in an environment: every node settles on the same one. */
  readonly findCurrentCa: (kind: Extract<CertificateKind, "root" | "issuing" | "tsa">, environment: string) => Effect.Effect<Option.Option<StoredCertificate>>
  /** A user's signer certificates, newest first. */
  readonly listByUser: (userId: string) => Effect.Effect<ReadonlyArray<StoredCertificate>>
  /** Revoked certificates an issuing CA issued, oldest revocation first (for its CRL). */
  readonly listRevokedBy: (issuerSerial: string) => Effect.Effect<ReadonlyArray<StoredCertificate>>
  /** Marks a certificate revoked (no-op when already revoked). */
  readonly revoke: (serial: string, at: number, reason: string) => Effect.Effect<void>
}>() {}

/** Hash signing requests. */
export class SigningRequests extends Context.Tag("@signet/core/SigningRequests")<SigningRequests, {
  readonly insert: (request: SigningRequest) => Effect.Effect<void, UniqueViolation>
  readonly findById: (id: string) => Effect.Effect<Option.Option<SigningRequest>>
  /** Stores `next` only if the stored status is still `expected` (compare-and-set); false when it was not. */
  readonly update: (next: SigningRequest, expected: SigningRequestStatus) => Effect.Effect<boolean>
}>() {}

/** Batches. */
export class Batches extends Context.Tag("@signet/core/Batches")<Batches, {
  readonly insert: (batch: Batch) => Effect.Effect<void, UniqueViolation>
  readonly findById: (id: string) => Effect.Effect<Option.Option<Batch>>
  /** Stores `next` only if the stored status is still `expected` (compare-and-set); false when it was not. */
  readonly update: (next: Batch, expected: BatchStatus) => Effect.Effect<boolean>
}>() {}

/** The append-only log of signing events. */
export class SigningEvents extends Context.Tag("@signet/core/SigningEvents")<SigningEvents, {
  /** Appends an event; returns it with its position. */
  readonly append: (event: NewSigningEvent) => Effect.Effect<SigningEvent>
  /** The position of a user's newest event (0 when none). */
  readonly lastSeqForUser: (userId: string) => Effect.Effect<number>
  /** A user's events after position `afterSeq`, oldest first, at most `limit`. */
  readonly listForUser: (userId: string, afterSeq: number, limit: number) => Effect.Effect<ReadonlyArray<SigningEvent>>
  /** The events of one request or batch, oldest first. */
  readonly listForSubject: (subjectId: string) => Effect.Effect<ReadonlyArray<SigningEvent>>
}>() {}

/** Counters for quotas: exact under concurrency on every adapter. */
export class QuotaCounters extends Context.Tag("@signet/core/QuotaCounters")<QuotaCounters, {
  /**
   * Adds `amount` to counter `key` if the total stays within `limit`, atomically; the new
   * total, or None (and no change) when it would exceed. `expiresAt` (ms) lets old windows be purged.
   */
  readonly consume: (key: string, amount: number, limit: number, expiresAt: number) => Effect.Effect<Option.Option<number>>
  /** The current total of `key` (0 when absent). */
  readonly peek: (key: string) => Effect.Effect<number>
  /** Deletes counters whose window ended before `now`; answers how many. */
  readonly purgeExpired: (now: number) => Effect.Effect<number>
  /** Every counter whose key starts with `prefix`, by key (usage reports read the windows the limits consume). */
  readonly list: (prefix: string) => Effect.Effect<ReadonlyArray<{ readonly key: string; readonly count: number; readonly expiresAt: number }>>
}>() {}

/** Operations of the signing-token flow. */
export class SscOperations extends Context.Tag("@signet/core/SscOperations")<SscOperations, {
  readonly insert: (operation: SscOperation) => Effect.Effect<void, UniqueViolation>
  readonly findById: (id: string) => Effect.Effect<Option.Option<SscOperation>>
  /** Stores `next` only if the stored status is still `expected` (compare-and-set); false when it was not. */
  readonly update: (next: SscOperation, expected: SscOperation["status"]) => Effect.Effect<boolean>
  /** The client ids of the RPs whose operations this certificate signed (finalized ones). */
  readonly clientIdsSignedWith: (certificateSerial: string) => Effect.Effect<ReadonlyArray<string>>
}>() {}

// KYC repositories (appended here so the shared import block above stays untouched).
import type { KycAuditEntry, KycCapture, KycImage, KycImageKind, KycRpSettings, KycVerification } from "../kyc/model.ts"

/** KYC verifications: one per customer per RP; customer id, phone number and rp_urn are each unique within an RP. */
export class KycVerifications extends Context.Tag("@signet/core/KycVerifications")<KycVerifications, {
  /** Inserts; `UniqueViolation.what` names the taken identifier (`customer_id`, `phone_number` or `rp_urn`). */
  readonly insert: (v: KycVerification) => Effect.Effect<void, UniqueViolation>
  readonly findByCustomer: (clientId: string, customerId: string) => Effect.Effect<Option.Option<KycVerification>>
  readonly findByPhone: (clientId: string, phoneNumber: string) => Effect.Effect<Option.Option<KycVerification>>
  readonly findByRpUrn: (clientId: string, rpUrn: string) => Effect.Effect<Option.Option<KycVerification>>
  readonly findById: (id: string) => Effect.Effect<Option.Option<KycVerification>>
  readonly findBySessionToken: (tokenHash: string) => Effect.Effect<Option.Option<KycVerification>>
  /** The most recently updated `verified` verification of a customer at any RP (shared identity scope). */
  readonly findVerifiedAnywhere: (customerId: string) => Effect.Effect<Option.Option<KycVerification>>
  /** Stores `next` (with `version` bumped by the caller) only if the stored version is still `expectedVersion`. */
  readonly update: (next: KycVerification, expectedVersion: number) => Effect.Effect<boolean, UniqueViolation>
  /** Deletes the verification with its captures and images. */
  readonly remove: (id: string) => Effect.Effect<void>
}>() {}

/** Confirmed liveness captures (one-time transaction ids). */
export class KycCaptures extends Context.Tag("@signet/core/KycCaptures")<KycCaptures, {
  readonly insert: (capture: KycCapture) => Effect.Effect<void, UniqueViolation>
  readonly findById: (id: string) => Effect.Effect<Option.Option<KycCapture>>
  /** Marks the capture used at `at` if it was not used yet; false when it was. Atomic. */
  readonly consume: (id: string, at: number) => Effect.Effect<boolean>
}>() {}

/** Encrypted document images and selfies. */
export class KycImages extends Context.Tag("@signet/core/KycImages")<KycImages, {
  readonly insert: (image: KycImage) => Effect.Effect<void, UniqueViolation>
  readonly findById: (id: string) => Effect.Effect<Option.Option<KycImage>>
  /** A verification's images of a kind, by position then age. */
  readonly listFor: (verificationId: string, kind: KycImageKind) => Effect.Effect<ReadonlyArray<KycImage>>
  /** Deletes a verification's images of a kind. */
  readonly removeFor: (verificationId: string, kind: KycImageKind) => Effect.Effect<void>
  /** Deletes every image created before `before` (ms); the number deleted. */
  readonly purgeBefore: (before: number) => Effect.Effect<number>
}>() {}

/** The append-only KYC audit log, and per-RP KYC settings. */
export class KycAudit extends Context.Tag("@signet/core/KycAudit")<KycAudit, {
  readonly append: (entry: KycAuditEntry) => Effect.Effect<void>
  /** A verification's entries, oldest first. */
  readonly listFor: (verificationId: string) => Effect.Effect<ReadonlyArray<KycAuditEntry>>
  readonly settingsOf: (clientId: string) => Effect.Effect<Option.Option<KycRpSettings>>
  readonly saveSettings: (settings: KycRpSettings) => Effect.Effect<void>
}>() {}

/** Webhook subscriptions. */
export class WebhookSubscriptions extends Context.Tag("@signet/core/WebhookSubscriptions")<WebhookSubscriptions, {
  readonly insert: (subscription: NewWebhookSubscription) => Effect.Effect<WebhookSubscription>
  readonly findById: (id: number) => Effect.Effect<Option.Option<WebhookSubscription>>
  /** An RP's active subscriptions, oldest first. */
  readonly listActive: (clientId: string) => Effect.Effect<ReadonlyArray<WebhookSubscription>>
  /** Active subscriptions of an RP that list `eventType`. */
  readonly listFor: (clientId: string, eventType: WebhookEventType) => Effect.Effect<ReadonlyArray<WebhookSubscription>>
  readonly deactivate: (id: number) => Effect.Effect<void>
}>() {}

/** The outbox: deliveries written with the state change, claimed and delivered by workers on any node. */
export class Deliveries extends Context.Tag("@signet/core/Deliveries")<Deliveries, {
  readonly enqueue: (delivery: NewDelivery) => Effect.Effect<Delivery>
  /**
   * Claims up to `limit` due pending deliveries for `leaseMs` (other workers skip them until
   * then), never one whose target has an older pending delivery for the same ordering key.
   */
  readonly claimDue: (now: number, leaseMs: number, limit: number) => Effect.Effect<ReadonlyArray<Delivery>>
  /** Records an attempt and the delivery's new state (delivered, failed, or pending at `nextAttemptAt`). */
  readonly recordAttempt: (attempt: DeliveryAttempt, next: Pick<Delivery, "status" | "nextAttemptAt" | "lastStatus" | "lastError" | "deliveredAt">) => Effect.Effect<void>
  /** An RP's deliveries, newest first, at most `limit`, optionally of one subscription. */
  readonly listForClient: (clientId: string, subscriptionId: number | null, limit: number) => Effect.Effect<ReadonlyArray<Delivery>>
  readonly attemptsOf: (deliveryId: number) => Effect.Effect<ReadonlyArray<DeliveryAttempt>>
}>() {}

// OpenID provider repositories (appended so the import block above stays untouched).
import type { AuthorizationCode, Consent, RefreshToken, SessionSignIn, SigningKey } from "../oidc/model.ts"

/** One-time authorization codes. */
export class AuthorizationCodes extends Context.Tag("@signet/core/AuthorizationCodes")<AuthorizationCodes, {
  readonly insert: (code: AuthorizationCode) => Effect.Effect<void, UniqueViolation>
  readonly findByHash: (codeHash: string) => Effect.Effect<Option.Option<AuthorizationCode>>
  /** Marks the code used at `at` if it was not used yet; None when it was (or is unknown). Atomic. */
  readonly consume: (codeHash: string, at: number) => Effect.Effect<Option.Option<AuthorizationCode>>
}>() {}

/** Refresh tokens, in families. */
export class RefreshTokens extends Context.Tag("@signet/core/RefreshTokens")<RefreshTokens, {
  readonly insert: (token: RefreshToken) => Effect.Effect<void, UniqueViolation>
  readonly findByHash: (tokenHash: string) => Effect.Effect<Option.Option<RefreshToken>>
  /** Marks the token used at `at` if it is neither used nor revoked; None otherwise. Atomic. */
  readonly consume: (tokenHash: string, at: number) => Effect.Effect<Option.Option<RefreshToken>>
  /** Marks every token of the family revoked (those not revoked yet) and returns the family's tokens. */
  readonly revokeFamily: (familyId: string, at: number) => Effect.Effect<ReadonlyArray<RefreshToken>>
}>() {}

/** Remembered consents, one per user and client. */
export class Consents extends Context.Tag("@signet/core/Consents")<Consents, {
  readonly find: (userId: string, clientId: string) => Effect.Effect<Option.Option<Consent>>
  /** Inserts or replaces the user's consent for the client. */
  readonly save: (consent: Consent) => Effect.Effect<void>
}>() {}

/** Revoked access tokens by `jti`, kept until the token would have expired anyway. */
export class TokenRevocations extends Context.Tag("@signet/core/TokenRevocations")<TokenRevocations, {
  /** Records the revocation (idempotent). */
  readonly revoke: (jti: string, expiresAt: number) => Effect.Effect<void>
  readonly isRevoked: (jti: string) => Effect.Effect<boolean>
  /** Forgets revocations of tokens expired before `now`; answers how many. */
  readonly purgeExpired: (now: number) => Effect.Effect<number>
}>() {}

/** Token-signing key generations. */
export class SigningKeys extends Context.Tag("@signet/core/SigningKeys")<SigningKeys, {
  /** Inserts a generation; UniqueViolation when its number is taken (a concurrent rotation). */
  readonly insert: (key: SigningKey) => Effect.Effect<void, UniqueViolation>
  /** An environment's generations, newest first. */
  readonly list: (environment: string) => Effect.Effect<ReadonlyArray<SigningKey>>
}>() {}

/** Sign-ins on hosted-page sessions (at most one user per session). */
export class SessionSignIns extends Context.Tag("@signet/core/SessionSignIns")<SessionSignIns, {
  /** Inserts or replaces the session's sign-in. */
  readonly save: (signIn: SessionSignIn) => Effect.Effect<void>
  readonly find: (sessionId: string) => Effect.Effect<Option.Option<SessionSignIn>>
  /** Ends the sign-in (logout); no-op when there is none. */
  readonly remove: (sessionId: string) => Effect.Effect<void>
}>() {}

// Billing repositories (appended here so the shared import block above stays untouched).
import type { Checkout, Subscription } from "../billing/model.ts"

/** Checkouts: attempts to pay for a plan. */
export class Checkouts extends Context.Tag("@signet/core/Checkouts")<Checkouts, {
  readonly insert: (checkout: Checkout) => Effect.Effect<void, UniqueViolation>
  readonly findById: (id: string) => Effect.Effect<Option.Option<Checkout>>
  /** Stores `next` only if the stored status is still `expected` (compare-and-set); false when it was not. */
  readonly update: (next: Checkout, expected: Checkout["status"]) => Effect.Effect<boolean>
}>() {}

/** Subscriptions: paid terms of a plan, one per paid checkout. */
export class Subscriptions extends Context.Tag("@signet/core/Subscriptions")<Subscriptions, {
  /** Inserts; `UniqueViolation` when the checkout already started one (a repeated confirmation). */
  readonly insert: (subscription: Subscription) => Effect.Effect<void, UniqueViolation>
  /** The RP's subscriptions, the latest start first. */
  readonly listForRp: (clientId: string) => Effect.Effect<ReadonlyArray<Subscription>>
}>() {}

// Documents repositories: encrypted files and signature images (docs/documents.md).
import type { EncryptedFile, SignatureImage } from "../documents/model.ts"

/** Encrypted files and who they are addressed to. */
export class EncryptedFiles extends Context.Tag("@signet/core/EncryptedFiles")<EncryptedFiles, {
  readonly insert: (file: EncryptedFile) => Effect.Effect<void, UniqueViolation>
  readonly findById: (id: string) => Effect.Effect<Option.Option<EncryptedFile>>
  /** Files the user owns or is a recipient of, newest first, at most `limit`. */
  readonly listForUser: (userId: string, limit: number) => Effect.Effect<ReadonlyArray<EncryptedFile>>
  /** Deletes a file (and its recipients). */
  readonly remove: (id: string) => Effect.Effect<void>
}>() {}

/** Signers' own signature images, one per user. */
export class SignatureImages extends Context.Tag("@signet/core/SignatureImages")<SignatureImages, {
  /** Stores the user's image, replacing an earlier one. */
  readonly save: (image: SignatureImage) => Effect.Effect<void>
  readonly findByUser: (userId: string) => Effect.Effect<Option.Option<SignatureImage>>
  /** Deletes the user's image; false when there was none. */
  readonly remove: (userId: string) => Effect.Effect<boolean>
}>() {}

/** A PDF prepared for PAdES signing: the document with its signature update, sealed at rest. */
export interface PreparedPdf {
  /** the signing request that approves it */
  readonly requestId: string
  readonly clientId: string
  readonly userId: string
  /** Vault-sealed bytes of the original PDF followed by the prepared update (empty `/Contents`) */
  readonly sealed: Uint8Array
  /** absolute offset of the first hex digit of `/Contents`, and its room in bytes */
  readonly contentsOffset: number
  readonly contentsBytes: number
  readonly fieldName: string
  /** the PAdES baseline level asked for: -B, -T (a timestamp in the CMS) or -LT (plus a DSS when fetched) */
  readonly level: PadesLevel
  readonly createdAt: number
}

/** The PAdES baseline levels a PDF can be signed at (ETSI EN 319 142-1). */
export type PadesLevel = "PAdES-BASELINE-B" | "PAdES-BASELINE-T" | "PAdES-BASELINE-LT"

/** PDFs prepared for signing through the HTTP flow (hosts that sign larger files use the library API on a file). */
export class PreparedPdfs extends Context.Tag("@signet/core/PreparedPdfs")<PreparedPdfs, {
  readonly insert: (pdf: PreparedPdf) => Effect.Effect<void, UniqueViolation>
  readonly findByRequestId: (requestId: string) => Effect.Effect<Option.Option<PreparedPdf>>
  /** Deletes every prepared PDF created before `before` (ms); the number deleted. */
  readonly purgeBefore: (before: number) => Effect.Effect<number>
}>() {}
