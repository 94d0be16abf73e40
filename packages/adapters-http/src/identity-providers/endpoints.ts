/**
 * External identity providers: registration by an RP contact account (`/v2/identity-providers`),
 * the browser flow (`/idp/{id}/start`, `/idp/callback`), the link-confirmation page and
 * unlinking. Administrators register engine-wide providers with `pnpm admin idp`.
 */
import {
  completeExternalSignIn,
  confirmLink,
  EngineConfig,
  IdentityProviderView,
  LinkConfirmRequest,
  LinkConfirmResponse,
  LinkRequestRequest,
  LinkRequestResponse,
  listIdentityProviders,
  ListProvidersResponse,
  providersForSignIn,
  registerIdentityProvider,
  RegisterProviderRequest,
  removeIdentityProvider,
  RemoveProviderResponse,
  requestLinkConfirmation,
  requireConsole,
  SignInProvidersResponse,
  startExternalSignIn,
  unlinkIdentity,
  UnlinkResponse,
} from "@signet/core"
import { Effect } from "effect"
import { bindingCookie, EXTERNAL_BINDING_COOKIE, sessionCookie } from "../http/cookies.ts"
import { endpoint } from "../http/endpoint.ts"
import { cookieValue, SESSION_COOKIE } from "../http/handler.ts"
import { baseHeaders, reply } from "../http/respond.ts"
import { escapeHtml, page } from "../pages/pages.ts"

const CONTACT_403 = {
  status: 403,
  description: "`Only the RP contact account can manage its identity providers`, `RP registration not approved. Status: <status>`",
}

/** `POST /v2/identity-providers`: an RP contact account registers an external OpenID provider for its RP's users. */
export const registerProviderEndpoint = endpoint({
  method: "POST",
  path: "/v2/identity-providers",
  tag: "Identity providers",
  auth: "bearer",
  summary: "Register an external OpenID provider for the RP's users; discovery is fetched and its issuer must match; the secret is never returned",
  body: RegisterProviderRequest,
  response: IdentityProviderView,
  status: 201,
  errors: [
    { status: 400, description: "a bad issuer URL, empty client id or secret, or a provider without client_secret_basic, PKCE S256 or the code flow" },
    CONTACT_403,
    { status: 422, description: "`Identity provider issuer mismatch: discovery names <actual>, not <issuer>`" },
    { status: 502, description: "`Identity provider unavailable: <why>` (discovery unreachable, refused address, not JSON)" },
  ],
  handle: ({ body, user }) =>
    registerIdentityProvider(
      { kind: "rp-contact", user: user! },
      {
        issuer: body.issuer,
        clientId: body.clientId,
        clientSecret: body.clientSecret,
        name: body.name,
        ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
      },
    ),
})

/** `GET /v2/identity-providers`: the RP's own providers. */
export const listProvidersEndpoint = endpoint({
  method: "GET",
  path: "/v2/identity-providers",
  tag: "Identity providers",
  auth: "bearer",
  summary: "The RP's registered identity providers (never their secrets)",
  response: ListProvidersResponse,
  errors: [CONTACT_403],
  handle: ({ user }) => listIdentityProviders({ kind: "rp-contact", user: user! }),
})

/** `DELETE /v2/identity-providers/{id}`. */
export const removeProviderEndpoint = endpoint({
  method: "DELETE",
  path: "/v2/identity-providers/{id}",
  tag: "Identity providers",
  auth: "bearer",
  summary: "Remove one of the RP's identity providers; accounts keep their links",
  response: RemoveProviderResponse,
  errors: [CONTACT_403, { status: 404, description: "`Identity provider not found` (unknown, or another RP's)" }],
  handle: ({ user, params }) => removeIdentityProvider({ kind: "rp-contact", user: user! }, params["id"]!),
})

