/** Hosted pages: enrolment and sign-in with a passkey, and a landing page that links them. */
import { EngineConfig, INTERFACE_VERSION, providersForSignIn, safeReturnTo, signedInUserOf, Users } from "@signet/core"
import { Effect, Option } from "effect"
import { endpoint } from "../http/endpoint.ts"
import { cookieValue, SESSION_COOKIE } from "../http/handler.ts"
import { baseHeaders } from "../http/respond.ts"
import { scriptResponse } from "./browser-scripts.ts"

/** HTML-escapes text for element content and quoted attributes. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** A hosted page: the shared head, strict CSP (no inline script) and the pages' script. */
export const page = (api: string, title: string, body: string, requestId: string, extraHead = "", status = 200) =>
  new Response(
    `<!doctype html>
<html lang="en" data-api="${escapeHtml(api)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Signet</title>${extraHead}
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}
label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin-top:1rem;padding:.6rem 1.2rem;font:inherit;cursor:pointer}.ok{color:#116329}.err{color:#b42318}
textarea{width:100%;height:6rem;font:12px monospace;margin-top:1rem}small{color:#57606a}</style></head>
<body>${body}<p id="result" role="status"></p><p><small>Signet · interface ${INTERFACE_VERSION}</small></p>
<script src="${escapeHtml(api)}/pages/webauthn.js" defer></script></body></html>`,
    {
      status,
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy":
          "default-src 'self'; script-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        ...baseHeaders(requestId),
      },
    },
  )

const htmlResponse = { mediaType: "text/html" } as const

/** `GET /`: links to the hosted pages. */
export const landingPage = endpoint({
  method: "GET",
  path: "/",
  tag: "Hosted pages",
  auth: "none",
  hidden: true,
  summary: "Landing page",
  response: htmlResponse,
  handle: ({ requestId }) =>
    Effect.map(EngineConfig, (s) =>
      page(
        s.basePath,
        "Signet",
        `<h1>Signet</h1>
<p>Identity verification and passkey-approved signing (${escapeHtml(s.environment)}).</p>
<ul><li><a href="${escapeHtml(s.basePath)}/enrol">Enrol a passkey</a></li><li><a href="${escapeHtml(s.basePath)}/signin">Sign in with a passkey</a></li>
<li><a href="${escapeHtml(s.basePath)}/openapi.json">OpenAPI document</a></li></ul>`,
        requestId,
      ),
    ),
})

/**
 * Where a hosted page sends the user after signing in or enrolling (e.g. back to
 * `<mount>/authorize?…`): the `return_to` core's `safeReturnTo` accepts (a path on this origin,
 * never an open redirect), the same rule the external sign-in applies; "" when absent or refused.
 */
export const returnTo = (query: URLSearchParams) =>
  Effect.gen(function* () {
    const value = query.get("return_to")
    if (value === null || value === "") return ""
    const settings = yield* EngineConfig
    return yield* safeReturnTo(settings, value).pipe(Effect.orElseSucceed(() => ""))
  })

/** `GET /enrol`: hosted passkey enrolment. */
export const enrolPage = endpoint({
  method: "GET",
  path: "/enrol",
  tag: "Hosted pages",
  auth: "none",
  hidden: true,
  summary: "Hosted enrolment",
  response: htmlResponse,
  handle: ({ requestId, query, request }) =>
    Effect.gen(function* () {
      const s = yield* EngineConfig
      const back = yield* returnTo(query)
      // Signed in on this browser (e.g. through an external provider): the session is the account's proof, no code needed.
      const signedIn = yield* signedInUserOf(cookieValue(request, SESSION_COOKIE))
      const account = Option.isSome(signedIn) ? Option.getOrUndefined(yield* Effect.flatMap(Users, (u) => u.findById(signedIn.value))) : undefined
      const prefilled = account === undefined ? "" : ` value="${escapeHtml(account.email)}"`
      return page(
        s.basePath,
        "Enrol a passkey",
        `<h1>Enrol a passkey</h1>
<form id="enrol"${account === undefined ? "" : ` data-signed-in-as="${escapeHtml(account.email)}"`}><label for="email">E-mail</label><input id="email" name="email" type="email" required autocomplete="username webauthn"${prefilled}>
<label for="displayName">Name</label><input id="displayName" name="displayName" autocomplete="name">
<div id="code-step" hidden><label for="code">Code from the e-mail</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code"></div>
<input type="hidden" name="clientId" value="${escapeHtml(query.get("client_id") ?? "")}">
<input type="hidden" name="returnTo" value="${escapeHtml(back)}">
<button type="submit">Create passkey</button></form>`,
        requestId,
      )
    }),
})

/** `GET /signin`: hosted passkey sign-in for an RP (`?client_id=`), and the external identity providers on offer. */
export const signinPage = endpoint({
  method: "GET",
  path: "/signin",
  tag: "Hosted pages",
  auth: "none",
  hidden: true,
  summary: "Hosted sign-in",
  response: htmlResponse,
  handle: ({ requestId, query }) =>
    Effect.gen(function* () {
      const s = yield* EngineConfig
      const clientId = query.get("client_id") ?? ""
      // After signing in (passkey or external provider) the browser continues to `back`, e.g. /authorize.
      const back = yield* returnTo(query)
      const continuation = (path: string) => {
        const q = new URLSearchParams()
        if (clientId !== "") q.set("client_id", clientId)
        if (back !== "") q.set("return_to", back)
        const text = q.toString()
        return `${s.basePath}${path}${text === "" ? "" : `?${text}`}`
      }
      // External identity providers offered here: engine-wide ones, plus the RP's own (docs/identity-providers.md).
      const providers = yield* providersForSignIn(clientId === "" ? null : clientId)
      const external =
        providers.length === 0
          ? ""
          : `<h2>Or sign in with</h2><ul id="providers">${providers
              .map((p) => `<li><a href="${escapeHtml(continuation(`/idp/${encodeURIComponent(p.id)}/start`))}">${escapeHtml(p.name)}</a></li>`)
              .join("")}</ul>`
      // Coming from /authorize: a new user enrols first, then signs in and continues.
      const enrolLink =
        back === "" ? "" : `<p>New here? <a id="enrol-link" href="${escapeHtml(continuation("/enrol"))}">Create an account with a passkey</a></p>`
      return page(
        s.basePath,
        "Sign in",
        `<h1>Sign in with a passkey</h1>
<form id="signin"><label for="clientId">RP client id</label><input id="clientId" name="clientId" required value="${escapeHtml(clientId)}">
<label for="email">E-mail (optional)</label><input id="email" name="email" type="email" autocomplete="username webauthn">
<input type="hidden" name="returnTo" value="${escapeHtml(back)}">
<button type="submit">Sign in</button></form>${enrolLink}<label for="token">Access token</label><textarea id="token" readonly></textarea>${external}`,
        requestId,
      )
    }),
})

/** `GET /pages/webauthn.js`: the pages' script. */
export const pageScript = endpoint({
  method: "GET",
  path: "/pages/webauthn.js",
  tag: "Hosted pages",
  auth: "none",
  hidden: true,
  summary: "Hosted page script",
  response: { mediaType: "text/javascript" },
  handle: ({ requestId }) => scriptResponse("webauthn", requestId),
})

/** All hosted pages. */
export const hostedPages = [landingPage, enrolPage, signinPage, pageScript] as const
