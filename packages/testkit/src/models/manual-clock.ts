/** A clock that only moves when a test moves it, for expiry and daily windows. */
import { Clock, type Duration, Effect } from "effect"

/** A `Clock` whose time is set by the test. Time never moves by itself, so `sleep` never ends (deadlines never fire). */
export class ManualClock implements Clock.Clock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId
  constructor(public now: number) {}
  /** Moves the time forward. */
  advance(ms: number): void {
    this.now += ms
  }
  unsafeCurrentTimeMillis(): number {
    return this.now
  }
  get currentTimeMillis(): Effect.Effect<number> {
    return Effect.sync(() => this.now)
  }
  unsafeCurrentTimeNanos(): bigint {
    return BigInt(this.now) * 1_000_000n
  }
  get currentTimeNanos(): Effect.Effect<bigint> {
    return Effect.sync(() => BigInt(this.now) * 1_000_000n)
  }
  sleep(_duration: Duration.Duration): Effect.Effect<void> {
    return Effect.never
  }
}
