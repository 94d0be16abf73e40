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
