/** The data of the authorization model: Signet's console client and the scopes tokens carry (docs/authorization.md). */

/** The client id of Signet's first-party console: its tokens may administer the user's own RPs. */
export const CONSOLE_CLIENT_ID = "signet-console"

/** Scope of identity, signing and the RP's own records (the spec's `basic`). */
export const SCOPE_BASIC = "basic"

/** Scope of the user's encrypted files, decryption, encryption certificates and signature image. */
export const SCOPE_FILES = "files"

/** Scope of the user's signer certificates: list, read, renew, revoke. */
export const SCOPE_CERTIFICATES = "certificates"

/** Scopes a passkey sign-in at Signet's own console grants (the user is on Signet's own origin). */
export const CONSOLE_SCOPE: ReadonlyArray<string> = ["openid", SCOPE_BASIC, SCOPE_FILES, SCOPE_CERTIFICATES]
