/** fast-check arbitraries for the engine's inputs: RPs, users, LOAs, plans and commands. */
import type { Loa, PlanId, RelyingParty, RpCommand, RpStatus, User } from "@signet/core"
import fc from "fast-check"

/** A level of assurance. */
export const loa: fc.Arbitrary<Loa> = fc.constantFrom("LOA-2", "LOA-4")
/** A plan, or none (the default allowance). */
export const plan: fc.Arbitrary<PlanId | null> = fc.constantFrom("starter", "business", "enterprise", null)
/** An approval status. */
export const rpStatus: fc.Arbitrary<RpStatus> = fc.constantFrom("pending", "approved", "rejected", "suspended")
/** An https or localhost origin. */
export const origin: fc.Arbitrary<string> = fc.oneof(
  fc.domain().map((d) => `https://${d.toLowerCase()}`),
  fc.integer({ min: 1024, max: 65535 }).map((p) => `http://localhost:${p}`),
)
/** A lower-case e-mail address with a top-level domain. */
export const email: fc.Arbitrary<string> = fc
  .tuple(
    fc.stringMatching(/^[a-z][a-z0-9.]{0,15}$/).filter((s) => !s.endsWith(".") && !s.includes("..")),
    fc.domain().filter((d) => /\.[a-z]{2,}$/i.test(d)),
  )
  .map(([l, d]) => `${l}@${d.toLowerCase()}`)
/** Milliseconds within this century (beyond 2^32, so bigint handling is exercised). */
export const timestamp: fc.Arbitrary<number> = fc.integer({ min: 946684800000, max: 4102444800000 })

/** A user. */
export const user: fc.Arbitrary<User> = fc.record({
  id: fc.uuid(),
  email,
  displayName: fc.string({ minLength: 1, maxLength: 40 }),
  createdAt: timestamp,
  emailVerifiedAt: fc.option(timestamp, { nil: null }),
})

/** A relying party (without id), every field drawn. */
export const relyingParty: fc.Arbitrary<Omit<RelyingParty, "id">> = fc.record({
  clientId: fc.stringMatching(/^rp_sbx_[A-Za-z0-9_-]{16}$/),
  name: fc.string({ minLength: 1, maxLength: 40 }),
  environment: fc.constantFrom("sandbox" as const, "production" as const),
  clientSecretHash: fc.hexaString({ minLength: 64, maxLength: 64 }),
  sscSecretHash: fc.hexaString({ minLength: 64, maxLength: 64 }),
  status: rpStatus,
  maxLoa: loa,
  kycVerified: fc.boolean(),
  signingOrigins: fc.uniqueArray(origin, { maxLength: 3 }),
  webauthnRpId: fc.constantFrom("localhost", "signet.example", "rp.example.org"),
  plan,
  customAllowance: fc.option(
    fc.record({
      signaturesPerDay: fc.nat(100000),
      documentsPerBatch: fc.integer({ min: 1, max: 100 }),
      requestsPerMinute: fc.integer({ min: 1, max: 10000 }),
      highestLoa: loa,
    }),
    { nil: null },
  ),
  contactUserId: fc.option(fc.uuid(), { nil: null }),
  redirectUris: fc.uniqueArray(
    origin.map((o) => `${o}/callback`),
    { maxLength: 2 },
  ),
  postLogoutRedirectUris: fc.uniqueArray(
    origin.map((o) => `${o}/bye`),
    { maxLength: 2 },
  ),
  idTokenSignedResponseAlg: fc.constantFrom("RS256" as const, "ES256" as const),
  requestedPlan: fc.option(fc.constantFrom("starter" as const, "business" as const, "enterprise" as const), { nil: null }),
  retiredClientSecret: fc.option(fc.record({ hash: fc.hexaString({ minLength: 64, maxLength: 64 }), validUntil: timestamp }), { nil: null }),
  retiredSscSecret: fc.option(fc.record({ hash: fc.hexaString({ minLength: 64, maxLength: 64 }), validUntil: timestamp }), { nil: null }),
  createdAt: timestamp,
  updatedAt: timestamp,
})

/** An administrative RP command. */
export const rpCommand: fc.Arbitrary<RpCommand> = fc.oneof(
  fc.constant({ _tag: "Approve" as const }),
  fc.constant({ _tag: "Reject" as const }),
  fc.constant({ _tag: "Suspend" as const }),
  plan.map((p) => ({ _tag: "SetPlan" as const, plan: p })),
  loa.map((l) => ({ _tag: "SetMaxLoa" as const, loa: l })),
  fc.boolean().map((b) => ({ _tag: "SetKycVerified" as const, kycVerified: b })),
  fc
    .array(fc.oneof(origin, fc.constantFrom("not an origin", "https://x.example/path")), { maxLength: 3 })
    .map((o) => ({ _tag: "SetSigningOrigins" as const, origins: o })),
)

export * from "./bytes.ts"
