/**
 * The identity-providers contract: request and response Schemas of its endpoints. The HTTP adapter decodes
 * every body and encodes every answer with them; its OpenAPI document is generated from them.
 */
import { Schema } from "effect"
import { Assertion } from "../identity/contract.ts"

// identity-providers endpoints
/** An external OpenID provider of an RP (never its client secret). */
export const IdentityProviderView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  issuer: Schema.String,
  clientId: Schema.String,
  scopes: Schema.Array(Schema.String),
  ownerClientId: Schema.NullOr(Schema.String).annotations({ description: "the RP whose users may use it; null for engine-wide" }),
  createdAt: Schema.Int,
}).annotations({ identifier: "IdentityProvider" })
/** Body of `POST /v2/identity-providers`. */
export const RegisterProviderRequest = Schema.Struct({
  issuer: Schema.String.annotations({ description: "the provider's issuer; `<issuer>/.well-known/openid-configuration` must name exactly this issuer" }),
  clientId: Schema.String,
  clientSecret: Schema.String.annotations({ description: "used with client_secret_basic at the provider's token endpoint; stored sealed" }),
  scopes: Schema.optional(Schema.Array(Schema.String)).annotations({ description: "default `openid email profile`; `openid` is always added" }),
  name: Schema.String.annotations({ description: "shown on the sign-in page: Sign in with <name>" }),
})
/** Answer of `GET /v2/identity-providers`. */
export const ListProvidersResponse = Schema.Array(IdentityProviderView)
/** Answer of `DELETE /v2/identity-providers/{id}`. */
export const RemoveProviderResponse = Schema.Struct({ removed: Schema.Literal(true) })
/** Answer of `GET /idp/providers`. */
export const SignInProvidersResponse = Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String }))
/** Body of `POST /idp/link/request`. */
export const LinkRequestRequest = Schema.Struct({ offerId: Schema.String })
/** Answer of `POST /idp/link/request`. */
export const LinkRequestResponse = Schema.Struct({
  signinId: Schema.String,
  email: Schema.String,
  provider: Schema.String,
  options: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "PublicKeyCredentialRequestOptionsJSON" }),
})
/** Body of `POST /idp/link/confirm`. */
export const LinkConfirmRequest = Schema.Struct({ offerId: Schema.String, signinId: Schema.String, assertion: Assertion })
/** Answer of `POST /idp/link/confirm`. */
export const LinkConfirmResponse = Schema.Struct({ userId: Schema.String, returnTo: Schema.String })
/** Answer of `DELETE /v2/me/identities/{id}`. */
export const UnlinkResponse = Schema.Struct({ unlinked: Schema.Literal(true) })