/** `GET /idp/providers`: what a sign-in page offers. */
export const signInProvidersEndpoint = endpoint({
  method: "GET",
  path: "/idp/providers",
  tag: "Identity providers",
  auth: "none",
  summary: "Providers offered on the sign-in page: engine-wide ones, plus the RP's own with ?client_id=",
  response: SignInProvidersResponse,
  handle: ({ query }) => providersForSignIn(query.get("client_id") || null),
})

/** `GET /idp/{id}/start`: redirect to the provider with state, nonce and PKCE S256. */
export const startEndpoint = endpoint({
  method: "GET",
  path: "/idp/{id}/start",
  tag: "Identity providers",
  auth: "none",
  summary: "Start sign-in through an external provider (?return_to=<same-origin path>&client_id=&intent=link): 302 to its authorization endpoint",
  response: { mediaType: "text/plain" },
  errors: [
    { status: 400, description: "`return_to must be a relative path on this origin`, `intent=link needs a signed-in hosted session`" },
    { status: 404, description: "`Identity provider not found` (unknown, or another RP's)" },
  ],
  handle: ({ params, query, request, requestId }) =>
    Effect.gen(function* () {
      const settings = yield* EngineConfig
      const intent = query.get("intent") === "link" ? ("link" as const) : ("sign-in" as const)
      const started = yield* startExternalSignIn({
        providerId: params["id"]!,
        returnTo: query.get("return_to"),
        clientId: query.get("client_id") || null,
        intent,
        sessionId: cookieValue(request, SESSION_COOKIE),
      })
      return new Response(null, {
        status: 302,
        headers: {
          location: started.location,
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
          "set-cookie": bindingCookie(settings, started.binding, started.maxAgeSeconds),
          ...baseHeaders(requestId),
        },
      })
    }),
})

/**
 * `GET /idp/callback`: the provider's redirect back. Signing in answers a small page that moves
 * on to `return_to` itself, a same-site navigation, so the next page carries the new session
 * cookie whatever its SameSite rule (it is `Lax`: http/cookies.ts).
 */
export const callbackEndpoint = endpoint({
  method: "GET",
  path: "/idp/callback",
  tag: "Identity providers",
  auth: "none",
  summary: "Redirect URI for external providers: checks state (one use, this browser), exchanges the code, validates the ID token, applies the linking rules",
  response: { mediaType: "text/html" },
  errors: [
    { status: 400, description: "`External sign-in state mismatch or already used`" },
    { status: 401, description: "`External sign-in failed: <why>` (provider error, code refused, ID token signature, iss, aud, exp or nonce)" },
    { status: 403, description: "`The identity provider did not give a verified e-mail address; …`" },
    { status: 409, description: "`This external identity is already linked to another account`" },
    { status: 502, description: "`Identity provider unavailable: <why>`" },
  ],
  handle: ({ query, request, requestId }) =>
    Effect.gen(function* () {
      const settings = yield* EngineConfig
      const outcome = yield* completeExternalSignIn({
        state: query.get("state"),
        code: query.get("code"),
        error: query.get("error"),
        binding: cookieValue(request, EXTERNAL_BINDING_COOKIE),
      })
      if (outcome.kind === "confirm-link") {
        const headers = new Headers({
          location: `${settings.basePath}/idp/link?offer=${encodeURIComponent(outcome.offerId)}`,
          "cache-control": "no-store",
          ...baseHeaders(requestId),
        })
        headers.append("set-cookie", bindingCookie(settings, outcome.binding, settings.ceremonyTtlSeconds))
        return new Response(null, { status: 303, headers })
      }
      const response = page(
        settings.basePath,
        "Signed in",
        `<h1>Signed in</h1>
<p>${outcome.created ? "Your Signet account was created." : outcome.linked ? "The identity is now linked to your account." : "Welcome back."}
<a id="continue" href="${escapeHtml(outcome.returnTo)}">Continue</a></p>`,
        requestId,
        `<meta http-equiv="refresh" content="0;url=${escapeHtml(outcome.returnTo)}">`,
      )
      response.headers.append("set-cookie", sessionCookie(settings, outcome.session.sessionId))
      response.headers.append("set-cookie", bindingCookie(settings, "", 0))
      response.headers.set("cache-control", "no-store")
      return response
    }),
})

