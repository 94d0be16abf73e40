/**
 * The OpenID provider's HTTP side: discovery, authorization (with the hosted consent page),
 * the token endpoint (code, refresh and client-credentials grants), userinfo, revocation and
 * RP-initiated logout. OAuth endpoints answer errors as `{ "error", "error_description" }`.
 */
import {
  authenticateClient,
  authorize,
  type AuthorizeOutcome,
  type ConsentDecision,
  ConsentRequest,
  ConsentResponse,
  DiscoveryResponse,
  EngineConfig,
  type EngineSettings,
  exchangeCode,
  findRelyingParty,
  hostedSessionUser,
  InvalidClient,
  issueClientToken,
  OAuthError,
  OAuthErrorResponse,
  OAuthTokenResponse,
  providerMetadata,
  readIdTokenHint,
  refreshTokens,
  RevokeResponse,
  revokeToken,
  SCOPE_CONSENT_TEXT,
  signOutHostedSession,
  userInfo,
  UserInfoView,
} from "@signet/core"
import { Effect, Option, Schema } from "effect"
import { basicCredentials } from "../http/basic-auth.ts"
import { readBody } from "../http/body.ts"
import { endpoint } from "../http/endpoint.ts"
import { cookieValue, SESSION_COOKIE } from "../http/handler.ts"
import { baseHeaders, reply } from "../http/respond.ts"
import { escapeHtml, page } from "../pages/pages.ts"

/** The answers of an OAuth endpoint's own errors: 400, and 401 for `invalid_client`. */
const OAUTH_ERROR_RESPONSES = { 400: OAuthErrorResponse, 401: OAuthErrorResponse }

/** An OAuth error as RFC 6749 §5.2 answers it (401 with a Basic challenge for `invalid_client`). */
const oauthError = (e: OAuthError | InvalidClient) => {
  const error = e._tag === "InvalidClient" ? new OAuthError({ code: "invalid_client", description: "client authentication failed" }) : e
  return Effect.succeed(
    reply(
      error.status,
      { error: error.code, error_description: error.description },
      error.status === 401 ? { "www-authenticate": 'Basic realm="signet"' } : {},
    ),
  )
}

/** The body of a form-encoded OAuth request (RFC 6749 §3.2). */
const readForm = (request: Request) =>
  Effect.gen(function* () {
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase()
    if (type !== "application/x-www-form-urlencoded") {
      return yield* new OAuthError({ code: "invalid_request", description: "use application/x-www-form-urlencoded" })
    }
    return new URLSearchParams(new TextDecoder().decode(yield* readBody(request, 16 * 1024)))
  })

/** Client authentication by `client_secret_basic` or `client_secret_post` (exactly one, RFC 6749 §2.3), through core's `authenticateClient`. */
const authenticatedClient = (request: Request, form: URLSearchParams) =>
  Effect.gen(function* () {
    const basic = basicCredentials(request)
    if (basic !== undefined && form.has("client_secret")) {
      return yield* new OAuthError({ code: "invalid_request", description: "use one client authentication method, not two" })
    }
    const id = basic?.id ?? form.get("client_id")
    const secret = basic?.secret ?? form.get("client_secret")
    if (!id || !secret) return yield* new InvalidClient()
    if (basic !== undefined && form.has("client_id") && form.get("client_id") !== basic.id) return yield* new InvalidClient()
    return yield* authenticateClient(id, secret)
  })

const scopesOf = (value: string | null) => (value ?? "").split(" ").filter((s) => s.length > 0)

/** Where `/authorize` sends a browser nobody is signed in on: the hosted sign-in page, with the way back. */
const signInLocation = (settings: EngineSettings, clientId: string, query: URLSearchParams) =>
  `${settings.basePath}/signin?${new URLSearchParams({ client_id: clientId, return_to: `${settings.basePath}/authorize?${query}` })}`

// One text per scope, kept in core beside the scopes (docs/authorization.md#scopes).
const SCOPE_TEXT = SCOPE_CONSENT_TEXT

const consentPage = (settings: EngineSettings, outcome: Extract<AuthorizeOutcome, { _tag: "Consent" }>, query: URLSearchParams, requestId: string) =>
  page(
    settings.basePath,
    "Allow access",
    `<h1>Allow ${escapeHtml(outcome.clientName)}?</h1>
<p><strong>${escapeHtml(outcome.clientName)}</strong> asks to:</p>
<ul id="scopes">${outcome.scope.map((s) => `<li data-scope="${escapeHtml(s)}">${escapeHtml(SCOPE_TEXT[s] ?? s)}</li>`).join("")}</ul>
<form id="consent"><input type="hidden" name="request" value="${escapeHtml(query.toString())}">
<button type="submit" name="decision" value="allow">Allow</button> <button type="submit" name="decision" value="deny">Deny</button></form>`,
    requestId,
  )

