/**
 * Registration of external OpenID providers, by an administrator (engine-wide) or by an RP's
 * contact account (for that RP's users). Discovery is fetched and checked at registration;
 * the client secret is sealed by the Vault and never shown again.
 */
import { Clock, Effect, Option, Schema } from "effect"
import { IdentityProviderIssuerMismatch, IdentityProviderUnavailable, NotRpContactForProviders } from "./errors.ts"
import { InvalidRequest, ResourceNotFound } from "../kernel/errors.ts"
import type { BearerUser } from "../identity/access-token.ts"
import { deliveryUrlProblem } from "../events/address-guard.ts"
import { DeliveryPolicy } from "../events/ports.ts"
import { fromBase64, toBase64, utf8 } from "../kernel/encoding.ts"
import { token } from "../ports/random.ts"
import { Vault } from "../ports/vault.ts"
import { approvedRelyingParty } from "../rp/relying-parties.ts"
import type { IdentityProvider } from "./model.ts"
import { ExternalProviderClient, IdentityProviders } from "./ports.ts"

/** Who manages providers: an administrator (engine-wide ones) or an RP contact account (its RP's). */
export type ProviderManager = { readonly kind: "admin" } | { readonly kind: "rp-contact"; readonly user: BearerUser }

/** What a registration takes. */
export interface ProviderRegistration {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  readonly name: string
  /** default `openid email profile`; `openid` is always included */
  readonly scopes?: ReadonlyArray<string>
}

/** A provider as it is shown: never its secret. */
export interface ProviderView {
  readonly id: string
  readonly name: string
  readonly issuer: string
  readonly clientId: string
  readonly scopes: ReadonlyArray<string>
  /** the RP whose users may use it; null for engine-wide */
  readonly ownerClientId: string | null
  readonly createdAt: number
}

/** The Vault purpose of provider client secrets. */
const SECRET_PURPOSE = "idp-client-secrets"

/** The fields of an OpenID Provider Metadata document (OpenID Connect Discovery 1.0 §3) Signet reads. */
const Discovery = Schema.Struct({
  issuer: Schema.String,
  authorization_endpoint: Schema.String,
  token_endpoint: Schema.String,
  jwks_uri: Schema.String,
  userinfo_endpoint: Schema.optional(Schema.String),
  token_endpoint_auth_methods_supported: Schema.optional(Schema.Array(Schema.String)),
  code_challenge_methods_supported: Schema.optional(Schema.Array(Schema.String)),
  response_types_supported: Schema.optional(Schema.Array(Schema.String)),
})

/** The view of a stored provider. */
export const viewProvider = (p: IdentityProvider): ProviderView => ({
  id: p.id,
  name: p.name,
  issuer: p.issuer,
  clientId: p.clientId,
  scopes: p.scopes,
  ownerClientId: p.ownerClientId,
  createdAt: p.createdAt,
})

/** The discovery URL of an issuer (Discovery §4: the issuer, without a trailing slash, plus the well-known path). */
export const discoveryUrlOf = (issuer: string): string => `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`

const isHttpUrl = (value: string): boolean => {
  try {
    const u = new URL(value)
    return (u.protocol === "https:" || u.protocol === "http:") && u.username === "" && u.password === ""
  } catch {
    return false
  }
}

/** The development switch of the address guard (loopback http), off unless the engine was given it. */
const loopbackAllowed = Effect.map(Effect.serviceOption(DeliveryPolicy), (p) => Option.isSome(p) && p.value.allowLoopbackHttp)

/** The RP whose providers a contact account manages; only its contact account may. */
const contactRp = (user: BearerUser) =>
  Effect.gen(function* () {
    const rp = yield* approvedRelyingParty(user.clientId)
    if (rp.contactUserId !== user.userId) return yield* new NotRpContactForProviders()
    return rp
  })

