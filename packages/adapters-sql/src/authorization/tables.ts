/** The authorization module's tables: step-up proofs and the audit trail. */
import type { BigIntColumn, NullableBigIntColumn } from "../columns.ts"

/** `step_up_proofs`: single-use proofs of a fresh passkey approval (migration 0013). */
export interface StepUpProofsTable {
  readonly proof_hash: string
  readonly user_id: string
  readonly client_id: string
  readonly action: string
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly consumed_at: NullableBigIntColumn
}

/** `audit_events`: the append-only trail of security events (migration 0013). */
export interface AuditEventsTable {
  readonly id: string
  readonly at: BigIntColumn
  readonly action: string
  readonly actor_user_id: string | null
  readonly actor_client_id: string | null
  readonly subject: string
  /** JSON object */
  readonly detail: string
}

declare module "../database.ts" {
  interface Database {
    readonly step_up_proofs: StepUpProofsTable
    readonly audit_events: AuditEventsTable
  }
}