const errorPage = (settings: EngineSettings, error: string, description: string, requestId: string) =>
  page(
    settings.basePath,
    "Sign-in error",
    `<h1>This sign-in request cannot be completed</h1>
<p id="error" data-error="${escapeHtml(error)}"><strong>${escapeHtml(error)}</strong>: ${escapeHtml(description)}</p>
<p>Return to the application and try again. Signet does not send you back to an address it cannot vouch for.</p>`,
    requestId,
    "",
    400,
  )

const redirect = (location: string, requestId: string) =>
  new Response(null, { status: 302, headers: { location, "cache-control": "no-store", ...baseHeaders(requestId) } })

/** `GET /.well-known/openid-configuration`. */
export const discovery = endpoint({
  method: "GET",
  path: "/.well-known/openid-configuration",
  tag: "OpenID Connect",
  auth: "none",
  summary: "OpenID Provider metadata (OpenID Connect Discovery 1.0); the issuer is the public origin plus the mount path",
  response: DiscoveryResponse,
  handle: () => providerMetadata,
})

/** `GET /authorize`. */
export const authorizeEndpoint = endpoint({
  method: "GET",
  path: "/authorize",
  tag: "OpenID Connect",
  auth: "none",
  summary: "Authorization code flow with PKCE S256: sign-in and consent on hosted pages, then 302 to the redirect URI with `code`, `state` and `iss`",
  response: { mediaType: "text/html" },
  errors: [
    {
      status: 302,
      description:
        "to the RP's redirect URI with `code` or `error` (`invalid_request`, `unsupported_response_type`, `invalid_scope`, `login_required`, `consent_required`, `access_denied`, `request_not_supported`, `request_uri_not_supported`), or to the hosted sign-in page",
    },
    {
      status: 400,
      description: "an HTML error page when the client or the redirect URI cannot be trusted (`invalid_request`, `invalid_client`, `unauthorized_client`)",
    },
  ],
  handle: ({ request, query, requestId }) =>
    Effect.gen(function* () {
      const settings = yield* EngineConfig
      const signIn = yield* hostedSessionUser(cookieValue(request, SESSION_COOKIE))
      const outcome: AuthorizeOutcome = yield* authorize(query, signIn)
      switch (outcome._tag) {
        case "ErrorPage":
          return errorPage(settings, outcome.error, outcome.description, requestId)
        case "Redirect":
          return redirect(outcome.location, requestId)
        case "SignIn":
          return redirect(signInLocation(settings, outcome.clientId, query), requestId)
        case "Consent":
          return consentPage(settings, outcome, query, requestId)
      }
    }),
})

/** `POST /authorize/consent`: the consent page's answer. */
export const consentEndpoint = endpoint({
  method: "POST",
  path: "/authorize/consent",
  tag: "OpenID Connect",
  auth: "none",
  summary: "The user's answer on the consent page (hosted-page session with CSRF token); says where the browser goes next",
  body: ConsentRequest,
  response: ConsentResponse,
  errors: [
    { status: 400, description: "`invalid_request: …` when the authorization request itself is not acceptable" },
    { status: 403, description: "`CSRF token validation failed`" },
  ],
  handle: ({ request, body }) =>
    Effect.gen(function* () {
      const settings = yield* EngineConfig
      const query = new URLSearchParams(body.request)
      const signIn = yield* hostedSessionUser(cookieValue(request, SESSION_COOKIE))
      const outcome: AuthorizeOutcome = yield* authorize(query, signIn, body.decision as ConsentDecision)
      switch (outcome._tag) {
        case "ErrorPage":
          return yield* new OAuthError({ code: outcome.error, description: outcome.description })
        case "Redirect":
          return { redirectTo: outcome.location }
        case "SignIn":
          return { redirectTo: signInLocation(settings, outcome.clientId, query) }
        case "Consent":
          return yield* new OAuthError({ code: "invalid_request", description: "consent was not recorded" })
      }
    }),
})

