/** The cookies the engine sets: the hosted-page session and the external sign-in's browser binding. */
import type { EngineSettings } from "@signet/core"
import { SESSION_COOKIE } from "./handler.ts"

/** Cookie that binds an external sign-in (and a link offer) to the browser that started it. */
export const EXTERNAL_BINDING_COOKIE = "signet_idp"

const secure = (s: EngineSettings) => (s.publicOrigin.startsWith("https:") ? "; Secure" : "")

/**
 * The hosted-page session cookie, scoped to the mount path. `SameSite=Lax`: an RP sends the browser
 * to `/authorize` and `/logout` by a cross-site top-level navigation, which must carry the sign-in;
 * state changes still need the CSRF token, which another site cannot read.
 */
export const sessionCookie = (s: EngineSettings, sessionId: string): string =>
  `${SESSION_COOKIE}=${sessionId}; Path=${s.basePath || "/"}; HttpOnly; SameSite=Lax; Max-Age=${s.sessionTtlSeconds}${secure(s)}`

/**
 * The browser-binding cookie of an external sign-in. `SameSite=Lax`, because the provider's
 * redirect back is a cross-site top-level navigation, which does not carry Strict cookies.
 */
export const bindingCookie = (s: EngineSettings, value: string, maxAgeSeconds: number): string =>
  `${EXTERNAL_BINDING_COOKIE}=${value}; Path=${s.basePath}/idp; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure(s)}`