/** `GET /idp/link?offer=`: the hosted page that confirms a link with the account's passkey. */
export const linkPage = endpoint({
  method: "GET",
  path: "/idp/link",
  tag: "Hosted pages",
  auth: "none",
  hidden: true,
  summary: "Confirm linking an external identity",
  response: { mediaType: "text/html" },
  handle: ({ query, requestId }) =>
    Effect.map(EngineConfig, (s) =>
      page(
        s.basePath,
        "Link your account",
        `<h1>Link your account</h1>
<p>An account with the e-mail address your identity provider gave already exists. Sign in with that account's passkey to link the two;
until then nothing is linked.</p>
<form id="link"><input type="hidden" name="offerId" value="${escapeHtml(query.get("offer") ?? "")}">
<button type="submit">Sign in with your passkey and link</button></form>`,
        requestId,
      ),
    ),
})

/** `POST /idp/link/request`: the passkey challenge for a link offer. */
export const linkRequestEndpoint = endpoint({
  method: "POST",
  path: "/idp/link/request",
  tag: "Identity providers",
  auth: "none",
  summary: "Start confirming a link offer: a passkey challenge for the account with the same e-mail (browser-bound)",
  body: LinkRequestRequest,
  response: LinkRequestResponse,
  errors: [{ status: 410, description: "`Operation expired or not found`: unknown, used, expired, or another browser's offer" }],
  handle: ({ body, request }) => requestLinkConfirmation(body.offerId, cookieValue(request, EXTERNAL_BINDING_COOKIE)),
})

/** `POST /idp/link/confirm`: the account's passkey assertion; links and signs in. */
export const linkConfirmEndpoint = endpoint({
  method: "POST",
  path: "/idp/link/confirm",
  tag: "Identity providers",
  auth: "none",
  summary: "Finish a link offer with the account's passkey: writes the link and signs the browser in (new session cookie)",
  body: LinkConfirmRequest,
  response: LinkConfirmResponse,
  errors: [
    { status: 403, description: "one of the assertion messages (`Credential not registered` for another account's passkey)" },
    { status: 409, description: "`This external identity is already linked to another account`" },
    { status: 410, description: "`Operation expired or not found`" },
  ],
  handle: ({ body, request }) =>
    Effect.gen(function* () {
      const settings = yield* EngineConfig
      const done = yield* confirmLink({ ...body, binding: cookieValue(request, EXTERNAL_BINDING_COOKIE) })
      return reply(200, { userId: done.userId, returnTo: done.returnTo }, [
        ["set-cookie", sessionCookie(settings, done.session.sessionId)],
        ["set-cookie", bindingCookie(settings, "", 0)],
      ])
    }),
})

/** `DELETE /v2/me/identities/{id}`: unlink an external identity from the caller's account. */
export const unlinkEndpoint = endpoint({
  method: "DELETE",
  path: "/v2/me/identities/{id}",
  tag: "Identity providers",
  auth: "bearer",
  summary: "Unlink one of your external identities (a token issued to the Signet console: an RP's token cannot change how the account signs in)",
  response: UnlinkResponse,
  errors: [
    { status: 403, description: "`This operation needs a token issued to the Signet console`" },
    { status: 404, description: "`Linked identity not found` (unknown, or another account's)" },
  ],
  handle: ({ user, params }) => Effect.zipRight(requireConsole(user!), unlinkIdentity(user!.userId, params["id"]!)),
})

/** Identity-provider endpoints in the order they appear in the document. */
export const identityProviderEndpoints = [
  registerProviderEndpoint,
  listProvidersEndpoint,
  removeProviderEndpoint,
  signInProvidersEndpoint,
  startEndpoint,
  callbackEndpoint,
  linkPage,
  linkRequestEndpoint,
  linkConfirmEndpoint,
  unlinkEndpoint,
] as const
