/**
 * The checkout state machine: (checkout, command, at) → (new checkout, events) or a typed error.
 * created → pending → paid | failed | expired; created → failed (a declined card).
 * Pure: the time comes in with the command. Repeating the command that led to the current end
 * state (a provider sending the same confirmation twice) is a no-op without events, which is
 * what makes payment confirmations idempotent.
 */
import { Either } from "effect"
import { CheckoutTransitionNotAllowed } from "./errors.ts"
import type { Checkout } from "./model.ts"

/** What can happen to a checkout. */
export type CheckoutCommand =
  /** the provider accepted the payment request under `reference` */
  | { readonly _tag: "Submit"; readonly reference: string }
  /** the provider confirmed the money arrived */
  | { readonly _tag: "Confirm"; readonly reference: string }
  /** the provider declined or the payment failed */
  | { readonly _tag: "Fail"; readonly reason: string }
  /** the checkout's lifetime ran out without a confirmation */
  | { readonly _tag: "Expire" }

/** What a command changed. `CheckoutPaid` is what starts a subscription. */
export type CheckoutEvent =
  | { readonly _tag: "CheckoutSubmitted"; readonly checkoutId: string; readonly reference: string }
  | { readonly _tag: "CheckoutPaid"; readonly checkoutId: string; readonly at: number }
  | { readonly _tag: "CheckoutFailed"; readonly checkoutId: string; readonly reason: string }
  | { readonly _tag: "CheckoutExpired"; readonly checkoutId: string }

/** The outcome of a command. */
export interface CheckoutStep {
  readonly checkout: Checkout
  readonly events: ReadonlyArray<CheckoutEvent>
}

const VERBS: Readonly<Record<CheckoutCommand["_tag"], string>> = { Submit: "submitted", Confirm: "confirmed", Fail: "failed", Expire: "expired" }

/** Applies one command at time `at` (ms). */
export const applyCheckoutCommand = (checkout: Checkout, command: CheckoutCommand, at: number): Either.Either<CheckoutStep, CheckoutTransitionNotAllowed> => {
  const refused = Either.left(new CheckoutTransitionNotAllowed({ current: checkout.status, verb: VERBS[command._tag] }))
  const unchanged = Either.right<CheckoutStep>({ checkout, events: [] })
  const open = checkout.status === "created" || checkout.status === "pending"
  switch (command._tag) {
    case "Submit":
      if (checkout.status !== "created") return refused
      return Either.right({
        checkout: { ...checkout, status: "pending", providerReference: command.reference, updatedAt: at },
        events: [{ _tag: "CheckoutSubmitted", checkoutId: checkout.id, reference: command.reference }],
      })
    case "Confirm":
      if (checkout.providerReference !== command.reference) return refused
      if (checkout.status === "paid") return unchanged
      if (checkout.status !== "pending") return refused
      return Either.right({
        checkout: { ...checkout, status: "paid", paidAt: at, updatedAt: at },
        events: [{ _tag: "CheckoutPaid", checkoutId: checkout.id, at }],
      })
    case "Fail":
      if (checkout.status === "failed") return unchanged
      if (!open) return refused
      return Either.right({
        checkout: { ...checkout, status: "failed", failureReason: command.reason, updatedAt: at },
        events: [{ _tag: "CheckoutFailed", checkoutId: checkout.id, reason: command.reason }],
      })
    case "Expire":
      if (checkout.status === "expired") return unchanged
      if (!open || at < checkout.expiresAt) return refused
      return Either.right({
        checkout: { ...checkout, status: "expired", updatedAt: at },
        events: [{ _tag: "CheckoutExpired", checkoutId: checkout.id }],
      })
  }
}
