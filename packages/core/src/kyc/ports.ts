/** Ports of the KYC capability: its repositories, its settings, and the providers that read documents, judge liveness, match faces and seal images. */
import { Context, type Effect, type Option } from "effect"
import type { UniqueViolation } from "../ports/storage.ts"
import type {
  DocumentReading,
  FaceComparison,
  KycAuditEntry,
  KycCapture,
  KycImage,
  KycImageKind,
  KycRpSettings,
  KycSettingsShape,
  KycVerification,
  LivenessResult,
} from "./model.ts"

/** KYC verifications: one per customer per RP; customer id, phone number and rp_urn are each unique within an RP. */
export class KycVerifications extends Context.Tag("@signet/core/KycVerifications")<
  KycVerifications,
  {
    /** Inserts; `UniqueViolation.what` names the taken identifier (`customer_id`, `phone_number` or `rp_urn`). */
    readonly insert: (v: KycVerification) => Effect.Effect<void, UniqueViolation>
    readonly findByCustomer: (clientId: string, customerId: string) => Effect.Effect<Option.Option<KycVerification>>
    readonly findByPhone: (clientId: string, phoneNumber: string) => Effect.Effect<Option.Option<KycVerification>>
    readonly findByRpUrn: (clientId: string, rpUrn: string) => Effect.Effect<Option.Option<KycVerification>>
    readonly findById: (id: string) => Effect.Effect<Option.Option<KycVerification>>
    readonly findBySessionToken: (tokenHash: string) => Effect.Effect<Option.Option<KycVerification>>
    /** The most recently updated `verified` verification of a customer at any RP (shared identity scope). */
    readonly findVerifiedAnywhere: (customerId: string) => Effect.Effect<Option.Option<KycVerification>>
    /** Verifications newest-updated first, at most `limit`, narrowed to an RP and a status when given (the console's queue). */
    readonly list: (filter: {
      readonly clientId?: string | undefined
      readonly status?: KycVerification["status"] | undefined
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<KycVerification>>
    /** Stores `next` (with `version` bumped by the caller) only if the stored version is still `expectedVersion`. */
    readonly update: (next: KycVerification, expectedVersion: number) => Effect.Effect<boolean, UniqueViolation>
    /** Deletes the verification with its captures and images. */
    readonly remove: (id: string) => Effect.Effect<void>
  }
>() {}

/** Confirmed liveness captures (one-time transaction ids). */
export class KycCaptures extends Context.Tag("@signet/core/KycCaptures")<
  KycCaptures,
  {
    readonly insert: (capture: KycCapture) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<KycCapture>>
    /** Marks the capture used at `at` if it was not used yet; false when it was. Atomic. */
    readonly consume: (id: string, at: number) => Effect.Effect<boolean>
  }
>() {}

/** Encrypted document images and selfies. */
export class KycImages extends Context.Tag("@signet/core/KycImages")<
  KycImages,
  {
    readonly insert: (image: KycImage) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<KycImage>>
    /** A verification's images of a kind, by position then age. */
    readonly listFor: (verificationId: string, kind: KycImageKind) => Effect.Effect<ReadonlyArray<KycImage>>
    /** Deletes a verification's images of a kind. */
    readonly removeFor: (verificationId: string, kind: KycImageKind) => Effect.Effect<void>
    /** Deletes every image created before `before` (ms); the number deleted. */
    readonly purgeBefore: (before: number) => Effect.Effect<number>
  }
>() {}

/** The append-only KYC audit log, and per-RP KYC settings. */
export class KycAudit extends Context.Tag("@signet/core/KycAudit")<
  KycAudit,
  {
    readonly append: (entry: KycAuditEntry) => Effect.Effect<void>
    /** A verification's entries, oldest first. */
    readonly listFor: (verificationId: string) => Effect.Effect<ReadonlyArray<KycAuditEntry>>
    readonly settingsOf: (clientId: string) => Effect.Effect<Option.Option<KycRpSettings>>
    readonly saveSettings: (settings: KycRpSettings) => Effect.Effect<void>
  }
>() {}

/** KYC settings as a service. */
export class KycSettings extends Context.Tag("@signet/core/KycSettings")<KycSettings, KycSettingsShape>() {}

/** Document images → extracted fields, MRZ lines, authenticity signals. */
export class DocumentReader extends Context.Tag("@signet/core/DocumentReader")<
  DocumentReader,
  {
    readonly read: (images: ReadonlyArray<Uint8Array>) => Effect.Effect<DocumentReading>
  }
>() {}

/** Capture frames → a liveness result with a score in 0..1 and the best selfie frame. */
export class LivenessProvider extends Context.Tag("@signet/core/LivenessProvider")<
  LivenessProvider,
  {
    readonly assess: (frames: ReadonlyArray<Uint8Array>) => Effect.Effect<LivenessResult>
  }
>() {}

/** Two face images → their similarity in 0..1, or which one is unusable and why (the person retakes it). */
export class FaceMatcher extends Context.Tag("@signet/core/FaceMatcher")<
  FaceMatcher,
  {
    readonly compare: (reference: Uint8Array, probe: Uint8Array) => Effect.Effect<FaceComparison>
  }
>() {}

/** Encryption at rest of images: `aad` binds a ciphertext to its record. Opening a tampered ciphertext is a defect. */
export class KycVault extends Context.Tag("@signet/core/KycVault")<
  KycVault,
  {
    readonly seal: (plain: Uint8Array, aad: string) => Effect.Effect<Uint8Array>
    readonly open: (sealed: Uint8Array, aad: string) => Effect.Effect<Uint8Array>
  }
>() {}
