/** Hosted-page sessions: a cookie plus a CSRF token that the page echoes in a header. */
import { Clock, Effect, Option } from "effect"
import { CsrfValidationFailed } from "../errors/catalogue.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { token } from "../ports/random.ts"
import { HostedSessions } from "../ports/storage.ts"
import { hashSecret, secretMatches } from "./secrets.ts"

/** Opens a session for a hosted page; the CSRF token is shown once and stored hashed. */
export const openHostedSession = Effect.gen(function* () {
  const settings = yield* EngineConfig
  const now = yield* Clock.currentTimeMillis
  const sessionId = yield* token(32)
  const csrfToken = yield* token(32)
  const expiresAt = now + settings.sessionTtlSeconds * 1000
  const csrfTokenHash = yield* hashSecret(csrfToken)
  yield* Effect.flatMap(HostedSessions, (s) => s.insert({ id: sessionId, csrfTokenHash, createdAt: now, expiresAt })).pipe(Effect.orDie)
  return { sessionId, csrfToken, expiresAt }
})

/** Checks the CSRF token of a cookie-carrying state change: unknown or expired session, or a wrong token, fail alike. */
export const checkCsrf = (sessionId: string, csrfToken: string | undefined) =>
  Effect.gen(function* () {
    if (csrfToken === undefined || csrfToken === "") return yield* new CsrfValidationFailed()
    const now = yield* Clock.currentTimeMillis
    const session = yield* Effect.flatMap(HostedSessions, (s) => s.findById(sessionId))
    if (Option.isNone(session) || session.value.expiresAt <= now) return yield* new CsrfValidationFailed()
    if (!(yield* secretMatches(csrfToken, session.value.csrfTokenHash))) return yield* new CsrfValidationFailed()
  })
