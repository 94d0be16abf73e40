/** Periodic clean-up every node runs: expired quota windows, KYC images past their retention, and prepared PDFs older than a day. */
import { Clock, Effect, Schedule } from "effect"
import { purgeKycImages } from "./kyc/verify.ts"
import { PreparedPdfs, QuotaCounters } from "./ports/storage.ts"
import { PREPARED_PDF_RETENTION_MS } from "./pades/flow.ts"

/** One clean-up round; answers what it removed. */
export const housekeepingRound = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  const counters = yield* Effect.flatMap(QuotaCounters, (q) => q.purgeExpired(now))
  const images = yield* purgeKycImages
  const pdfs = yield* Effect.flatMap(PreparedPdfs, (p) => p.purgeBefore(now - PREPARED_PDF_RETENTION_MS))
  return { counters, images, pdfs }
})

/** Runs a round at start and then every hour, forever (run it scoped); a failed round is logged and retried next hour. */
export const housekeeping = housekeepingRound.pipe(
  Effect.tap((removed) => Effect.logDebug("housekeeping", removed)),
  Effect.catchAllCause((cause) => Effect.logError("housekeeping round failed", cause)),
  Effect.repeat(Schedule.spaced("1 hour")),
  Effect.asVoid)
