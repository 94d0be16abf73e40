/** Sample aggregates for storage tests: every field set, with values that stress the columns. */
import type { Ceremony, HostedSession, NewRelyingParty, Passkey, StoredKey, Subscription, User } from "@signet/core"

/** 2100-01-01T00:00:00Z in ms: beyond 32 bits, so a column that truncates shows it. */
export const FAR_FUTURE_MS = 4_102_444_800_000

/** An RP with every optional field set (plan, custom allowance, contact), overridable. */
export const sampleRelyingParty = (overrides: Partial<NewRelyingParty> = {}): NewRelyingParty => ({
  clientId: "sbx_client_0001",
  name: "Ärztekammer Nord — «Signet» 署名",
  environment: "sandbox",
  clientSecretHash: "a".repeat(64),
  sscSecretHash: "b".repeat(64),
  status: "approved",
  maxLoa: "LOA-4",
  kycVerified: true,
  signingOrigins: ["https://app.example.com", "http://localhost:5173"],
  webauthnRpId: "example.com",
  plan: "enterprise",
  customAllowance: { signaturesPerDay: 50_000, documentsPerBatch: 25, requestsPerMinute: 1200, highestLoa: "LOA-4" },
  contactUserId: "usr_contact",
  redirectUris: ["https://app.example.com/callback?x=ü", "http://localhost:5173/cb"],
  postLogoutRedirectUris: ["https://app.example.com/bye"],
  requestedPlan: "business",
  retiredClientSecret: { hash: "c".repeat(64), validUntil: FAR_FUTURE_MS + 2 },
  retiredSscSecret: { hash: "d".repeat(64), validUntil: FAR_FUTURE_MS + 3 },
  // not the column's default (ES256), so a column that is not written shows it
  idTokenSignedResponseAlg: "RS256",
  createdAt: FAR_FUTURE_MS,
  updatedAt: FAR_FUTURE_MS + 1,
  ...overrides,
})

/** An RP with every nullable field null and no origins. */
export const bareRelyingParty = (overrides: Partial<NewRelyingParty> = {}): NewRelyingParty => ({
  ...sampleRelyingParty(),
  clientId: "prd_client_bare",
  environment: "production",
  status: "pending",
  maxLoa: "LOA-2",
  kycVerified: false,
  signingOrigins: [],
  plan: null,
  customAllowance: null,
  contactUserId: null,
  redirectUris: [],
  postLogoutRedirectUris: [],
  requestedPlan: null,
  retiredClientSecret: null,
  retiredSscSecret: null,
  idTokenSignedResponseAlg: "ES256",
  createdAt: 1,
  updatedAt: 1,
  ...overrides,
})

/** A user; the e-mail has upper-case letters on purpose (storage keeps it lower-case). */
export const sampleUser = (overrides: Partial<User> = {}): User => ({
  id: "usr_0001",
  email: "alice@example.com",
  displayName: "Alice Ł. Müller",
  createdAt: FAR_FUTURE_MS,
  emailVerifiedAt: FAR_FUTURE_MS,
  ...overrides,
})

/** A passkey with transports, backed up, never used. */
export const samplePasskey = (overrides: Partial<Passkey> = {}): Passkey => ({
  id: "Y3JlZC0wMDAx",
  userId: "usr_0001",
  publicKey: "pQECAyYgASFYIA",
  algorithm: -7,
  counter: 4_294_967_295,
  rpId: "example.com",
  transports: ["internal", "hybrid"],
  backedUp: true,
  createdAt: FAR_FUTURE_MS,
  lastUsedAt: null,
  ...overrides,
})

/** An enrolment ceremony of a new user (every field set), not consumed. */
export const sampleCeremony = (overrides: Partial<Ceremony> = {}): Ceremony => ({
  id: "cer_0001",
  kind: "enrolment",
  challenge: "q83vEjRWeJCrze8SNFZ4kA",
  userId: "usr_0002",
  email: "bob@example.com",
  displayName: "Bob",
  clientId: "sbx_client_0001",
  rpId: "example.com",
  createdAt: FAR_FUTURE_MS,
  expiresAt: FAR_FUTURE_MS + 300_000,
  consumedAt: null,
  emailVerificationId: "ev_0001",
  ...overrides,
})

/** A hosted-page session. */
export const sampleHostedSession = (overrides: Partial<HostedSession> = {}): HostedSession => ({
  id: "hs_0001",
  csrfTokenHash: "c".repeat(64),
  createdAt: FAR_FUTURE_MS,
  expiresAt: FAR_FUTURE_MS + 3_600_000,
  ...overrides,
})

/** An encrypted key record. */
export const sampleStoredKey = (overrides: Partial<StoredKey> = {}): StoredKey => ({
  keyId: "key_0001",
  algorithm: "ES256",
  publicJwk: JSON.stringify({ kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" }),
  encryptedPrivateKey: "AAECAwQFBgcICQoL" + "z".repeat(200),
  createdAt: FAR_FUTURE_MS,
  ...overrides,
})

/** A plan subscription (the starter plan, monthly) of RP `rp_sbx_1`, overridable. */
export const samplePlanSubscription = (overrides: Partial<Subscription> = {}): Subscription => ({
  id: "sub_1",
  clientId: "rp_sbx_1",
  plan: "starter",
  period: "monthly",
  checkoutId: "chk_1",
  startsAt: 10,
  endsAt: 20,
  createdAt: 10,
  ...overrides,
})