/** `POST /oauth/token`: authorization code, refresh token and client credentials grants. */
export const tokenEndpoint = endpoint({
  method: "POST",
  path: "/oauth/token",
  tag: "OpenID Connect",
  auth: "oauth-client",
  responses: OAUTH_ERROR_RESPONSES,
  summary:
    "Token endpoint (form-encoded): `authorization_code` (PKCE), `refresh_token` (rotating) and `client_credentials` (no `sub`); client_secret_basic or client_secret_post",
  response: OAuthTokenResponse,
  errors: [
    { status: 400, description: "`invalid_request`, `invalid_grant`, `invalid_scope` or `unsupported_grant_type` as `{ error, error_description }`" },
    { status: 401, description: "`invalid_client`" },
  ],
  handle: ({ request }) =>
    Effect.gen(function* () {
      const form = yield* readForm(request)
      const grant = form.get("grant_type")
      const known = ["authorization_code", "refresh_token", "client_credentials"]
      if (grant === null) return yield* new OAuthError({ code: "invalid_request", description: "grant_type is required" })
      if (!known.includes(grant))
        return yield* new OAuthError({ code: "unsupported_grant_type", description: "offered: authorization_code, refresh_token, client_credentials" })
      if (grant === "client_credentials") {
        const basic = basicCredentials(request)
        const id = basic?.id ?? form.get("client_id")
        const secret = basic?.secret ?? form.get("client_secret")
        if (!id || !secret) return yield* new InvalidClient()
        return yield* issueClientToken(id, secret, scopesOf(form.get("scope")))
      }
      const rp = yield* authenticatedClient(request, form)
      if (grant === "authorization_code") {
        const code = form.get("code")
        if (!code) return yield* new OAuthError({ code: "invalid_request", description: "code is required" })
        return yield* exchangeCode(rp, { code, redirectUri: form.get("redirect_uri") ?? undefined, codeVerifier: form.get("code_verifier") ?? undefined })
      }
      const refresh = form.get("refresh_token")
      if (!refresh) return yield* new OAuthError({ code: "invalid_request", description: "refresh_token is required" })
      return yield* refreshTokens(rp, { refreshToken: refresh, scope: scopesOf(form.get("scope")) })
    }).pipe(Effect.catchTag("OAuthError", oauthError), Effect.catchTag("InvalidClient", oauthError)),
})

/** `POST /oauth/revoke`: RFC 7009. */
export const revokeEndpoint = endpoint({
  method: "POST",
  path: "/oauth/revoke",
  tag: "OpenID Connect",
  auth: "oauth-client",
  responses: OAUTH_ERROR_RESPONSES,
  summary: "Token revocation (RFC 7009): a refresh token revokes its whole grant; an access token is refused by the bearer endpoints from then on",
  response: RevokeResponse,
  errors: [
    { status: 400, description: "`invalid_request` (no `token`)" },
    { status: 401, description: "`invalid_client`" },
  ],
  handle: ({ request }) =>
    Effect.gen(function* () {
      const form = yield* readForm(request)
      const rp = yield* authenticatedClient(request, form)
      const value = form.get("token")
      if (!value) return yield* new OAuthError({ code: "invalid_request", description: "token is required" })
      yield* revokeToken(rp, value, form.get("token_type_hint") ?? undefined)
      return {}
    }).pipe(Effect.catchTag("OAuthError", oauthError), Effect.catchTag("InvalidClient", oauthError)),
})

const userInfoEndpoint = (method: "GET" | "POST") =>
  endpoint({
    method,
    path: "/userinfo",
    tag: "OpenID Connect",
    auth: "bearer",
    scope: "openid",
    summary: "UserInfo (OpenID Connect Core §5.3): a user access token with `openid`; `email` and `name` as its scopes allow",
    response: UserInfoView,
    errors: [
      { status: 401, description: "`Missing Authorization header`, `Invalid or expired token` (also after revocation), `Token missing subject claim`" },
      { status: 403, description: "`Token lacks required scope: openid`" },
    ],
    handle: ({ request }) => userInfo(Option.fromNullable(request.headers.get("authorization"))),
  })

/** `GET /userinfo` and `POST /userinfo`. */
export const userInfoGet = userInfoEndpoint("GET")
/** `POST /userinfo` (OIDC Core §5.3.1: both methods). */
export const userInfoPost = userInfoEndpoint("POST")

// The parameters of a logout request, checked: the client the hint or `client_id` names, and the
// registered address to return to. A bad hint or an unregistered address is an error page.
const readLogoutRequest = (query: URLSearchParams) =>
  Effect.gen(function* () {
    const hintValue = query.get("id_token_hint") ?? undefined
    const clientId = query.get("client_id") ?? undefined
    const hint = hintValue === undefined ? Option.none() : yield* readIdTokenHint(hintValue, clientId)
    if (hintValue !== undefined && Option.isNone(hint)) {
      return { _tag: "Invalid" as const, description: "id_token_hint is not an ID token of this provider for this client" }
    }
    const rp = Option.isSome(hint) ? Option.some(hint.value.rp) : clientId === undefined ? Option.none() : yield* findRelyingParty(clientId)
    const target = query.get("post_logout_redirect_uri") ?? undefined
    if (target !== undefined && (Option.isNone(rp) || !rp.value.postLogoutRedirectUris.includes(target))) {
      return { _tag: "Invalid" as const, description: "post_logout_redirect_uri is not registered for this client" }
    }
    const next =
      target === undefined
        ? undefined
        : (() => {
            const url = new URL(target)
            const state = query.get("state")
            if (state !== null) url.searchParams.append("state", state)
            return url.toString()
          })()
    return { _tag: "Valid" as const, hint, next }
  })

