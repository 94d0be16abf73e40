/** An endpoint: one table row that drives routing, authentication, validation and the OpenAPI document. */
import type { BearerUser, CataloguedError, RelyingParty } from "@signet/core"
import type { Effect, Schema } from "effect"

/** How an endpoint authenticates its caller. */
export type AuthScheme =
  /** no credential header (the body carries the proof, or the endpoint is public) */
  | "none"
  /** a user access token with `sub` and the `basic` scope */
  | "bearer"
  /** a user access token if one is sent; anonymous otherwise */
  | "bearer-optional"
  /** an RP's client id and secret in HTTP Basic (`/kyc/*`): `client` authenticates them before the body is read */
  | "basic"
  /** OAuth client authentication, `client_secret_basic` or `client_secret_post`; the endpoint checks it */
  | "oauth-client"
  /** the administrator token as a bearer (`/admin/api/*`); the endpoint checks it */
  | "admin"
  /** a KYC capture session token as a bearer (or in the body); the endpoint checks it */
  | "capture-token"

/** What a handler receives. */
export interface EndpointContext<B> {
  readonly body: B
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  readonly request: Request
  readonly requestId: string
  /** the bearer user (`bearer`, and `bearer-optional` when a token was sent) */
  readonly user: BearerUser | undefined
  /** the authenticated RP (`basic`) */
  readonly client: RelyingParty | undefined
  /** the client as per-client limits count it: its IPv4 address, or its IPv6 /64 network (`limitedClient`) */
  readonly clientIp: string
}

/** A documented failure of an endpoint, for the OpenAPI document. */
export interface DocumentedError {
  readonly status: number
  readonly description: string
}

/** One endpoint of the interface. */
export interface Endpoint<B = unknown, R = never, C = R> {
  readonly method: "GET" | "POST" | "DELETE" | "PUT" | "PATCH"
  /** path relative to the mount point, with `{name}` parameters */
  readonly path: string
  readonly summary: string
  readonly tag: string
  readonly auth: AuthScheme
  /** the scope a bearer token must carry (default `basic`; docs/authorization.md#scopes) */
  readonly scope?: "basic" | "files" | "certificates" | "openid"
  /** how a `basic` endpoint authenticates its RP, before the body is read (so a stranger gets 401, not a field error) */
  readonly client?: (request: Request) => Effect.Effect<RelyingParty, CataloguedError, C>
  /** JSON body schema; undefined for endpoints without a body */
  readonly body?: Schema.Schema<B, any, never>
  /** largest accepted body in bytes (default 1 MiB) */
  readonly maxBodyBytes?: number
  /** success body schema (JSON), or a media type for non-JSON answers; every JSON answer is encoded with it */
  readonly response: Schema.Schema<any, any, never> | { readonly mediaType: string }
  /** status of a successful answer (default 200) */
  readonly status?: number
  /** JSON bodies of other statuses the endpoint answers itself (`reply(status, body)`), e.g. OAuth errors */
  readonly responses?: Readonly<Record<number, Schema.Schema<any, any, never>>>
  /** schemas of the `{name}` path parameters (default: a string), for the OpenAPI document */
  readonly params?: Readonly<Record<string, Schema.Schema<any, any, never>>>
  readonly errors?: ReadonlyArray<DocumentedError>
  /** path parameters of an unauthenticated endpoint that request logs may show (all others are redacted as capabilities) */
  readonly loggedParams?: ReadonlyArray<string>
  /** left out of the OpenAPI document (hosted pages) */
  readonly hidden?: boolean
  readonly handle: (ctx: EndpointContext<B>) => Effect.Effect<unknown, CataloguedError, R>
}

/** Declares an endpoint with its body type inferred from its schema. */
export const endpoint = <B = undefined, R = never, C = never>(e: Endpoint<B, R, C>): Endpoint<B, R | C> => e
