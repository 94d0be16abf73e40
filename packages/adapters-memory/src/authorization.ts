/** Step-up proofs and the audit trail in memory. */
import { Context } from "effect"
import { AuditLog, StepUpProofs, type AuditEvent, type StepUpProof } from "@signet/core"
import { purge } from "./identity.ts"
import { type MemoryDatabase, Table } from "./memory-database.ts"
import { orderBy } from "./order.ts"

/** Both authorization repositories over `db`. */
export const authorizationMemory = (db: MemoryDatabase) => {
  const proofs = new Table<string, StepUpProof & { readonly consumedAt: number | null }>()
  const events = new Table<string, AuditEvent>()
  return Context.make(
    StepUpProofs,
    StepUpProofs.of({
      insert: (p) =>
        db.run((j) => {
          if (proofs.has(p.proofHash)) throw new Error("step-up proof is stored already")
          proofs.set(j, p.proofHash, { ...p, consumedAt: null })
        }),
      consume: (c) =>
        db.run((j) => {
          const p = proofs.get(c.proofHash)
          if (p === undefined || p.userId !== c.userId || p.clientId !== c.clientId || p.action !== c.action || p.consumedAt !== null || !(p.expiresAt > c.now))
            return false
          proofs.set(j, c.proofHash, { ...p, consumedAt: c.now })
          return true
        }),
      purgeExpired: (now) =>
        db.run((j) =>
          purge(
            j,
            proofs,
            (p) => p.expiresAt < now,
            (p) => p.proofHash,
          ),
        ),
    }),
  ).pipe(
    Context.add(
      AuditLog,
      AuditLog.of({
        append: (e) =>
          db.run((j) => {
            if (events.has(e.id)) throw new Error(`audit event ${e.id} is stored already`)
            events.set(j, e.id, e)
          }),
        recent: (limit) =>
          db.run(() =>
            events
              .all()
              .sort(orderBy([(e) => e.at, "desc"], [(e) => e.id, "asc"]))
              .slice(0, Math.max(0, limit)),
          ),
      }),
    ),
  )
}
