/** Security events: one row in the audit trail and one log line each (docs/authorization.md#audit). */
import { Clock, Effect } from "effect"
import type { BearerUser } from "../identity/access-token.ts"
import { uuid } from "../ports/random.ts"
import { AuditLog, type AuditEvent } from "./ports.ts"

/** Who acted: a bearer user, the administrator token, or the engine itself. */
export type AuditActor = BearerUser | "administrator" | "engine"

/** Records a security event in the audit table and logs it with the same facts as annotations. */
export const auditEvent = (actor: AuditActor, action: string, subject: string, detail: AuditEvent["detail"] = {}) =>
  Effect.gen(function* () {
    const at = yield* Clock.currentTimeMillis
    const event: AuditEvent = {
      id: yield* uuid,
      at,
      action,
      subject,
      detail,
      actorUserId: typeof actor === "string" ? null : actor.userId,
      actorClientId: actor === "administrator" ? "admin" : actor === "engine" ? null : actor.clientId,
    }
    yield* Effect.flatMap(AuditLog, (log) => log.append(event))
    yield* Effect.logInfo(`security event ${action}`).pipe(
      Effect.annotateLogs({
        audit: true,
        action,
        subject,
        actorUserId: event.actorUserId ?? "",
        actorClientId: event.actorClientId ?? "",
        ...detail,
      }),
    )
  })
