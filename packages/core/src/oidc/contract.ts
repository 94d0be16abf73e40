/**
 * The oidc contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"

// oidc endpoints
/** The body of an OAuth error (RFC 6749 §5.2). */
export const OAuthErrorResponse = Schema.Struct({ error: Schema.String, error_description: Schema.String }).annotations({ identifier: "OAuthError" })
/** The token endpoint's answer (RFC 6749 §5.1). */
export const OAuthTokenResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Int,
  scope: Schema.String,
  refresh_token: Schema.optional(Schema.String),
  id_token: Schema.optional(Schema.String),
}).annotations({ identifier: "OAuthTokenResponse" })
/** The UserInfo claims (OpenID Connect Core §5.3). */
export const UserInfoView = Schema.Struct({
  sub: Schema.String,
  email: Schema.optional(Schema.String),
  email_verified: Schema.optional(Schema.Boolean),
  name: Schema.optional(Schema.String),
}).annotations({ identifier: "UserInfo" })
/** Answer of `GET /.well-known/openid-configuration`. */
export const DiscoveryResponse = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ identifier: "ProviderMetadata" })
/** Body of `POST /authorize/consent`. */
export const ConsentRequest = Schema.Struct({
  request: Schema.String.annotations({ description: "the query string of the authorization request" }),
  decision: Schema.Literal("allow", "deny"),
})
/** Answer of `POST /authorize/consent`. */
export const ConsentResponse = Schema.Struct({ redirectTo: Schema.String })
/** Answer of `POST /oauth/revoke`. */
export const RevokeResponse = Schema.Struct({})
