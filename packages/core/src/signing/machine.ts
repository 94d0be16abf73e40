/**
 * The state machine shared by signing requests and batches: (state, command) → (state,
 * events) or a typed error. Pure: the time and the outcome of signing come in with the command.
 */
import { Either } from "effect"
import { OperationExpired } from "../kernel/errors.ts"
import { SigningRequestNotFound } from "./errors.ts"
import { MAX_FAILED_ASSERTIONS } from "./rules.ts"
import type { SigningEventType } from "./model.ts"

/** The part of a request or batch the machine moves (both have `pending_auth`, `expired` and `failed`). */
export interface PendingState {
  readonly status: string
  readonly failedAttempts: number
  readonly expiresAt: number
  readonly completedAt: number | null
  readonly errorMessage: string | null
}

/** Commands on a pending request or batch. */
export type PendingCommand<S extends string> =
  | { readonly _tag: "Complete"; readonly at: number; readonly outcome: S }
  | { readonly _tag: "RefuseAssertion"; readonly at: number; readonly reason: string }

/** An event the transition records (its record is built by the caller). */
export interface MachineEvent {
  readonly type: SigningEventType
}

/** Why a command cannot run: unknown/processed (404) or past its lifetime (410, after recording the expiry). */
export type MachineError =
  | { readonly _tag: "NotPending"; readonly error: SigningRequestNotFound }
  | { readonly _tag: "Expired"; readonly error: OperationExpired }

/** One move: a command past the deadline closes the operation as `expired` (the caller then answers 410). */
export const step = <T extends PendingState>(
  state: T,
  command: PendingCommand<T["status"]>,
): Either.Either<{ readonly state: T; readonly events: ReadonlyArray<MachineEvent> }, MachineError> => {
  const next = (changes: Partial<PendingState>): T => ({ ...state, ...changes }) as T
  if (state.status === "expired") return Either.left({ _tag: "Expired", error: new OperationExpired() })
  if (state.status !== "pending_auth") return Either.left({ _tag: "NotPending", error: new SigningRequestNotFound() })
  if (command.at >= state.expiresAt) {
    return Either.right({
      state: next({ status: "expired", completedAt: command.at, errorMessage: "Signing request expired before approval" }),
      events: [{ type: "signing_request_failed" }],
    })
  }
  switch (command._tag) {
    case "Complete":
      return Either.right({
        state: next({ status: command.outcome, completedAt: command.at }),
        events: [{ type: command.outcome === "failed" ? "signing_request_failed" : "signing_request_completed" }],
      })
    case "RefuseAssertion": {
      const attempts = state.failedAttempts + 1
      if (attempts < MAX_FAILED_ASSERTIONS) return Either.right({ state: next({ failedAttempts: attempts }), events: [] })
      return Either.right({
        state: next({
          failedAttempts: attempts,
          status: "failed",
          completedAt: command.at,
          errorMessage: `Approval refused ${attempts} times: ${command.reason}`,
        }),
        events: [{ type: "signing_request_failed" }],
      })
    }
  }
}
