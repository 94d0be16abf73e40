/**
 * Completion of a pending request or batch, one procedure for both: in one transaction,
 * close it if expired, verify the passkey approval over the recomputed linked challenge
 * (a refusal is counted), then sign and store the outcome with its events. What was
 * recorded is committed before the answer: 410 for an expired one, the 403 of a refusal.
 */
import { Clock, Effect, Either, Option } from "effect"
import type { CredentialNotRegistered } from "../identity/errors.ts"
import { OperationExpired } from "../kernel/errors.ts"
import { SigningRequestNotFound } from "./errors.ts"
import type { TimestampUnavailable } from "../pki/errors.ts"
import type { User } from "../identity/model.ts"
import type { KeyStore } from "../ports/key-store.ts"
import { Certificates } from "../pki/ports.ts"
import type { StoredCertificate } from "../pki/model.ts"
import type { Deliveries, WebhookSubscriptions } from "../events/ports.ts"
import type { SigningEvents } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import { Users } from "../identity/ports.ts"
import type { Assertion } from "../identity/webauthn/schemas.ts"
import type { EngineConfig } from "../ports/engine-config.ts"
import type { EventBus } from "../ports/event-bus.ts"
import type { Random } from "../ports/random.ts"
import { approvedRelyingParty } from "../rp/relying-parties.ts"
import { approveWithPasskey } from "./approval.ts"
import { step, type PendingState } from "./machine.ts"
import type { SigningEventType } from "./model.ts"

/** A pending operation as completion needs it. */
export interface Completable extends PendingState {
  readonly id: string
  readonly clientId: string
}

/** Who approved: the passkey and its owner. */
export interface Approver {
  readonly credentialId: string
  readonly userId: string
}

/** How one kind of operation is found, stored, linked and signed. */
export interface CompletionSteps<T extends Completable, R> {
  readonly find: Effect.Effect<Option.Option<T>, never, R>
  /** compare-and-set on the stored status */
  readonly update: (next: T, expected: T["status"]) => Effect.Effect<boolean, never, R>
  readonly record: (next: T, type: SigningEventType, at: number) => Effect.Effect<unknown, never, R>
  readonly challenge: (operation: T) => Effect.Effect<string>
  /** Which passkey must approve, given the assertion (fails with `Credential not registered` when none may). */
  readonly approver: (operation: T, assertion: Assertion) => Effect.Effect<Approver, CredentialNotRegistered, R>
  /**
   * Signs what the operation holds with the signer's certificates as read in this unit; answers the
   * completed operation (status and results set). A failure (the TSA of a -T format unavailable)
   * rolls everything back.
   */
  readonly sign: (
    operation: T,
    signer: User,
    at: number,
    approver: Approver,
    certificates: ReadonlyArray<StoredCertificate>,
  ) => Effect.Effect<T, TimestampUnavailable, R>
  /** After the commit of any recorded change (completion, refusal, expiry): tell the live streams. */
  readonly notify?: (operation: T) => Effect.Effect<void, never, R>
}

/** What signing an operation may use. */
export type SigningServices = KeyStore | Certificates | EngineConfig | Random | Storage | SigningEvents | EventBus | Deliveries | WebhookSubscriptions

/** Runs a completion; answers the completed operation. */
export const completePending = <T extends Completable, R>(steps: CompletionSteps<T, R>, assertion: Assertion) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const outcome = yield* storage.transaction(
      Effect.gen(function* () {
        const found = yield* steps.find
        if (Option.isNone(found)) return yield* new SigningRequestNotFound()
        const operation = found.value
        const now = yield* Clock.currentTimeMillis
        const save = (next: T, events: ReadonlyArray<{ readonly type: SigningEventType }>) =>
          Effect.gen(function* () {
            // Someone else completed it meanwhile: this attempt rolls back.
            if (!(yield* steps.update(next, operation.status))) return yield* new SigningRequestNotFound()
            for (const e of events) yield* steps.record(next, e.type, now)
          })

        const open = step(operation, { _tag: "Complete", at: now, outcome: "completed" })
        if (Either.isLeft(open)) return yield* open.left.error
        if (open.right.state.status === "expired") {
          yield* save(open.right.state, open.right.events)
          return { _tag: "Expired", operation } as const
        }
        const rp = yield* approvedRelyingParty(operation.clientId)
        const challenge = yield* steps.challenge(operation)
        // The passkey, the signer and the signer's certificates are read together where that is one
        // exchange with the database (storage.readsTogether), one after another elsewhere.
        const approval = yield* Effect.either(
          steps
            .approver(operation, assertion)
            .pipe(
              Effect.flatMap((who) =>
                Effect.all(
                  [
                    approveWithPasskey({ assertion, credentialId: who.credentialId, userId: who.userId, challenge, rp }).pipe(Effect.as(who)),
                    Effect.flatMap(Users, (u) => u.findById(who.userId)),
                    Effect.flatMap(Certificates, (c) => c.listByUser(who.userId)),
                  ],
                  { concurrency: storage.readsTogether === true ? "unbounded" : 1 },
                ),
              ),
            ),
        )
        if (Either.isLeft(approval)) {
          const refused = Either.getOrThrow(step(operation, { _tag: "RefuseAssertion", at: now, reason: approval.left.message }))
          yield* save(refused.state, refused.events)
          return { _tag: "Refused", error: approval.left, operation } as const
        }
        const [approver, signer, certificates] = approval.right
        const signed = yield* steps.sign(operation, Option.getOrThrow(signer), now, approver, certificates)
        const done = Either.getOrThrow(step(operation, { _tag: "Complete", at: now, outcome: signed.status }))
        const completed = { ...signed, ...pick(done.state) }
        yield* save(completed, done.events)
        return { _tag: "Completed", operation: completed } as const
      }),
    )
    if (steps.notify !== undefined) yield* steps.notify(outcome.operation)
    switch (outcome._tag) {
      case "Expired":
        return yield* new OperationExpired()
      case "Refused":
        return yield* Effect.fail(outcome.error)
      case "Completed":
        return outcome.operation
    }
  })

// The machine owns these fields; `sign` owns the rest.
const pick = (s: PendingState): PendingState => ({
  status: s.status,
  failedAttempts: s.failedAttempts,
  expiresAt: s.expiresAt,
  completedAt: s.completedAt,
  errorMessage: s.errorMessage,
})

/** The approver of a request or batch: the passkey named at creation, its owner's. */
export const namedApprover = (operation: { readonly credentialId: string; readonly userId: string }): Effect.Effect<Approver> =>
  Effect.succeed({ credentialId: operation.credentialId, userId: operation.userId })
