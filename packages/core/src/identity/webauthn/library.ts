/**
 * @simplewebauthn/server, loaded on first use: it loads @peculiar/x509 1.x, which installs the
 * `Reflect` metadata polyfill (a global) as it loads; importing the core must not.
 */
import type * as SimpleWebAuthn from "@simplewebauthn/server"
import type * as SimpleWebAuthnHelpers from "@simplewebauthn/server/helpers"
import { Effect } from "effect"

let loaded: Promise<typeof SimpleWebAuthn> | undefined

/** The WebAuthn library; loaded once, by the first ceremony. */
export const simpleWebAuthn: Effect.Effect<typeof SimpleWebAuthn> = Effect.promise(() => (loaded ??= import("@simplewebauthn/server")))

let helpers: Promise<typeof SimpleWebAuthnHelpers> | undefined

/** Its helpers (CBOR decoding); they load @peculiar/x509 1.x too. */
export const simpleWebAuthnHelpers: Effect.Effect<typeof SimpleWebAuthnHelpers> = Effect.promise(() => (helpers ??= import("@simplewebauthn/server/helpers")))
