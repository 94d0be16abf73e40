/**
 * The identity contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"

// identity endpoints
/** An e-mail address. */
export const EmailAddress = Schema.String.annotations({ description: "e-mail address", examples: ["ada@example.com"] })
/** Options for `navigator.credentials.create()`. */
export const PasskeyCreationOptions = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "PublicKeyCredentialCreationOptionsJSON",
  description: "options for navigator.credentials.create() (WebAuthn L3 JSON)",
})
/** Options for `navigator.credentials.get()`. */
export const PasskeyRequestOptions = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "PublicKeyCredentialRequestOptionsJSON",
  description: "options for navigator.credentials.get() (WebAuthn L3 JSON)",
})
/** The tokens a passkey sign-in answers. */
export const SignInTokenResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Int,
  scope: Schema.String,
}).annotations({ identifier: "TokenResponse" })
/** Answer of `GET /session`. */
export const OpenSessionResponse = Schema.Struct({ csrfToken: Schema.String, expiresAt: Schema.Int })

/** The passkey assertion a request carries (WebAuthn `PublicKeyCredential` as JSON): other capabilities' contracts name it. */
export { Assertion } from "./webauthn/schemas.ts"
