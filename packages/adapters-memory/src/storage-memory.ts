/** Every storage port in memory, composed into one layer. */
import { Context, Effect, Layer } from "effect"
import {
  Storage,
  type AuditLog,
  type AuthorizationCodes,
  type Batches,
  type Ceremonies,
  type Certificates,
  type Checkouts,
  type Consents,
  type Deliveries,
  type EmailVerifications,
  type EncryptedFiles,
  type ExternalLogins,
  type HostedSessions,
  type IdentityLinks,
  type IdentityProviders,
  type KeyRecords,
  type KycAudit,
  type KycCaptures,
  type KycImages,
  type KycVerifications,
  type LinkOffers,
  type Passkeys,
  type PreparedPdfs,
  type QuotaCounters,
  type RefreshTokens,
  type RelyingParties,
  type RpOrganisationChecks,
  type SessionSignIns,
  type SignatureImages,
  type SigningEvents,
  type SigningKeys,
  type SigningRequests,
  type SscOperations,
  type StepUpProofs,
  type Subscriptions,
  type UsageHistory,
  type TokenRevocations,
  type Users,
  type WebhookSubscriptions,
} from "@signet/core"
import { authorizationMemory } from "./authorization.ts"
import { billingMemory } from "./billing.ts"
import { documentsMemory } from "./documents.ts"
import { eventsMemory } from "./events.ts"
import { identityProvidersMemory } from "./identity-providers.ts"
import { identityMemory } from "./identity.ts"
import { kycMemory } from "./kyc.ts"
import { makeMemoryDatabase } from "./memory-database.ts"
import { oidcMemory } from "./oidc.ts"
import { pkiMemory } from "./pki.ts"
import { rpMemory } from "./rp.ts"
import { signingMemory } from "./signing.ts"

/** Every tag `StorageMemory` provides: the unit of work and every repository (the same set as the SQL adapters). */
export type StorageMemoryServices =
  | Storage
  | RelyingParties
  | Users
  | Passkeys
  | Ceremonies
  | HostedSessions
  | KeyRecords
  | Certificates
  | SigningRequests
  | Batches
  | SigningEvents
  | QuotaCounters
  | SscOperations
  | WebhookSubscriptions
  | Deliveries
  | KycVerifications
  | KycCaptures
  | KycImages
  | KycAudit
  | RpOrganisationChecks
  | Checkouts
  | Subscriptions
  | UsageHistory
  | IdentityProviders
  | ExternalLogins
  | IdentityLinks
  | LinkOffers
  | EncryptedFiles
  | SignatureImages
  | PreparedPdfs
  | AuthorizationCodes
  | RefreshTokens
  | Consents
  | TokenRevocations
  | SigningKeys
  | SessionSignIns
  | StepUpProofs
  | AuditLog
  | EmailVerifications

/**
 * Storage in memory: every repository, a real `Storage.transaction` (all or nothing, nested calls
 * join, concurrent ones serialised) and counters exact under concurrency, with the same contract
 * as SQLite and PostgreSQL (it passes the testkit's `storageConformance`). Each build of the layer
 * is a new, empty store that lives as long as the layer; nothing is written anywhere. For tests
 * (yours too) and throwaway engines, not for data that must survive the process.
 */
export const StorageMemory: Layer.Layer<StorageMemoryServices> = Layer.effectContext(
  Effect.map(makeMemoryDatabase(), (db) =>
    Context.make(Storage, Storage.of({ transaction: db.transaction })).pipe(
      Context.merge(identityMemory(db)),
      Context.merge(rpMemory(db)),
      Context.merge(pkiMemory(db)),
      Context.merge(signingMemory(db)),
      Context.merge(eventsMemory(db)),
      Context.merge(kycMemory(db)),
      Context.merge(billingMemory(db)),
      Context.merge(oidcMemory(db)),
      Context.merge(identityProvidersMemory(db)),
      Context.merge(documentsMemory(db)),
      Context.merge(authorizationMemory(db)),
    ),
  ),
)
