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
  yield* Effect.flatMap(HostedSessions, (s) => s.insert({ id: sessionId, csrfTokenHash, createdAt: now, expiresAt, userId: null, signedInAt: null, authMethod: null })).pipe(Effect.orDie)
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

/**
 * Opens a new session already signed in as `userId`. Sign-in always gets a fresh session id
 * (never the one the browser had before), so a planted session cannot be raised to signed in.
 */
export const openSignedInSession = (userId: string, authMethod: string) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const now = yield* Clock.currentTimeMillis
    const sessionId = yield* token(32)
    const csrfToken = yield* token(32)
    const expiresAt = now + settings.sessionTtlSeconds * 1000
    const csrfTokenHash = yield* hashSecret(csrfToken)
    yield* Effect.flatMap(HostedSessions, (s) => s.insert({ id: sessionId, csrfTokenHash, createdAt: now, expiresAt, userId, signedInAt: now, authMethod }))
      .pipe(Effect.orDie)
    return { sessionId, csrfToken, expiresAt }
  })

/** The user a hosted session is signed in as, if it is live and signed in. */
export const signedInUserOf = (sessionId: string | undefined) =>
  Effect.gen(function* () {
    if (sessionId === undefined || sessionId === "") return Option.none<string>()
    const now = yield* Clock.currentTimeMillis
    const session = yield* Effect.flatMap(HostedSessions, (s) => s.findById(sessionId))
    if (Option.isNone(session) || session.value.expiresAt <= now || session.value.userId === null) return Option.none<string>()
    return Option.some(session.value.userId)
  })
