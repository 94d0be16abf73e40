/** Ports of the identity-provider capability: its repositories and the network client for external providers. */
import { Context, type Effect, type Option } from "effect"
import type { IdentityProviderUnavailable } from "./errors.ts"
import type { UniqueViolation } from "../ports/storage.ts"
import type { ExternalLogin, IdentityLink, IdentityProvider, LinkOffer } from "./model.ts"

/** Registered external providers. */
export class IdentityProviders extends Context.Tag("@signet/core/IdentityProviders")<
  IdentityProviders,
  {
    readonly insert: (provider: IdentityProvider) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<IdentityProvider>>
    /** Every provider, oldest first. */
    readonly list: () => Effect.Effect<ReadonlyArray<IdentityProvider>>
    /** Deletes a provider; false when there was none. */
    readonly remove: (id: string) => Effect.Effect<boolean>
  }
>() {}

/** External sign-ins in flight. */
export class ExternalLogins extends Context.Tag("@signet/core/ExternalLogins")<
  ExternalLogins,
  {
    readonly insert: (login: ExternalLogin) => Effect.Effect<void, UniqueViolation>
    /** Marks the login used at `at` if it was not used yet; None when it was (or is unknown). Atomic. */
    readonly consume: (id: string, at: number) => Effect.Effect<Option.Option<ExternalLogin>>
    /** Deletes logins that expired before `now`; answers how many. */
    readonly purgeExpired: (now: number) => Effect.Effect<number>
  }
>() {}

/** Links between external identities and accounts; (issuer, subject) is unique. */
export class IdentityLinks extends Context.Tag("@signet/core/IdentityLinks")<
  IdentityLinks,
  {
    /** Inserts; `UniqueViolation.what` is `external identity` when (issuer, subject) is linked already. */
    readonly insert: (link: IdentityLink) => Effect.Effect<void, UniqueViolation>
    readonly findByIdentity: (issuer: string, subject: string) => Effect.Effect<Option.Option<IdentityLink>>
    /** A user's links, oldest first. */
    readonly listByUser: (userId: string) => Effect.Effect<ReadonlyArray<IdentityLink>>
    /** Deletes the user's link `id`; false when the user has no such link. */
    readonly remove: (id: string, userId: string) => Effect.Effect<boolean>
  }
>() {}

/** Link offers waiting for a passkey sign-in. */
export class LinkOffers extends Context.Tag("@signet/core/LinkOffers")<
  LinkOffers,
  {
    readonly insert: (offer: LinkOffer) => Effect.Effect<void, UniqueViolation>
    readonly findById: (id: string) => Effect.Effect<Option.Option<LinkOffer>>
    /** Marks the offer used at `at` if it was not used yet; None when it was (or is unknown). Atomic. */
    readonly consume: (id: string, at: number) => Effect.Effect<Option.Option<LinkOffer>>
    /** Deletes offers that expired before `now`; answers how many. */
    readonly purgeExpired: (now: number) => Effect.Effect<number>
  }
>() {}

/** What a provider's token endpoint answered to a code exchange (the parts Signet reads). */
export interface ExternalTokenAnswer {
  readonly status: number
  /** the parsed JSON body (unknown shape until decoded) */
  readonly body: unknown
}

/**
 * Network access to external OpenID providers. The core never does I/O: this port fetches
 * discovery documents and key sets and exchanges codes; the core validates everything it gets.
 */
export class ExternalProviderClient extends Context.Tag("@signet/core/ExternalProviderClient")<
  ExternalProviderClient,
  {
    /** GET a JSON document (discovery, JWKS, userinfo with a bearer token); a non-2xx answer or a body that is not JSON fails. */
    readonly getJson: (url: string, accessToken?: string) => Effect.Effect<unknown, IdentityProviderUnavailable>
    /** POST a form to the token endpoint with HTTP Basic client authentication (client_secret_basic). */
    readonly exchangeCode: (
      tokenEndpoint: string,
      credentials: { readonly clientId: string; readonly clientSecret: string },
      form: Readonly<Record<string, string>>,
    ) => Effect.Effect<ExternalTokenAnswer, IdentityProviderUnavailable>
  }
>() {}
