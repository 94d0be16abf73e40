/** Test support: per-minute limits count in fixed calendar minutes (`minuteWindow`), so a burst must not straddle one's end. */

/** Waits, when fewer than `needMs` are left of the current minute, until the next one has begun. */
export const freshMinuteWindow = async (needMs = 10_000): Promise<void> => {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 100))
}
