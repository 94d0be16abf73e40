/** Repositories of the billing capability (its provider ports are in `payments.ts`). */
import { Context, type Effect, type Option } from "effect"
import type { UniqueViolation } from "../ports/storage.ts"
import type { Checkout, Subscription } from "./model.ts"

/** Checkouts: attempts to pay for a plan. */
export class Checkouts extends Context.Tag("@signet/core/Checkouts")<
  Checkouts,
  {
    readonly insert: (checkout: Checkout) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Checkout>>
    /** Stores `next` only if the stored status is still `expected` (compare-and-set); false when it was not. */
    readonly update: (next: Checkout, expected: Checkout["status"]) => Effect.Effect<boolean>
  }
>() {}

/** Subscriptions: paid terms of a plan, one per paid checkout. */
export class Subscriptions extends Context.Tag("@signet/core/Subscriptions")<
  Subscriptions,
  {
    /** Inserts; `UniqueViolation` when the checkout already started one (a repeated confirmation). */
    readonly insert: (subscription: Subscription) => Effect.Effect<void, UniqueViolation>
    /** The RP's subscriptions, the latest start first. */
    readonly listForRp: (clientId: string) => Effect.Effect<ReadonlyArray<Subscription>>
  }
>() {}

/** One RP's usage on one UTC day, kept after the day's quota counter is purged. */
export interface UsageDay {
  readonly clientId: string
  /** `YYYY-MM-DD` (UTC) */
  readonly day: string
  readonly signatures: number
  /** signing attempts refused because the day's allowance was used up */
  readonly quotaRefusals: number
}

/** Per-day usage history: written with the reservation it counts, so it never disagrees with the day's counter. */
export class UsageHistory extends Context.Tag("@signet/core/UsageHistory")<
  UsageHistory,
  {
    /** Adds to the RP's row of `day` (created at zero when absent). */
    readonly add: (clientId: string, day: string, signatures: number, quotaRefusals: number) => Effect.Effect<void>
    /** The RP's rows from `fromDay` to `toDay` inclusive, oldest first (days without use have no row). */
    readonly list: (clientId: string, fromDay: string, toDay: string) => Effect.Effect<ReadonlyArray<UsageDay>>
  }
>() {}
