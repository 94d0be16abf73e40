/**
 * Periodic clean-up every node runs: expired quota windows, KYC images past their retention,
 * prepared PDFs older than a day, expired external sign-ins, revocations of expired tokens,
 * expired step-up proofs.
 */
import { Clock, Effect, Schedule } from "effect"
import { purgeKycImages } from "./kyc/verify.ts"
import { PreparedPdfs } from "./pades/ports.ts"
import { QuotaCounters } from "./rp/ports.ts"
import { TokenRevocations } from "./oidc/ports.ts"
import { PREPARED_PDF_RETENTION_MS } from "./pades/flow.ts"
import { ExternalLogins, LinkOffers } from "./identity-providers/ports.ts"
import { StepUpProofs } from "./authorization/ports.ts"
import { EmailVerifications } from "./identity/ports.ts"

/** One clean-up round; answers what it removed. */
export const housekeepingRound = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  const counters = yield* Effect.flatMap(QuotaCounters, (q) => q.purgeExpired(now))
  const images = yield* purgeKycImages
  const pdfs = yield* Effect.flatMap(PreparedPdfs, (p) => p.purgeBefore(now - PREPARED_PDF_RETENTION_MS))
  // External sign-ins and link offers are refused once expired; deleting them keeps nonces and PKCE verifiers from lingering.
  const externalLogins = (yield* Effect.flatMap(ExternalLogins, (r) => r.purgeExpired(now))) + (yield* Effect.flatMap(LinkOffers, (r) => r.purgeExpired(now)))
  // A revoked access token past its expiry is refused anyway; its record can go.
  const revocations = yield* Effect.flatMap(TokenRevocations, (r) => r.purgeExpired(now))
  // An expired step-up proof is refused anyway; its hash can go.
  const stepUpProofs = yield* Effect.flatMap(StepUpProofs, (r) => r.purgeExpired(now))
  // E-mail codes stay an hour past expiry: the per-address hourly limit counts them.
  const emailVerifications = yield* Effect.flatMap(EmailVerifications, (r) => r.purgeExpired(now - 3_600_000))
  return { counters, images, pdfs, externalLogins, revocations, stepUpProofs, emailVerifications }
})

/** Runs a round at start and then every hour, forever (run it scoped); a failed round is logged and retried next hour. */
export const housekeeping = housekeepingRound.pipe(
  Effect.tap((removed) => Effect.logDebug("housekeeping", removed)),
  Effect.catchAllCause((cause) => Effect.logError("housekeeping round failed", cause)),
  Effect.repeat(Schedule.spaced("1 hour")),
  Effect.asVoid,
)
