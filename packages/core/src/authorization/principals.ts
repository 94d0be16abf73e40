/**
 * Who a bearer token speaks for (docs/authorization.md): a user, through the one client the
 * token was issued to. RP administration needs a token issued to that RP or to Signet's own
 * console; the user's files and certificates need the narrow scopes only consent or the
 * console grants.
 */
import { Effect } from "effect"
import { ConsoleClientRequired } from "./errors.ts"
import { CONSOLE_CLIENT_ID } from "./model.ts"
import { ResourceNotFound } from "../kernel/errors.ts"
import type { BearerUser } from "../identity/access-token.ts"

/** What the consent page says for each scope a client may ask for; shown verbatim. */
export const SCOPE_CONSENT_TEXT: Readonly<Record<string, string>> = {
  openid: "know who you are at Signet (a stable identifier)",
  basic: "ask you to approve signatures with your passkey (each one needs your approval) and read your account and passkeys",
  email: "read your e-mail address",
  profile: "read your name",
  files:
    "store, list, read and delete your encrypted files at Signet, including files other services stored for you, and change your signature image; decrypting needs your passkey each time",
  certificates: "list and renew your signing certificates; revoking one needs your passkey",
}

/** True when the token was issued to Signet's console. */
export const isConsoleToken = (user: BearerUser): boolean => user.clientId === CONSOLE_CLIENT_ID

/**
 * RP administration of `clientId`: the token must have been issued to that RP itself or to the
 * console. Anything else is as unknown as a missing RP (404), so a token issued to one RP cannot
 * even learn that another exists.
 */
export const requireRpBinding = (user: BearerUser, clientId: string): Effect.Effect<void, ResourceNotFound> =>
  user.clientId === clientId || isConsoleToken(user) ? Effect.void : Effect.fail(new ResourceNotFound({ what: `RP ${clientId}` }))

/** Account-wide administration (registering an RP, listing one's RPs): only through the console. */
export const requireConsole = (user: BearerUser): Effect.Effect<void, ConsoleClientRequired> =>
  isConsoleToken(user) ? Effect.void : Effect.fail(new ConsoleClientRequired())