const signedOutPage = (settings: EngineSettings, requestId: string) =>
  page(settings.basePath, "Signed out", `<h1>You are signed out of Signet</h1><p id="signed-out">You can close this window.</p>`, requestId)

const logoutConfirmPage = (settings: EngineSettings, query: URLSearchParams, requestId: string) =>
  page(
    settings.basePath,
    "Sign out",
    `<h1>Sign out of Signet?</h1>
<p>An application asked to sign you out of Signet in this browser.</p>
<form id="logout"><input type="hidden" name="request" value="${escapeHtml(query.toString())}">
<button type="submit" name="decision" value="logout">Sign out</button> <button type="submit" name="decision" value="stay">Stay signed in</button></form>`,
    requestId,
  )

/** `GET /logout`: RP-initiated logout 1.0. */
export const logoutEndpoint = endpoint({
  method: "GET",
  path: "/logout",
  tag: "OpenID Connect",
  auth: "none",
  summary:
    "RP-initiated logout: with a valid `id_token_hint` of the signed-in user ends the hosted session's sign-in at once; otherwise asks the user first (Logout 1.0 §2); returns to a registered `post_logout_redirect_uri` with `state`",
  response: { mediaType: "text/html" },
  errors: [
    { status: 302, description: "to `post_logout_redirect_uri` (with `state`) when it is registered for the client the hint or `client_id` names" },
    { status: 400, description: "an HTML page when `id_token_hint` is not this provider's or `post_logout_redirect_uri` is not registered" },
  ],
  handle: ({ request, query, requestId }) =>
    Effect.gen(function* () {
      const settings = yield* EngineConfig
      const checked = yield* readLogoutRequest(query)
      if (checked._tag === "Invalid") return errorPage(settings, "invalid_request", checked.description, requestId)
      const sessionId = cookieValue(request, SESSION_COOKIE)
      const current = sessionId === undefined ? Option.none() : yield* hostedSessionUser(sessionId)
      if (sessionId !== undefined && Option.isSome(current)) {
        const hint = checked.hint
        // Without a hint naming this user, anyone's page could have sent the browser here: the user decides (Logout 1.0 §2).
        if (Option.isNone(hint)) return logoutConfirmPage(settings, query, requestId)
        if (hint.value.sub === current.value.userId) yield* signOutHostedSession(sessionId)
      }
      return checked.next === undefined ? signedOutPage(settings, requestId) : redirect(checked.next, requestId)
    }),
})

/** `POST /logout/confirm`: the user's answer on the logout confirmation page. */
export const logoutConfirmEndpoint = endpoint({
  method: "POST",
  path: "/logout/confirm",
  tag: "OpenID Connect",
  auth: "none",
  summary: "The user's answer on the logout page (hosted-page session with CSRF token): `logout` ends the sign-in; either way says where the browser goes next",
  body: Schema.Struct({
    request: Schema.String.annotations({ description: "the query string of the logout request" }),
    decision: Schema.Literal("logout", "stay"),
  }),
  response: Schema.Struct({ redirectTo: Schema.String }),
  errors: [
    { status: 400, description: "`invalid_request: …` when the logout request itself is not acceptable" },
    { status: 403, description: "`CSRF token validation failed`" },
  ],
  handle: ({ request, body }) =>
    Effect.gen(function* () {
      const settings = yield* EngineConfig
      const checked = yield* readLogoutRequest(new URLSearchParams(body.request))
      if (checked._tag === "Invalid") return yield* new OAuthError({ code: "invalid_request", description: checked.description })
      const sessionId = cookieValue(request, SESSION_COOKIE)
      if (body.decision === "logout" && sessionId !== undefined) yield* signOutHostedSession(sessionId)
      return { redirectTo: checked.next ?? (body.decision === "logout" ? `${settings.basePath}/logout` : `${settings.basePath}/`) }
    }),
})

/** OpenID provider endpoints in the order they appear in the document. */
export const oidcEndpoints = [
  discovery,
  authorizeEndpoint,
  consentEndpoint,
  tokenEndpoint,
  revokeEndpoint,
  userInfoGet,
  userInfoPost,
  logoutEndpoint,
  logoutConfirmEndpoint,
] as const
