/** External identity providers: registrations, sign-ins in flight, links to accounts, and link offers. */
import { Schema } from "effect"

/** An external OpenID provider registered with the engine; its endpoints come from discovery at registration. */
export const IdentityProvider = Schema.Struct({
  id: Schema.String,
  /** the RP whose users may use it; null for an engine-wide provider (registered by an administrator) */
  ownerClientId: Schema.NullOr(Schema.String),
  name: Schema.String,
  issuer: Schema.String,
  clientId: Schema.String,
  /** base64 of the client secret sealed by the Vault (purpose `idp-client-secrets`, bound to the provider id) */
  clientSecretSealed: Schema.String,
  scopes: Schema.Array(Schema.String),
  authorizationEndpoint: Schema.String,
  tokenEndpoint: Schema.String,
  jwksUri: Schema.String,
  /** where claims missing from the ID token are read (OpenID Connect Core §5.3); null when discovery names none */
  userinfoEndpoint: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
})
/** An external OpenID provider registered with the engine; its endpoints come from discovery at registration. */
export type IdentityProvider = typeof IdentityProvider.Type

/** An external sign-in in flight: what the callback must find, used once. */
export const ExternalLogin = Schema.Struct({
  /** SHA-256 hex of the `state` parameter (the state itself is only in the browser's URL) */
  id: Schema.String,
  providerId: Schema.String,
  nonce: Schema.String,
  /** PKCE code verifier (RFC 7636); only its S256 challenge left the engine */
  codeVerifier: Schema.String,
  /** SHA-256 hex of the browser-binding cookie set at start */
  browserBindingHash: Schema.String,
  returnTo: Schema.String,
  /** the signed-in user who asked to link this provider (intent=link); null for a sign-in */
  linkUserId: Schema.NullOr(Schema.String),
  /** the RP the sign-in runs for, when the page had a client_id */
  clientId: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  consumedAt: Schema.NullOr(Schema.Number),
})
/** An external sign-in in flight: what the callback must find, used once. */
export type ExternalLogin = typeof ExternalLogin.Type

/** An external identity (issuer + subject) linked to a Signet account. */
export const IdentityLink = Schema.Struct({
  id: Schema.String,
  userId: Schema.String,
  providerId: Schema.String,
  issuer: Schema.String,
  subject: Schema.String,
  email: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
})
/** An external identity (issuer + subject) linked to a Signet account. */
export type IdentityLink = typeof IdentityLink.Type

/** An external identity whose verified e-mail matches an account: linked only after that account's passkey sign-in. */
export const LinkOffer = Schema.Struct({
  id: Schema.String,
  userId: Schema.String,
  providerId: Schema.String,
  issuer: Schema.String,
  subject: Schema.String,
  email: Schema.NullOr(Schema.String),
  browserBindingHash: Schema.String,
  returnTo: Schema.String,
  clientId: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  consumedAt: Schema.NullOr(Schema.Number),
})
/** An external identity whose verified e-mail matches an account: linked only after that account's passkey sign-in. */
export type LinkOffer = typeof LinkOffer.Type
