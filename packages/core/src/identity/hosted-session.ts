/** Hosted-page sessions: a cookie plus a CSRF token that the page echoes in a header. */
import { Clock, Effect, Option } from "effect"
import { CsrfValidationFailed } from "./errors.ts"
import { EngineConfig } from "../ports/engine-config.ts"
import { token } from "../ports/random.ts"
import { HostedSessions } from "./ports.ts"
import { SessionSignIns } from "../oidc/ports.ts"
import { hashSecret, secretMatches } from "../kernel/secrets.ts"

/**
 * The key a hosted session is stored under: the SHA-256 of its cookie value, as for codes,
 * refresh tokens and CSRF tokens, so a copy of the tables cannot be replayed as a cookie.
 */
const sessionKey = (sessionId: string) => hashSecret(sessionId)

/**
 * Opens a session for a hosted page; the CSRF token is shown once and stored hashed. Each page
 * load opens one; a sign-in on the browser's previous live session moves to the new one (new
 * id, same `auth_time`), so going from the sign-in page to the consent page keeps the user signed in.
 */
export const openHostedSession = (previousSessionId?: string) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const now = yield* Clock.currentTimeMillis
    const sessionId = yield* token(32)
    const csrfToken = yield* token(32)
    const expiresAt = now + settings.sessionTtlSeconds * 1000
    const csrfTokenHash = yield* hashSecret(csrfToken)
    const key = yield* sessionKey(sessionId)
    yield* Effect.flatMap(HostedSessions, (s) => s.insert({ id: key, csrfTokenHash, createdAt: now, expiresAt })).pipe(Effect.orDie)
    const previous = yield* hostedSessionUser(previousSessionId)
    if (Option.isSome(previous)) {
      const signIns = yield* SessionSignIns
      yield* signIns.save({ ...previous.value, sessionId: key })
      yield* signIns.remove(previous.value.sessionId)
    }
    return { sessionId, csrfToken, expiresAt }
  })

/** Checks the CSRF token of a cookie-carrying state change: unknown or expired session, or a wrong token, fail alike. */
export const checkCsrf = (sessionId: string, csrfToken: string | undefined) =>
  Effect.gen(function* () {
    if (csrfToken === undefined || csrfToken === "") return yield* new CsrfValidationFailed()
    const now = yield* Clock.currentTimeMillis
    const session = yield* Effect.flatMap(HostedSessions, (s) => Effect.flatMap(sessionKey(sessionId), s.findById))
    if (Option.isNone(session) || session.value.expiresAt <= now) return yield* new CsrfValidationFailed()
    if (!(yield* secretMatches(csrfToken, session.value.csrfTokenHash))) return yield* new CsrfValidationFailed()
  })

/** RFC 8176 `amr` of a passkey sign-in with user verification: a device-bound key (`hwk`) or a synced one (`swk`), and the user check. */
export const passkeyAmr = (backedUp: boolean): ReadonlyArray<string> => [backedUp ? "swk" : "hwk", "user"]

/**
 * Marks a hosted-page session signed in: any way of signing in (passkey, an external identity
 * provider) ends here, and `/authorize` accepts the session whatever made it. Fails like a wrong
 * CSRF token when the session is unknown or expired.
 */
export const signInHostedSession = (sessionId: string, input: { readonly userId: string; readonly amr: ReadonlyArray<string> }) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const key = yield* sessionKey(sessionId)
    const session = yield* Effect.flatMap(HostedSessions, (s) => s.findById(key))
    if (Option.isNone(session) || session.value.expiresAt <= now) return yield* new CsrfValidationFailed()
    yield* Effect.flatMap(SessionSignIns, (s) => s.save({ sessionId: key, userId: input.userId, authTime: Math.floor(now / 1000), amr: input.amr }))
  })

/** The user signed in on a live hosted-page session, if any. */
export const hostedSessionUser = (sessionId: string | undefined) =>
  Effect.gen(function* () {
    if (sessionId === undefined || sessionId === "") return Option.none()
    const now = yield* Clock.currentTimeMillis
    const key = yield* sessionKey(sessionId)
    const session = yield* Effect.flatMap(HostedSessions, (s) => s.findById(key))
    if (Option.isNone(session) || session.value.expiresAt <= now) return Option.none()
    return yield* Effect.flatMap(SessionSignIns, (s) => s.find(key))
  })

/** Ends the sign-in of a hosted-page session (logout); the session itself stays for its CSRF token. */
export const signOutHostedSession = (sessionId: string) => Effect.flatMap(SessionSignIns, (s) => Effect.flatMap(sessionKey(sessionId), s.remove))

/** RFC 8176 `amr` for a sign-in method name (`passkey`, `external:<provider id>`); an external provider's methods are not known here. */
const amrOf = (authMethod: string): ReadonlyArray<string> => (authMethod === "passkey" ? ["user"] : [])

/**
 * Opens a new hosted session already signed in as `userId` (a fresh id, never the browser's
 * previous one, so a planted session cannot be raised to signed in). For sign-ins that end
 * outside the hosted sign-in page, such as an external identity provider's callback.
 */
export const openSignedInSession = (userId: string, authMethod: string) =>
  Effect.gen(function* () {
    const opened = yield* openHostedSession()
    yield* signInHostedSession(opened.sessionId, { userId, amr: amrOf(authMethod) }).pipe(Effect.orDie)
    return opened
  })

/** The user a hosted session is signed in as, if it is live and signed in. */
export const signedInUserOf = (sessionId: string | undefined) =>
  Effect.map(
    hostedSessionUser(sessionId),
    Option.map((s) => s.userId),
  )
