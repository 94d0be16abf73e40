/** The identity-providers module's tables: external identity providers, sign-ins in flight, links and link offers. */
import type { BigIntColumn, NullableBigIntColumn } from "../columns.ts"

/** `identity_providers`: external OpenID providers, engine-wide or owned by one RP. */
export interface IdentityProvidersTable {
  readonly id: string
  readonly owner_client_id: string | null
  readonly name: string
  readonly issuer: string
  readonly client_id: string
  /** base64 of the Vault-sealed client secret */
  readonly client_secret_sealed: string
  /** JSON array */
  readonly scopes: string
  readonly authorization_endpoint: string
  readonly token_endpoint: string
  readonly jwks_uri: string
  readonly userinfo_endpoint: string | null
  readonly created_at: BigIntColumn
}

/** `external_logins`: external sign-ins in flight (state, nonce, PKCE verifier), used once. */
export interface ExternalLoginsTable {
  /** SHA-256 hex of the `state` sent to the provider */
  readonly id: string
  readonly provider_id: string
  readonly nonce: string
  readonly code_verifier: string
  readonly browser_binding_hash: string
  readonly return_to: string
  readonly link_user_id: string | null
  readonly client_id: string | null
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly consumed_at: NullableBigIntColumn
}

/** `identity_links`: an external identity (issuer + subject) linked to a Signet account. */
export interface IdentityLinksTable {
  readonly id: string
  readonly user_id: string
  readonly provider_id: string
  readonly issuer: string
  readonly subject: string
  readonly email: string | null
  readonly created_at: BigIntColumn
}

/** `link_offers`: an external identity waiting for the account holder's passkey before it is linked. */
export interface LinkOffersTable {
  readonly id: string
  readonly user_id: string
  readonly provider_id: string
  readonly issuer: string
  readonly subject: string
  readonly email: string | null
  readonly browser_binding_hash: string
  readonly return_to: string
  readonly client_id: string | null
  readonly created_at: BigIntColumn
  readonly expires_at: BigIntColumn
  readonly consumed_at: NullableBigIntColumn
}

declare module "../database.ts" {
  interface Database {
    readonly identity_providers: IdentityProvidersTable
    readonly external_logins: ExternalLoginsTable
    readonly identity_links: IdentityLinksTable
    readonly link_offers: LinkOffersTable
  }
}
