/**
 * Per-day usage history behind the console's charts: signatures (counted with the daily
 * reservation, in its transaction: rp/quota.ts) and quota refusals, kept after midnight when
 * the day's quota counter is purged.
 */
import { Clock, Effect } from "effect"
import { UsageHistory } from "./ports.ts"

const DAY_MS = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** The RP's last `days` UTC days up to today, oldest first, every day present (zero when unused). */
export const usageHistory = (clientId: string, days: number) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const span = Math.min(366, Math.max(1, Math.floor(days)))
    const dayList = Array.from({ length: span }, (_, i) => isoDay(now - (span - 1 - i) * DAY_MS))
    const rows = yield* Effect.flatMap(UsageHistory, (h) => h.list(clientId, dayList[0]!, dayList[span - 1]!))
    const byDay = new Map(rows.map((r) => [r.day, r]))
    return dayList.map((day) => ({ day, signatures: byDay.get(day)?.signatures ?? 0, quotaRefusals: byDay.get(day)?.quotaRefusals ?? 0 }))
  })
