/** Request and response Schemas of the console's API (`/admin/api/*` beyond the RP list and commands). */
import { Schema } from "effect"

const Iso = Schema.String.annotations({ description: "ISO 8601 time (UTC)" })
const Score = Schema.NullOr(Schema.Number)

/** One line of the review queue. */
export const KycQueueEntry = Schema.Struct({
  id: Schema.String,
  clientId: Schema.String,
  customerId: Schema.String,
  status: Schema.String,
  reasons: Schema.Array(Schema.String),
  faceMatchScore: Score,
  livenessScore: Score,
  updatedAt: Iso,
})
/** Answer of `GET /admin/api/kyc/verifications`. */
export const KycQueueResponse = Schema.Array(KycQueueEntry)

/** Answer of `GET /admin/api/kyc/verifications/{id}`. */
export const KycReviewFileResponse = Schema.Struct({
  ...KycQueueEntry.fields,
  record: Schema.Struct({ customerId: Schema.String, phoneNumber: Schema.String, rpUrn: Schema.NullOr(Schema.String), createdAt: Iso }),
  document: Schema.NullOr(
    Schema.Struct({
      docType: Schema.String,
      docNumber: Schema.String,
      personalNumber: Schema.String,
      surname: Schema.String,
      givenNames: Schema.String,
      dateOfBirth: Schema.NullOr(Schema.String),
      docExpiry: Schema.NullOr(Schema.String),
      nationality: Schema.String,
    }),
  ),
  thresholds: Schema.Struct({ liveness: Schema.Number, match: Schema.Number, review: Schema.Number }),
  images: Schema.Array(Schema.Struct({ id: Schema.String, kind: Schema.String, position: Schema.Number, contentType: Schema.String })),
  history: Schema.Array(
    Schema.Struct({
      action: Schema.String,
      from: Schema.NullOr(Schema.String),
      to: Schema.NullOr(Schema.String),
      reasons: Schema.Array(Schema.String),
      at: Iso,
    }),
  ),
})

/** Body of `POST /admin/api/kyc/verifications/{id}/decision`. */
export const DecisionRequest = Schema.Struct({
  decision: Schema.Literal("approve", "reject"),
  reason: Schema.String.annotations({ description: "why, for the audit log" }),
  reviewer: Schema.String.annotations({ description: "who decided, for the audit log" }),
})
/** Answer of `POST /admin/api/kyc/verifications/{id}/decision`. */
export const DecisionResponse = Schema.Struct({
  id: Schema.String,
  clientId: Schema.String,
  customerId: Schema.String,
  status: Schema.String,
  reasons: Schema.Array(Schema.String),
})
/** Body of `POST /admin/api/kyc/verifications/{id}/erase`. */
export const EraseRequest = Schema.Struct({ reason: Schema.String, reviewer: Schema.String })

/** Answer of `GET /admin/api/relying-parties/{clientId}/webhooks`. */
export const WebhooksResponse = Schema.Struct({
  subscriptions: Schema.Array(
    Schema.Struct({ id: Schema.Int, url: Schema.String, events: Schema.Array(Schema.String), active: Schema.Boolean, createdAt: Iso }),
  ),
  deliveries: Schema.Array(
    Schema.Struct({
      id: Schema.Int,
      kind: Schema.String,
      subscriptionId: Schema.NullOr(Schema.Int),
      url: Schema.String,
      eventType: Schema.String,
      status: Schema.String,
      attempts: Schema.Int,
      lastStatus: Schema.NullOr(Schema.Int),
      lastError: Schema.NullOr(Schema.String),
      createdAt: Iso,
      deliveredAt: Schema.NullOr(Iso),
      history: Schema.Array(
        Schema.Struct({ attempt: Schema.Int, at: Iso, statusCode: Schema.NullOr(Schema.Int), error: Schema.NullOr(Schema.String), durationMs: Schema.Number }),
      ),
    }),
  ),
})
/** Answer of `POST /admin/api/relying-parties/{clientId}/deliveries/{deliveryId}/retry`. */
export const RetryResponse = Schema.Struct({ id: Schema.Int, status: Schema.Literal("pending") })

/** Body of `POST /admin/api/relying-parties/{clientId}/kyc`. */
export const KycSwitchRequest = Schema.Struct({ enabled: Schema.Boolean, identityScope: Schema.optional(Schema.Literal("rp", "shared")) })
/** Answer of `GET`/`POST /admin/api/relying-parties/{clientId}/kyc`. */
export const KycSwitchResponse = Schema.Struct({ clientId: Schema.String, enabled: Schema.Boolean, identityScope: Schema.Literal("rp", "shared") })

/** Answer of `GET /admin/api/relying-parties/{clientId}/usage`. */
export const UsageHistoryResponse = Schema.Struct({
  clientId: Schema.String,
  days: Schema.Array(Schema.Struct({ day: Schema.String, signatures: Schema.Number, quotaRefusals: Schema.Number })),
  kyc: Schema.Struct({
    byStatus: Schema.Record({ key: Schema.String, value: Schema.Number }),
    byReason: Schema.Record({ key: Schema.String, value: Schema.Number }),
  }),
  charts: Schema.Struct({
    signatures: Schema.String.annotations({ description: "SVG document" }),
    quotaRefusals: Schema.String.annotations({ description: "SVG document" }),
    kycByStatus: Schema.String.annotations({ description: "SVG document" }),
  }),
})

/** Answer of `GET /admin/api/certificates` and `POST /admin/api/certificates/{serial}/revoke`. */
export const CertificateSearchResponse = Schema.Array(
  Schema.Struct({
    serial: Schema.String,
    kind: Schema.String,
    userId: Schema.NullOr(Schema.String),
    subject: Schema.String,
    status: Schema.String,
    notBefore: Iso,
    notAfter: Iso,
    revokedAt: Schema.NullOr(Iso),
    revocationReason: Schema.NullOr(Schema.String),
  }),
)
/** Body of `POST /admin/api/certificates/{serial}/revoke`. */
export const RevokeRequest = Schema.Struct({ reason: Schema.String })

/** Answer of `GET /admin/api/audit` (JSON; `?format=csv` answers `text/csv`). */
export const AuditLogResponse = Schema.Array(
  Schema.Struct({
    id: Schema.String,
    at: Iso,
    action: Schema.String,
    subject: Schema.String,
    actorUserId: Schema.NullOr(Schema.String),
    actorClientId: Schema.NullOr(Schema.String),
    detail: Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null) }),
  }),
)
