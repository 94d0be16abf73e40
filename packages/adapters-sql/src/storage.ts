/** Every storage port over one SQL database, shared by SQLite and PostgreSQL. */
import { Layer } from "effect"
import type {
  Batches, Ceremonies, Certificates, HostedSessions, KeyRecords, Passkeys, QuotaCounters, RelyingParties, SigningEvents,
  SigningRequests, SscOperations, Storage, Users, Deliveries, WebhookSubscriptions,
  KycAudit, KycCaptures, KycImages, KycVerifications, RpOrganisationChecks, Checkouts, Subscriptions,
  ExternalLogins, IdentityLinks, IdentityProviders, LinkOffers, EncryptedFiles, SignatureImages, PreparedPdfs,
  AuthorizationCodes, RefreshTokens, Consents, TokenRevocations, SigningKeys, SessionSignIns,
  StepUpProofs, AuditLog, EmailVerifications,
} from "@signet/core"
import { AuthorizationStorageSql } from "./repositories/authorization.ts"
import { EmailVerificationsSql } from "./repositories/email-verifications.ts"
import { OidcStorageSql } from "./repositories/oidc.ts"
import { RpOrganisationChecksSql } from "./repositories/rp-organisation-checks.ts"
import { CheckoutsSql, SubscriptionsSql } from "./repositories/billing.ts"
import { IdentityProviderStorageSql } from "./repositories/identity-providers.ts"
import { DocumentsStorageSql } from "./repositories/documents.ts"
import { DeliveriesSql, WebhookSubscriptionsSql } from "./repositories/webhooks.ts"
import { SscOperationsSql } from "./repositories/ssc-operations.ts"
import { KycStorageSql } from "./repositories/kyc.ts"
import { CertificatesSql } from "./repositories/certificates.ts"
import { PreparedPdfsSql } from "./repositories/prepared-pdfs.ts"
import { BatchesSql, QuotaCountersSql, SigningEventsSql, SigningRequestsSql } from "./repositories/signing.ts"
import { CeremoniesSql } from "./repositories/ceremonies.ts"
import { HostedSessionsSql } from "./repositories/hosted-sessions.ts"
import { KeyRecordsSql } from "./repositories/key-records.ts"
import { PasskeysSql } from "./repositories/passkeys.ts"
import { RelyingPartiesSql } from "./repositories/relying-parties.ts"
import { UsersSql } from "./repositories/users.ts"
import { type SqlDatabase, StorageSql } from "./sql-database.ts"

/** Every tag the storage adapters provide. */
export type StorageServices = Storage | RelyingParties | Users | Passkeys | Ceremonies | HostedSessions | KeyRecords
  | Certificates | SigningRequests | Batches | SigningEvents | QuotaCounters | SscOperations | WebhookSubscriptions | Deliveries
  | KycVerifications | KycCaptures | KycImages | KycAudit | RpOrganisationChecks
  | Checkouts | Subscriptions
  | IdentityProviders | ExternalLogins | IdentityLinks | LinkOffers
  | EncryptedFiles | SignatureImages | PreparedPdfs
  | AuthorizationCodes | RefreshTokens | Consents | TokenRevocations | SigningKeys | SessionSignIns
  | StepUpProofs | AuditLog
  | EmailVerifications

/** The unit of work and every repository, over the `SqlDatabase` a dialect package provides. */
export const SqlStorageLive: Layer.Layer<StorageServices, never, SqlDatabase> = Layer.mergeAll(
  StorageSql, RelyingPartiesSql, UsersSql, PasskeysSql, CeremoniesSql, HostedSessionsSql, KeyRecordsSql,
  CertificatesSql, SigningRequestsSql, BatchesSql, SigningEventsSql, QuotaCountersSql, SscOperationsSql,
  WebhookSubscriptionsSql, DeliveriesSql,
  KycStorageSql,
  RpOrganisationChecksSql,
  CheckoutsSql, SubscriptionsSql,
  IdentityProviderStorageSql,
  DocumentsStorageSql, PreparedPdfsSql,
  OidcStorageSql,
  AuthorizationStorageSql,
  EmailVerificationsSql,
)
