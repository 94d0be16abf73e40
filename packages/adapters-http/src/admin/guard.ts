/** The administrator's credential check shared by every `/admin/api/*` endpoint. */
import { AdminTokenRequired, hashSecret, secretMatches } from "@signet/core"
import { Effect } from "effect"

/**
 * The check for this engine's administrator token (undefined: refuse all): `Authorization:
 * Bearer <token>`. Both sides are hashed and compared in constant time, so timing tells nothing
 * about the token. A header the browser never adds by itself is also the console's CSRF defence.
 */
export const adminGuard = (configured: string | undefined) => (request: Request) =>
  Effect.gen(function* () {
    const m = /^Bearer\s+(\S+)$/i.exec((request.headers.get("authorization") ?? "").trim())
    if (configured === undefined || m === null) return yield* new AdminTokenRequired()
    if (!(yield* secretMatches(m[1]!, yield* hashSecret(configured)))) return yield* new AdminTokenRequired()
  })

/** How every endpoint behind `adminGuard` documents its refusal (the message is `AdminTokenRequired`'s). */
export const ADMIN_TOKEN_REQUIRED = { status: 401, description: "`Administrator token required`" } as const