/** Registers a provider after fetching its discovery document; the document must name exactly the given issuer. */
export const registerIdentityProvider = (manager: ProviderManager, input: ProviderRegistration) =>
  Effect.gen(function* () {
    const ownerClientId = manager.kind === "admin" ? null : (yield* contactRp(manager.user)).clientId
    const issuer = input.issuer.trim()
    if (!isHttpUrl(issuer) || issuer.includes("?") || issuer.includes("#")) {
      return yield* new InvalidRequest({ detail: "issuer must be an https URL without query or fragment" })
    }
    // the engine fetches the issuer's documents: the same address guard as webhooks, before anything is fetched
    const allowLoopbackHttp = yield* loopbackAllowed
    const issuerProblem = deliveryUrlProblem(issuer, allowLoopbackHttp)
    if (issuerProblem !== undefined) return yield* new InvalidRequest({ detail: `issuer ${issuerProblem}: providers must be at public https URLs` })
    if (input.clientId.trim() === "") return yield* new InvalidRequest({ detail: "clientId is required" })
    if (input.clientSecret === "") return yield* new InvalidRequest({ detail: "clientSecret is required" })
    const name = input.name.trim()
    if (name === "" || name.length > 100) return yield* new InvalidRequest({ detail: "name must be 1 to 100 characters" })
    const scopes = ["openid", ...(input.scopes ?? ["email", "profile"]).filter((s) => s !== "openid")]
    if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) return yield* new InvalidRequest({ detail: "scopes must be OAuth scope tokens" })

    const raw = yield* Effect.flatMap(ExternalProviderClient, (c) => c.getJson(discoveryUrlOf(issuer)))
    const discovery = yield* Schema.decodeUnknown(Discovery)(raw).pipe(
      Effect.mapError(
        () => new IdentityProviderUnavailable({ detail: "the discovery document lacks issuer, authorization_endpoint, token_endpoint or jwks_uri" }),
      ),
    )
    // Discovery §4.3: the issuer in the document must be identical to the one used to find it.
    if (discovery.issuer !== issuer) return yield* new IdentityProviderIssuerMismatch({ expected: issuer, actual: discovery.issuer })
    if (!isHttpUrl(discovery.authorization_endpoint)) {
      return yield* new IdentityProviderUnavailable({
        detail: `the discovery document has an endpoint that is not an http(s) URL: ${discovery.authorization_endpoint}`,
      })
    }
    // the endpoints the engine itself calls pass the address guard too
    for (const url of [discovery.token_endpoint, discovery.jwks_uri, ...(discovery.userinfo_endpoint === undefined ? [] : [discovery.userinfo_endpoint])]) {
      const problem = deliveryUrlProblem(url, allowLoopbackHttp)
      if (problem !== undefined) return yield* new IdentityProviderUnavailable({ detail: `the discovery document has an endpoint that ${problem}: ${url}` })
    }
    const methods = discovery.token_endpoint_auth_methods_supported
    if (methods !== undefined && !methods.includes("client_secret_basic")) {
      return yield* new InvalidRequest({ detail: "the provider does not offer client_secret_basic at its token endpoint" })
    }
    const pkce = discovery.code_challenge_methods_supported
    if (pkce !== undefined && !pkce.includes("S256")) return yield* new InvalidRequest({ detail: "the provider does not offer PKCE with S256" })
    if (discovery.response_types_supported !== undefined && !discovery.response_types_supported.includes("code")) {
      return yield* new InvalidRequest({ detail: "the provider does not offer the authorization code flow" })
    }

    const id = `idp_${yield* token(12)}`
    const sealed = yield* Effect.flatMap(Vault, (v) => v.seal(utf8(input.clientSecret), SECRET_PURPOSE, id))
    const provider: IdentityProvider = {
      id,
      ownerClientId,
      name,
      issuer,
      clientId: input.clientId.trim(),
      clientSecretSealed: toBase64(sealed),
      scopes,
      authorizationEndpoint: discovery.authorization_endpoint,
      tokenEndpoint: discovery.token_endpoint,
      jwksUri: discovery.jwks_uri,
      userinfoEndpoint: discovery.userinfo_endpoint ?? null,
      createdAt: yield* Clock.currentTimeMillis,
    }
    yield* Effect.flatMap(IdentityProviders, (r) => r.insert(provider)).pipe(Effect.orDie)
    return viewProvider(provider)
  })

/** The providers a manager sees: all of them for an administrator, its RP's own for a contact account. */
export const listIdentityProviders = (manager: ProviderManager) =>
  Effect.gen(function* () {
    const all = yield* Effect.flatMap(IdentityProviders, (r) => r.list())
    if (manager.kind === "admin") return all.map(viewProvider)
    const rp = yield* contactRp(manager.user)
    return all.filter((p) => p.ownerClientId === rp.clientId).map(viewProvider)
  })

/** Removes a provider; a contact account can remove only its RP's. Existing links stay (they name the issuer and subject). */
export const removeIdentityProvider = (manager: ProviderManager, id: string) =>
  Effect.gen(function* () {
    const found = yield* Effect.flatMap(IdentityProviders, (r) => r.findById(id))
    const owner = manager.kind === "admin" ? undefined : (yield* contactRp(manager.user)).clientId
    if (Option.isNone(found) || (owner !== undefined && found.value.ownerClientId !== owner)) {
      return yield* new ResourceNotFound({ what: "Identity provider" })
    }
    yield* Effect.flatMap(IdentityProviders, (r) => r.remove(id))
    return { removed: true as const }
  })

/** Providers offered on a sign-in page: the engine-wide ones, plus the RP's own when the page names an RP. */
export const providersForSignIn = (clientId: string | null) =>
  Effect.flatMap(IdentityProviders, (r) => r.list()).pipe(
    Effect.map((all) =>
      all.filter((p) => p.ownerClientId === null || (clientId !== null && p.ownerClientId === clientId)).map((p) => ({ id: p.id, name: p.name })),
    ),
  )

/** The provider's client secret, opened from the Vault. */
export const clientSecretOf = (p: IdentityProvider) =>
  Effect.flatMap(Vault, (v) => v.open(fromBase64(p.clientSecretSealed) ?? new Uint8Array(), SECRET_PURPOSE, p.id)).pipe(
    Effect.map((bytes) => new TextDecoder().decode(bytes)),
  )
