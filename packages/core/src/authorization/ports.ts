/** Ports of the authorization capability: step-up proofs and the audit trail. */
import { Context, type Effect } from "effect"

/** An action that needs a fresh passkey approval (step-up) just before it. */
export type StepUpAction = "decrypt" | "revoke-certificate" | "rotate-secrets"

/** A step-up proof: issued after a passkey assertion, usable once, for one user, client and action, briefly. */
export interface StepUpProof {
  /** SHA-256 (hex) of the proof the caller holds; the proof itself is never stored */
  readonly proofHash: string
  readonly userId: string
  readonly clientId: string
  readonly action: StepUpAction
  readonly createdAt: number
  readonly expiresAt: number
}

/** Step-up proofs. */
export class StepUpProofs extends Context.Tag("@signet/core/StepUpProofs")<
  StepUpProofs,
  {
    readonly insert: (proof: StepUpProof) => Effect.Effect<void>
    /**
     * Uses the proof up if it exists, is unused, unexpired at `now` and was issued for exactly
     * this user, client and action; atomic, so two requests cannot spend one proof.
     */
    readonly consume: (input: {
      readonly proofHash: string
      readonly userId: string
      readonly clientId: string
      readonly action: StepUpAction
      readonly now: number
    }) => Effect.Effect<boolean>
    /** Deletes proofs that expired before `now`; answers how many. */
    readonly purgeExpired: (now: number) => Effect.Effect<number>
  }
>() {}

/** One security event of the audit trail. */
export interface AuditEvent {
  readonly id: string
  readonly at: number
  /** what happened, e.g. `certificate.revoked`, `rp.secrets-rotated`, `admin.rp-command`, `step-up.approved` */
  readonly action: string
  /** the account that acted (null: the administrator token or the engine) */
  readonly actorUserId: string | null
  /** the client the actor's token was issued to (`admin` for the administrator token) */
  readonly actorClientId: string | null
  /** what it acted on (certificate serial, RP client id, file id …) */
  readonly subject: string
  /** further facts (reason, which secret …); never a secret */
  readonly detail: Readonly<Record<string, string | number | boolean | null>>
}

/** The append-only audit trail of security events. */
export class AuditLog extends Context.Tag("@signet/core/AuditLog")<
  AuditLog,
  {
    readonly append: (event: AuditEvent) => Effect.Effect<void>
    /** The newest events first, at most `limit`. */
    readonly recent: (limit: number) => Effect.Effect<ReadonlyArray<AuditEvent>>
  }
>() {}
