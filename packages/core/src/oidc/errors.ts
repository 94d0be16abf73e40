/** Errors of the OpenID provider capability (OAuth 2.0 / OpenID Connect). */
import { Schema } from "effect"

/**
 * An OAuth 2.0 error (RFC 6749 §4.1.2.1 and §5.2, RFC 7009, OpenID Connect Core §3.1.2.6): the
 * `error` code and a human `error_description`. The OAuth endpoints answer it as
 * `{ "error": <code>, "error_description": <description> }` (or in the redirect); elsewhere the
 * generic `{ "error": "<code>: <description>" }` applies. 401 for `invalid_client`, else 400.
 */
export class OAuthError extends Schema.TaggedError<OAuthError>()("OAuthError", { code: Schema.String, description: Schema.String }) {
  get status(): 400 | 401 {
    return this.code === "invalid_client" ? 401 : 400
  }
  override get message() {
    return `${this.code}: ${this.description}`
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const oidcErrors = [OAuthError] as const
/** An error of this module. */
export type OidcError = InstanceType<(typeof oidcErrors)[number]>
